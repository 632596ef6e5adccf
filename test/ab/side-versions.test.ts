// Each A/B side proves it ran its own environment: the versions are read in each side's
// benchmark shell after its command, and a command that sets up one SDK for both sides
// stops the comparison, naming its line.
import { dirname, join } from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runAbBenchmarks } from '../../src/ab/run-ab.js';
import {
  overriddenComponents,
  overriddenMessage,
  overridingLine,
  SideVersions,
} from '../../src/ab/side-versions.js';
import type { PreparedSide } from '../../src/ab/sides.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { GateError } from '../../src/errors.js';
import { MemoryLogger } from '../../src/log.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { fakeVenv, NEW_SDK, OLD_SDK } from '../support/fake-venvs.js';
import { tempDir } from '../support/offline-result.js';

const README_COMMAND =
  'source /opt/aws_neuronx_venv_pytorch/bin/activate && python offline_benchmark.py --output-file "$PERF_GATE_OUTPUT"';

describe('overridingLine', () => {
  it("names the README's activate, on line 1 of its folded command", () => {
    expect(overridingLine(README_COMMAND)).toEqual({
      line: 1,
      text: 'source /opt/aws_neuronx_venv_pytorch/bin/activate',
    });
  });

  it('finds the line of a multi-line command, and the other ways to pick an environment', () => {
    expect(overridingLine('cd bench\n. .venv/bin/activate\npython run.py')).toEqual({
      line: 2,
      text: '. .venv/bin/activate',
    });
    expect(overridingLine('conda activate neuron; python x.py')?.text).toBe(
      'conda activate neuron',
    );
    expect(overridingLine('export PATH=/opt/venv/bin:$PATH && x')?.text).toBe(
      'export PATH=/opt/venv/bin:$PATH',
    );
    expect(overridingLine('true || module load neuron/2.26')?.text).toBe('module load neuron/2.26');
  });

  it('finds nothing in a command that keeps the PATH it was given', () => {
    expect(overridingLine('python offline_benchmark.py --output-file "$PERF_GATE_OUTPUT"')).toBe(
      undefined,
    );
    expect(overridingLine('echo PATH=$PATH; ./activate-less.sh')).toBe(undefined);
  });
});

describe('overriddenComponents', () => {
  const beside = {
    base: { compilerVersion: 'A', vllmVersion: '1' },
    head: { compilerVersion: 'B', vllmVersion: '1' },
  };

  it('names a component that differs beside the benchmarks but ran alike inside them', () => {
    expect(
      overriddenComponents(beside, {
        base: { compilerVersion: 'A', vllmVersion: '1' },
        head: { compilerVersion: 'A', vllmVersion: '1' },
      }),
    ).toEqual([{ label: 'neuronx-cc', beside: { base: 'A', head: 'B' }, inside: 'A' }]);
  });

  it('names nothing when the benchmarks ran what their sides give, or when nothing was found inside', () => {
    expect(
      overriddenComponents(beside, {
        base: { compilerVersion: 'A' },
        head: { compilerVersion: 'B' },
      }),
    ).toEqual([]);
    expect(overriddenComponents(beside, { base: {}, head: {} })).toEqual([]);
    const alike = { base: { compilerVersion: 'A' }, head: { compilerVersion: 'A' } };
    expect(overriddenComponents(alike, alike)).toEqual([]);
  });
});

describe('overriddenMessage', () => {
  it('says what both ran, what the sides give, the line, and what to do', () => {
    const record = {
      env: { VIRTUAL_ENV: '/opt/aws_neuronx_venv_pytorch' },
      resolved: { python3: '/opt/aws_neuronx_venv_pytorch/bin/python3' },
    };
    const message = overriddenMessage(
      'qwen3-reranker',
      README_COMMAND,
      [{ label: 'neuronx-cc', beside: { base: 'A', head: 'B' }, inside: 'A' }],
      { base: record, head: record },
    );
    expect(message).toBe(
      "benchmark qwen3-reranker: both sides' benchmarks ran neuronx-cc A (the sides' environments give A on the base, B on the head): " +
        'its command sets up an environment of its own on line 1, `source /opt/aws_neuronx_venv_pytorch/bin/activate`, ' +
        'which overrides the PATH base-env/head-env (--base-env/--head-env) give each side; ' +
        'both benchmark shells ran python3 /opt/aws_neuronx_venv_pytorch/bin/python3 in the virtualenv /opt/aws_neuronx_venv_pytorch. ' +
        'Nothing was judged: the comparison would compare one SDK with itself. ' +
        "Drop `source /opt/aws_neuronx_venv_pytorch/bin/activate` from the command and let base-env/head-env's PATH choose each side's virtualenv (docs/ab.md).",
    );
  });

  it('without a line to name, points at the command or a script it runs', () => {
    const record = { env: {}, resolved: {} };
    const message = overriddenMessage(
      'x',
      './run.sh',
      [{ label: 'vLLM', beside: { base: '1', head: '2' }, inside: '1' }],
      { base: record, head: record },
    );
    expect(message).toContain(
      'its command, or a script it runs, sets up an environment of its own',
    );
    expect(message).toContain('Remove that set-up from the command');
  });
});

