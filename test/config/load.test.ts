// Settings that are right: where the benchmarks come from, the defaults, and which
// layer wins (benchmark entry > top level of the file > input > built-in default).

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { configHash } from '../../src/config/config-hash.js';
import { resolveGateConfig } from '../../src/config/load.js';
import type { BenchmarkSpec } from '../../src/config/types.js';
import { useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';

function byName(benchmarks: BenchmarkSpec[], name: string): BenchmarkSpec {
  const found = benchmarks.find((benchmark) => benchmark.name === name);
  if (!found) throw new Error(`no benchmark ${name}`);
  return found;
}

describe('one benchmark from the inputs', () => {
  it('fills every default around a bare command', async () => {
    const workspace = await makeWorkspace();
    const config = await resolveGateConfig({ command: './bench.sh' }, { workspace });
    const spec = {
      name: 'benchmark',
      command: './bench.sh',
      format: 'auto',
      runs: 3,
      confirmRuns: 10,
      profile: 'auto' as const,
      profileMode: 'auto' as const,
      // Only what the config says: every other metric gets its built-in threshold.
      thresholds: {},
      workingDirectory: workspace,
      env: {},
      timeoutMinutes: 60,
    };
    expect(config).toEqual({
      source: 'action inputs',
      commandFromInputs: true,
      benchmarks: [{ ...spec, configHash: configHash(spec, workspace) }],
      baselinePaths: [],
      failOnRegression: true,
      failOnInconclusive: false,
      confidence: 0.95,
      baselineWindow: 5,
      outDir: join(workspace, 'perf-gate-output'),
      uploadProfiles: true,
      artifactRetentionDays: 14,
      artifactCompressionLevel: 6,
      baselineStore: 'git-branch',
      baselineBranch: 'perf-gate-data',
      baselineMatch: 'strict',
      acceptAfter: 3,
      updateBaseline: 'auto',
      baselineKeep: 500,
      missingAfter: 3,
    });
    expect(config).not.toHaveProperty('profilerPath');
  });

  it('takes every setting from the inputs', async () => {
    const workspace = await makeWorkspace({}, ['bench']);
    const config = await resolveGateConfig(
      {
        command: 'python bench.py',
        name: 'rerank',
        format: 'offline-benchmark',
        runs: '5',
        'confirm-runs': '0',
        profile: 'FALSE',
        thresholds: '# tighter\nthroughput: 2%, latency_p95: 7.5%\n\nttft_p99: 20 %',
        'working-directory': 'bench',
        'timeout-minutes': '2.5',
        'baseline-path': 'perf/a.json\nperf/b.json\n',
        'fail-on-regression': 'False',
        'fail-on-inconclusive': 'TRUE',
        confidence: '99.9%',
        'baseline-window': '20',
        'out-dir': 'out',
        'save-baseline': 'perf/new.json',
        'profile-mode': 'Session',
        'profiler-path': 'tools/neuron-explorer',
        'upload-profiles': 'FALSE',
        'artifact-retention-days': '90',
        'artifact-compression-level': '0',
      },
      { workspace },
    );
    expect(config.benchmarks).toHaveLength(1);
    expect(config.benchmarks[0]).toMatchObject({
      name: 'rerank',
      command: 'python bench.py',
      format: 'offline-benchmark',
      runs: 5,
      confirmRuns: 0,
      profile: 'false',
      profileMode: 'session',
      thresholds: { throughput: 0.02, latency_p95: 0.075, ttft_p99: 0.2 },
      workingDirectory: join(workspace, 'bench'),
      timeoutMinutes: 2.5,
    });
    expect(config.baselinePaths).toEqual([
      join(workspace, 'perf/a.json'),
      join(workspace, 'perf/b.json'),
    ]);
    expect(config.failOnRegression).toBe(false);
    expect(config.failOnInconclusive).toBe(true);
    expect(config.confidence).toBe(0.999);
    expect(config.baselineWindow).toBe(20);
    expect(config.outDir).toBe(join(workspace, 'out'));
    expect(config.saveBaseline).toBe(join(workspace, 'perf/new.json'));
    expect(config.profilerPath).toBe(join(workspace, 'tools/neuron-explorer'));
    expect(config.uploadProfiles).toBe(false);
    expect(config.artifactRetentionDays).toBe(90);
    expect(config.artifactCompressionLevel).toBe(0);
  });

  it('ignores .github/perf-gate.yml when command is given', async () => {
    const workspace = await makeWorkspace({ [FILE]: 'not: [valid' });
    const config = await resolveGateConfig({ command: './bench.sh' }, { workspace });
    expect(config.source).toBe('action inputs');
    expect(config.benchmarks.map((benchmark) => benchmark.command)).toEqual(['./bench.sh']);
  });

  it("says 'command line' as the source for CLI flags", async () => {
    const workspace = await makeWorkspace();
    const config = await resolveGateConfig({ command: 'x' }, { workspace, origin: 'cli' });
    expect(config.source).toBe('command line');
  });
});

describe('benchmarks from a file', () => {
  const twoBenchmarks = `
runs: 4
confirm-runs: 3
profile: false
timeout-minutes: 30
thresholds: { throughput: 5%, latency_p99: "2.5%" }
fail-on-regression: false
fail-on-inconclusive: true
confidence: 90%
baseline-path: perf/baseline.json
baseline-window: 10
profile-mode: session
profiler-path: /opt/aws/neuron/bin/neuron-profile
upload-profiles: false
artifact-retention-days: 1
artifact-compression-level: 9
benchmarks:
  - name: qwen3-reranker
    command: python offline_benchmark.py --output-file "$PERF_GATE_OUTPUT"
    format: offline-benchmark
    runs: 3
    confirm-runs: 0
    profile: true
    profile-mode: model
    thresholds: { latency_p95: 8% }
    working-directory: bench
    env: { MAX_NUM_SEQS: "4" }
    timeout-minutes: 45
  - name: serve
    command: |
      vllm bench serve --save-result "$PERF_GATE_OUTPUT"
`;

  it('reads a file named by config, with two benchmarks', async () => {
    const workspace = await makeWorkspace({ 'perf/gate.yml': twoBenchmarks }, ['bench']);
    const config = await resolveGateConfig({ config: 'perf/gate.yml' }, { workspace });
    expect(config.source).toBe('perf/gate.yml');
    expect(config.failOnRegression).toBe(false);
    expect(config.failOnInconclusive).toBe(true);
    expect(config.confidence).toBe(0.9);
    expect(config.baselinePaths).toEqual([join(workspace, 'perf/baseline.json')]);
    expect(config.baselineWindow).toBe(10);
    expect(config.profilerPath).toBe('/opt/aws/neuron/bin/neuron-profile');
    expect(config.uploadProfiles).toBe(false);
    expect(config.artifactRetentionDays).toBe(1);
    expect(config.artifactCompressionLevel).toBe(9);

    const rerank = byName(config.benchmarks, 'qwen3-reranker');
    expect(rerank).toEqual({
      name: 'qwen3-reranker',
      command: 'python offline_benchmark.py --output-file "$PERF_GATE_OUTPUT"',
      format: 'offline-benchmark',
      runs: 3,
      confirmRuns: 0,
      profile: 'true',
      profileMode: 'model',
      thresholds: { throughput: 0.05, latency_p99: 0.025, latency_p95: 0.08 },
      workingDirectory: join(workspace, 'bench'),
      env: { MAX_NUM_SEQS: '4' },
      timeoutMinutes: 45,
      configHash: expect.stringMatching(/^[0-9a-f]{12}$/),
    });

    const serve = byName(config.benchmarks, 'serve');
    expect(serve).toMatchObject({
      command: 'vllm bench serve --save-result "$PERF_GATE_OUTPUT"',
      format: 'auto',
      runs: 4,
      confirmRuns: 3,
      profile: 'false',
      profileMode: 'session',
      workingDirectory: workspace,
      env: {},
      timeoutMinutes: 30,
    });
    expect(serve.configHash).not.toBe(rerank.configHash);
  });

  it('picks up .github/perf-gate.yml without any input', async () => {
    const workspace = await makeWorkspace({ [FILE]: twoBenchmarks }, ['bench']);
    const config = await resolveGateConfig({}, { workspace });
    expect(config.source).toBe('.github/perf-gate.yml');
    expect(config.benchmarks.map((benchmark) => benchmark.name)).toEqual([
      'qwen3-reranker',
      'serve',
    ]);
  });

  it('picks up .github/perf-gate.yaml too', async () => {
    const workspace = await makeWorkspace({
      '.github/perf-gate.yaml': 'benchmarks:\n  - name: a\n    command: x\n',
    });
    const config = await resolveGateConfig({}, { workspace });
    expect(config.source).toBe('.github/perf-gate.yaml');
  });

  it('turns env values into the strings they were written as', async () => {
    const workspace = await makeWorkspace({
      [FILE]: [
        'env: { SHARED: 1, OVERRIDDEN: top }',
        'benchmarks:',
        '  - name: a',
        '    command: x',
        '    env:',
        '      INT: 4',
        '      FLOAT: 1.0',
        '      OCTAL_LOOKING: 007',
        '      BOOL: true',
        '      TEXT: "4"',
        '      OVERRIDDEN: entry',
      ].join('\n'),
    });
    const config = await resolveGateConfig({}, { workspace });
    expect(config.benchmarks[0]?.env).toEqual({
      SHARED: '1',
      INT: '4',
      FLOAT: '1.0',
      OCTAL_LOOKING: '007',
      BOOL: 'true',
      TEXT: '4',
      OVERRIDDEN: 'entry',
    });
  });
});

describe('precedence: benchmark entry > file top level > input > default', () => {
  const entries = [
    'benchmarks:',
    '  - name: own',
    '    command: x',
    '    runs: 2',
    '    confirm-runs: 1',
    '    thresholds: { mfu: 6%, tpot_p50: 9% }',
    '  - name: inherits',
    '    command: y',
  ].join('\n');
  const inputs = {
    runs: '7',
    'confirm-runs': '4',
    thresholds: 'throughput: 1%\nlatency_p50: 2%',
  };

  it('for runs', async () => {
    const withTop = await makeWorkspace({ [FILE]: `runs: 5\n${entries}` });
    const top = await resolveGateConfig(inputs, { workspace: withTop });
    expect(byName(top.benchmarks, 'own').runs).toBe(2);
    expect(byName(top.benchmarks, 'inherits').runs).toBe(5);

    const withoutTop = await makeWorkspace({ [FILE]: entries });
    const input = await resolveGateConfig(inputs, { workspace: withoutTop });
    expect(byName(input.benchmarks, 'inherits').runs).toBe(7);

    const builtIn = await resolveGateConfig({}, { workspace: withoutTop });
    expect(byName(builtIn.benchmarks, 'inherits').runs).toBe(3);
  });

  it('for confirm-runs', async () => {
    const withTop = await makeWorkspace({ [FILE]: `confirm-runs: 6\n${entries}` });
    const top = await resolveGateConfig(inputs, { workspace: withTop });
    expect(byName(top.benchmarks, 'own').confirmRuns).toBe(1);
    expect(byName(top.benchmarks, 'inherits').confirmRuns).toBe(6);

    const withoutTop = await makeWorkspace({ [FILE]: entries });
    const input = await resolveGateConfig(inputs, { workspace: withoutTop });
    expect(byName(input.benchmarks, 'own').confirmRuns).toBe(1);
    expect(byName(input.benchmarks, 'inherits').confirmRuns).toBe(4);

    const builtIn = await resolveGateConfig({}, { workspace: withoutTop });
    expect(byName(builtIn.benchmarks, 'inherits').confirmRuns).toBe(10);
  });

  it('for confirm-runs: 0 in an entry over a higher file top level', async () => {
    const workspace = await makeWorkspace({
      [FILE]: 'confirm-runs: 5\nbenchmarks:\n  - { name: a, command: x, confirm-runs: 0 }\n',
    });
    const config = await resolveGateConfig({ 'confirm-runs': '3' }, { workspace });
    expect(config.benchmarks[0]?.confirmRuns).toBe(0);
  });

  it('for thresholds, merged per metric id', async () => {
    const workspace = await makeWorkspace({
      [FILE]: `thresholds: { throughput: 3%, mfu: 4% }\n${entries}`,
    });
    const config = await resolveGateConfig(inputs, { workspace });
    expect(byName(config.benchmarks, 'own').thresholds).toEqual({
      throughput: 0.03, // file top level over input
      latency_p50: 0.02, // input
      mfu: 0.06, // entry over file top level
      tpot_p50: 0.09, // entry only
    });
    expect(byName(config.benchmarks, 'inherits').thresholds).toEqual({
      throughput: 0.03,
      latency_p50: 0.02,
      mfu: 0.04,
    });
  });

  it('for gate-wide settings: file over input over default', async () => {
    const withSettings = await makeWorkspace({
      [FILE]: `fail-on-regression: true\nbaseline-path: [a.json, b.json]\n${entries}`,
    });
    const gate = { 'fail-on-regression': 'false', 'baseline-path': 'input.json' };
    const fromFile = await resolveGateConfig(gate, { workspace: withSettings });
    expect(fromFile.failOnRegression).toBe(true);
    expect(fromFile.baselinePaths).toEqual([
      join(withSettings, 'a.json'),
      join(withSettings, 'b.json'),
    ]);

    const plain = await makeWorkspace({ [FILE]: entries });
    const fromInput = await resolveGateConfig(gate, { workspace: plain });
    expect(fromInput.failOnRegression).toBe(false);
    expect(fromInput.baselinePaths).toEqual([join(plain, 'input.json')]);
  });

  it('for confidence, fail-on-inconclusive and baseline-window', async () => {
    const gate = {
      confidence: '90%',
      'fail-on-inconclusive': 'true',
      'baseline-window': '3',
    };
    const withSettings = await makeWorkspace({
      [FILE]: `confidence: 99%\nfail-on-inconclusive: false\nbaseline-window: 8\n${entries}`,
    });
    const fromFile = await resolveGateConfig(gate, { workspace: withSettings });
    expect(fromFile).toMatchObject({
      confidence: 0.99,
      failOnInconclusive: false,
      baselineWindow: 8,
    });

    const plain = await makeWorkspace({ [FILE]: entries });
    const fromInput = await resolveGateConfig(gate, { workspace: plain });
    expect(fromInput).toMatchObject({
      confidence: 0.9,
      failOnInconclusive: true,
      baselineWindow: 3,
    });

    const builtIn = await resolveGateConfig({}, { workspace: plain });
    expect(builtIn).toMatchObject({
      confidence: 0.95,
      failOnInconclusive: false,
      baselineWindow: 5,
    });
  });

  it('for profile: on-change, from an input in any case and from the file', async () => {
    const entries = [
      'benchmarks:',
      '  - { name: own, command: x, profile: on-change }',
      '  - { name: inherits, command: y }',
    ].join('\n');
    const workspace = await makeWorkspace({ [FILE]: entries });
    const fromInput = await resolveGateConfig({ profile: 'On-Change' }, { workspace });
    expect(byName(fromInput.benchmarks, 'inherits').profile).toBe('on-change');
    const fromFile = await resolveGateConfig({}, { workspace });
    expect(byName(fromFile.benchmarks, 'own').profile).toBe('on-change');
    // The default stays auto: MFU is gated on every pull request unless asked otherwise.
    expect(byName(fromFile.benchmarks, 'inherits').profile).toBe('auto');
    // Profiling decides what is measured, not how: the same config hash as auto.
    expect(byName(fromFile.benchmarks, 'own').configHash).toBe(
      byName(fromInput.benchmarks, 'own').configHash,
    );
  });

  it('for profile-mode', async () => {
    const modes = [
      'benchmarks:',
      '  - { name: own, command: x, profile-mode: model }',
      '  - { name: inherits, command: y }',
    ].join('\n');
    const input = { 'profile-mode': 'session' };

    const withTop = await makeWorkspace({ [FILE]: `profile-mode: session\n${modes}` });
    const top = await resolveGateConfig({}, { workspace: withTop });
    expect(byName(top.benchmarks, 'own').profileMode).toBe('model'); // entry over top level
    expect(byName(top.benchmarks, 'inherits').profileMode).toBe('session');

    const topOverInput = await makeWorkspace({ [FILE]: `profile-mode: model\n${modes}` });
    const overInput = await resolveGateConfig(input, { workspace: topOverInput });
    expect(byName(overInput.benchmarks, 'inherits').profileMode).toBe('model');

    const withoutTop = await makeWorkspace({ [FILE]: modes });
    const fromInput = await resolveGateConfig(input, { workspace: withoutTop });
    expect(byName(fromInput.benchmarks, 'own').profileMode).toBe('model');
    expect(byName(fromInput.benchmarks, 'inherits').profileMode).toBe('session');

    // auto: session for a serving format, model otherwise, decided at the profiled run.
    const builtIn = await resolveGateConfig({}, { workspace: withoutTop });
    expect(byName(builtIn.benchmarks, 'inherits').profileMode).toBe('auto');
  });

  it('for the profiler and artifact settings: file over input over default', async () => {
    const gate = {
      'profiler-path': 'input/neuron-profile',
      'upload-profiles': 'false',
      'artifact-retention-days': '30',
      'artifact-compression-level': '1',
    };
    const withSettings = await makeWorkspace({
      [FILE]: [
        'profiler-path: file/neuron-explorer',
        'upload-profiles: true',
        'artifact-retention-days: 7',
        'artifact-compression-level: 3',
        entries,
      ].join('\n'),
    });
    const fromFile = await resolveGateConfig(gate, { workspace: withSettings });
    expect(fromFile).toMatchObject({
      profilerPath: join(withSettings, 'file/neuron-explorer'),
      uploadProfiles: true,
      artifactRetentionDays: 7,
      artifactCompressionLevel: 3,
    });

    const plain = await makeWorkspace({ [FILE]: entries });
    const fromInput = await resolveGateConfig(gate, { workspace: plain });
    expect(fromInput).toMatchObject({
      profilerPath: join(plain, 'input/neuron-profile'),
      uploadProfiles: false,
      artifactRetentionDays: 30,
      artifactCompressionLevel: 1,
    });

    const builtIn = await resolveGateConfig({}, { workspace: plain });
    expect(builtIn).toMatchObject({
      uploadProfiles: true,
      artifactRetentionDays: 14,
      artifactCompressionLevel: 6,
    });
    expect(builtIn.profilerPath).toBeUndefined();
  });

  it('for the working directory', async () => {
    const workspace = await makeWorkspace(
      {
        [FILE]: [
          'working-directory: top',
          'benchmarks:',
          '  - { name: a, command: x, working-directory: entry }',
          '  - { name: b, command: y }',
        ].join('\n'),
      },
      ['top', 'entry', 'input'],
    );
    const config = await resolveGateConfig({ 'working-directory': 'input' }, { workspace });
    expect(config.benchmarks.map((benchmark) => benchmark.workingDirectory)).toEqual([
      join(workspace, 'entry'),
      join(workspace, 'top'),
    ]);
  });
});

describe('profiler-path', () => {
  it('resolves a relative path against the workspace, without requiring it to exist', async () => {
    const workspace = await makeWorkspace();
    const config = await resolveGateConfig(
      { command: 'x', 'profiler-path': ' ./tools/../bin/neuron-explorer ' },
      { workspace },
    );
    expect(config.profilerPath).toBe(join(workspace, 'bin/neuron-explorer'));
  });

  it('resolves a path in the file against the workspace, not the file', async () => {
    const workspace = await makeWorkspace({
      'perf/gate.yml': 'profiler-path: bin/neuron-profile\nbenchmarks: [{ name: a, command: x }]\n',
    });
    const config = await resolveGateConfig({ config: 'perf/gate.yml' }, { workspace });
    expect(config.profilerPath).toBe(join(workspace, 'bin/neuron-profile'));
  });

  it('keeps an absolute path as it is', async () => {
    const workspace = await makeWorkspace();
    const config = await resolveGateConfig(
      { command: 'x', 'profiler-path': '/opt/aws/neuron/bin/neuron-explorer' },
      { workspace },
    );
    expect(config.profilerPath).toBe('/opt/aws/neuron/bin/neuron-explorer');
  });
});

describe('baseline store settings', () => {
  it('takes the file store when baseline files are given, else the git-branch store', async () => {
    const workspace = await makeWorkspace();
    const withFile = await resolveGateConfig(
      { command: 'true', 'baseline-path': 'perf/baseline.json' },
      { workspace },
    );
    expect(withFile.baselineStore).toBe('file');
    const named = await resolveGateConfig(
      { command: 'true', 'baseline-path': 'b.json', 'baseline-store': 'Git-Branch' },
      { workspace },
    );
    expect(named.baselineStore).toBe('git-branch');
  });

  it('reads every baseline setting from the inputs and the file, the file first', async () => {
    const workspace = await makeWorkspace({
      'gate.yml':
        'baseline-match: loose\naccept-after: 0\nbenchmarks:\n  - { name: a, command: "true" }\n',
    });
    const config = await resolveGateConfig(
      {
        config: 'gate.yml',
        'baseline-match': 'strict',
        'baseline-branch': 'perf/data',
        'update-baseline': 'never',
        'baseline-keep': '20',
        'missing-after': '0',
        'environment-probe': 'cat versions.json',
      },
      { workspace },
    );
    expect(config).toMatchObject({
      baselineMatch: 'loose',
      acceptAfter: 0,
      baselineBranch: 'perf/data',
      updateBaseline: 'never',
      baselineKeep: 20,
      missingAfter: 0,
      environmentProbe: 'cat versions.json',
    });
  });

  it('names the input and what is allowed for a bad value', async () => {
    const workspace = await makeWorkspace();
    await expect(
      resolveGateConfig({ command: 'true', 'baseline-store': 'gh-pages' }, { workspace }),
    ).rejects.toThrow(
      /baseline-store.*"gh-pages".*allowed: git-branch, file, artifact, s3 or postgres/s,
    );
    await expect(
      resolveGateConfig({ command: 'true', 'baseline-branch': '-x..y' }, { workspace }),
    ).rejects.toThrow(/baseline-branch/);
  });
});
