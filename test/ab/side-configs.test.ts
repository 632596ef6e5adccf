// An A/B of two commits runs each side by its own commit's config: the base side's setup,
// benchmarks and variables come from the base commit, never from the working tree (a pull
// request), and a benchmark only one side has is reported, not judged.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AB_DEFAULTS, runAb } from '../../src/ab/gate-ab.js';
import { pairBenchmarks, unpairedWarnings } from '../../src/ab/side-configs.js';
import { Git } from '../../src/baseline/git/git.js';
import { Worktrees } from '../../src/bisect/worktrees.js';
import { resolveGateConfig } from '../../src/config/load.js';
import type { BenchmarkSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { gitIn } from '../support/git.js';
import { tempDir } from '../support/offline-result.js';

/** A benchmark that writes one figure; `$SLOW` (ms) is added when set. */
const BENCH = `require('node:fs').writeFileSync(process.env.PERF_GATE_OUTPUT,
  JSON.stringify([{ name: 'request', unit: 'ms', value: 100 + Number(process.env.SLOW ?? 0) + Math.random() }]));
`;

function configText(setup: string, names: string[]): string {
  return [
    `setup: ${JSON.stringify(setup)}`,
    'benchmarks:',
    ...names.flatMap((name) => [
      `  - name: ${name}`,
      '    command: node bench.js',
      '    format: custom-smaller-is-better',
      '    profile: false',
    ]),
  ].join('\n');
}

/** A repository: the base commit with its config; the working tree with the head's. */
async function repository(marks: string, headNames: string[]): Promise<string> {
  const root = await tempDir('perf-gate-ab-configs-');
  const git = (...args: string[]) => gitIn(root, args);
  git('init', '--quiet', '-b', 'main');
  await writeFile(join(root, 'bench.js'), BENCH);
  await writeFile(join(root, '.gitignore'), 'out/\n');
  const setup = (from: string) => `echo "${from} $PERF_GATE_SIDE" >> ${marks}`;
  await writeFile(join(root, 'perf-gate.yml'), configText(setup('base-config'), ['shared', 'old']));
  git('add', '-A');
  git('commit', '--quiet', '-m', 'base');
  await writeFile(join(root, 'perf-gate.yml'), configText(setup('head-config'), headNames));
  git('commit', '--quiet', '-am', 'head');
  return root;
}

async function compare(root: string) {
  const settings = { config: 'perf-gate.yml', 'out-dir': join(root, 'out') };
  const config = await resolveGateConfig(settings, { workspace: root, origin: 'cli' });
  const git = new Git({ cwd: root });
  const worktrees = await Worktrees.create(git);
  try {
    return await runAb(
      config,
      {
        root,
        git,
        worktrees,
        base: { ref: 'HEAD~1', env: {} },
        head: { env: {} },
        ...AB_DEFAULTS,
        confirmBlocks: 0,
        loadConfig: (dir: string) => resolveGateConfig(settings, { workspace: dir, origin: 'cli' }),
      },
      {
        runner: createProcessRunner(),
        log: new MemoryLogger(),
        env: { PATH: process.env.PATH },
      },
    );
  } finally {
    await worktrees.removeAll();
  }
}

describe('A/B of two commits: each side by its own config', () => {
  it("sets the base side up by the base commit's config and reports a benchmark only one side has", async () => {
    const marks = join(await tempDir('perf-gate-ab-marks-'), 'marks');
    const root = await repository(marks, ['shared', 'extra']);
    const report = await compare(root);
    const lines = (await readFile(marks, 'utf8')).trim().split('\n');
    expect(lines).toEqual(['base-config base', 'head-config head']);
    expect(report.benchmarks.map((b) => b.name)).toEqual(['shared']);
    expect(report.warnings).toContain(
      "only on the head: extra (not in the base's config; not compared)",
    );
    expect(report.warnings).toContain(
      "only on the base: old (not in the head's config; not compared)",
    );
  }, 60_000);

  it('refuses, naming the fix, when the base commit has no config of its own', async () => {
    const marks = join(await tempDir('perf-gate-ab-marks-'), 'marks');
    const root = await tempDir('perf-gate-ab-configs-');
    gitIn(root, ['init', '--quiet', '-b', 'main']);
    await writeFile(join(root, 'bench.js'), BENCH);
    await writeFile(join(root, '.gitignore'), 'out/\n');
    gitIn(root, ['add', '-A']);
    gitIn(root, ['commit', '--quiet', '-m', 'before the gate']);
    const setup = `echo "head-config $PERF_GATE_SIDE" >> ${marks}`;
    await writeFile(join(root, 'perf-gate.yml'), configText(setup, ['shared']));
    gitIn(root, ['add', '-A']);
    gitIn(root, ['commit', '--quiet', '-m', 'adds the gate']);
    await expect(compare(root)).rejects.toThrow(
      /the base side \(HEAD~1 \([0-9a-f]{7}\)\) runs by its own commit's config, and that commit has none[\s\S]*merge the config first/,
    );
    // Neither side was set up: the head's setup never ran as the base.
    await expect(readFile(marks, 'utf8')).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it("refuses, naming the file and the field, when the base commit's config is malformed", async () => {
    const marks = join(await tempDir('perf-gate-ab-marks-'), 'marks');
    const root = await tempDir('perf-gate-ab-configs-');
    gitIn(root, ['init', '--quiet', '-b', 'main']);
    await writeFile(join(root, 'bench.js'), BENCH);
    await writeFile(join(root, '.gitignore'), 'out/\n');
    await writeFile(join(root, 'perf-gate.yml'), 'benchmarks: 5\n');
    gitIn(root, ['add', '-A']);
    gitIn(root, ['commit', '--quiet', '-m', 'a broken gate']);
    const setup = `echo "head-config $PERF_GATE_SIDE" >> ${marks}`;
    await writeFile(join(root, 'perf-gate.yml'), configText(setup, ['shared']));
    gitIn(root, ['commit', '--quiet', '-am', 'mends the gate']);
    await expect(compare(root)).rejects.toThrow(
      /the base side \(HEAD~1 \([0-9a-f]{7}\)\) runs by its own commit's config, and that commit has none the gate can use: [\s\S]*perf-gate\.yml[\s\S]*benchmarks/,
    );
    await expect(readFile(marks, 'utf8')).rejects.toThrow(/ENOENT/);
  }, 60_000);
});

describe('pairBenchmarks', () => {
  const spec = (name: string, extra: Partial<BenchmarkSpec> = {}) =>
    ({ name, command: `run ${name}`, thresholds: {}, ...extra }) as BenchmarkSpec;

  it("keeps what the base runs and judges it by the head's thresholds and SLO", () => {
    const base = spec('a', { command: 'base command', thresholds: { latency_p50: 50 } });
    const head = spec('a', {
      command: 'head command',
      thresholds: { latency_p50: 5 },
      slo: { ttft: { p99: 100 } } as unknown as BenchmarkSpec['slo'],
    });
    const { pairs } = pairBenchmarks([base], [head]);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.base.command).toBe('base command');
    expect(pairs[0]!.base.thresholds).toEqual({ latency_p50: 5 });
    expect(pairs[0]!.base.slo).toEqual(head.slo);
    expect(pairs[0]!.head).toBe(head);
  });

  it('names the benchmarks only one side has, and says nothing when both have the same', () => {
    const paired = pairBenchmarks([spec('a'), spec('gone')], [spec('new'), spec('a')]);
    expect(paired.pairs.map((p) => p.head.name)).toEqual(['a']);
    expect(unpairedWarnings(paired)).toEqual([
      "only on the head: new (not in the base's config; not compared)",
      "only on the base: gone (not in the head's config; not compared)",
    ]);
    expect(unpairedWarnings(pairBenchmarks([spec('a')], [spec('a')]))).toEqual([]);
  });
});