/** Two SDK venvs, each side's PATH choosing one, and a benchmark run by `command`. */
async function abAcrossVenvs(command: (venvs: { old: string; next: string }) => string) {
  const root = await tempDir('perf-gate-side-versions-');
  const old = await fakeVenv(root, 'venv-old', OLD_SDK);
  const next = await fakeVenv(root, 'venv-new', NEW_SDK);
  await mkdir(join(root, '.github'));
  await writeFile(
    join(root, '.github/perf-gate.yml'),
    [
      'benchmarks:',
      '  - name: reranker',
      `    command: ${JSON.stringify(command({ old, next }))}`,
      '    format: offline-benchmark',
      '    profile: false',
    ].join('\n'),
  );
  const config = await resolveGateConfig({}, { workspace: root });
  const systemPath = `${dirname(process.execPath)}:/usr/bin:/bin`;
  const side = (name: 'base' | 'head', venv: string): PreparedSide => ({
    side: name,
    label: name,
    dir: root,
    outDir: join(root, 'out', name),
    env: { PATH: `${venv}/bin:${systemPath}` },
  });
  const sides = { base: side('base', old), head: side('head', next) };
  const runner = createProcessRunner();
  const env = { PATH: systemPath, HOME: root, SIM_NOISE: '0', SIM_OUTLIERS: '0' };
  const sideVersions = new SideVersions({
    sides,
    // What the probe beside each side finds with its PATH.
    beside: {
      base: { compilerVersion: OLD_SDK.compiler, neuronSdkVersion: '2.26' },
      head: { compilerVersion: NEW_SDK.compiler, neuronSdkVersion: '2.27' },
    },
    runners: { base: runner, head: runner },
    env,
    probeCommand: () => undefined,
  });
  const measured = runAbBenchmarks(
    config,
    sides,
    root,
    { blocks: 1, confirmBlocks: 0 },
    { runner, log: new MemoryLogger(), env, sideVersions },
  );
  return { measured, sideVersions };
}

describe('SideVersions in an A/B run across two SDK venvs', () => {
  it('stops, naming the activate line, when the command activates one venv for both sides', async () => {
    const { measured } = await abAcrossVenvs(
      ({ old }) =>
        `source ${old}/bin/activate && offline-benchmark --output-file "$PERF_GATE_OUTPUT"`,
    );
    const error = await measured.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GateError);
    expect((error as GateError).kind).toBe('usage');
    const message = (error as GateError).message;
    expect(message).toMatch(
      /^benchmark reranker: both sides' benchmarks ran Neuron SDK 2\.26 \(.*\), neuronx-cc 2\.21\.18209\.0\+043b1bf7 \(the sides' environments give 2\.21\.18209\.0\+043b1bf7 on the base, 2\.22\.5122\.0\+1c2d3e4f on the head\)/,
    );
    expect(message).toMatch(/on line 1, `source \/\S+\/venv-old\/bin\/activate`/);
    expect(message).toMatch(/in the virtualenv \/\S+\/venv-old\./);
  }, 60_000);

  it("reads each side's versions in its benchmark shell when the PATH chooses the venv", async () => {
    const { measured, sideVersions } = await abAcrossVenvs(
      () => 'offline-benchmark --output-file "$PERF_GATE_OUTPUT"',
    );
    const [benchmark] = await measured;
    expect(sideVersions.first()).toMatchObject({
      base: { compilerVersion: OLD_SDK.compiler, neuronSdkVersion: '2.26' },
      head: { compilerVersion: NEW_SDK.compiler, neuronSdkVersion: '2.27' },
    });
    // The judge sees each side's compiler as its benchmark ran it.
    expect(benchmark!.reports[0]!.result!.environment?.compilerVersion).toBe(NEW_SDK.compiler);
    expect(benchmark!.base[0]!.environment?.compilerVersion).toBe(OLD_SDK.compiler);
  }, 60_000);
});
