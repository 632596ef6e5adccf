// The bundled CLI, dist/cli.js, as a real process: run on the simulator, compare real
// pytest-benchmark files, and the exit codes of the contract.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { benchmarkPaths } from '../../src/runner/benchmark.js';
import { CLI, ROOT, runNode, SIMULATOR_BIN, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const CONFIG = `benchmarks:
  - name: qwen3-reranker
    command: offline-benchmark
    format: offline-benchmark
    runs: 3
    timeout-minutes: 1
`;

function cli(args: string[], cwd: string, sim: Record<string, string> = {}) {
  return runNode(CLI, args, { cwd, env: simulatorEnv(sim) });
}

/** `run` of dir/perf-gate.yml into base/, saving its results as baseline.json. */
function savedBaseline(dir: string, sim: Record<string, string>) {
  const args = ['--out', 'base', '--save-baseline', 'baseline.json', '--quiet'];
  return cli(['run', '--config', 'perf-gate.yml', ...args], dir, sim);
}

/** `run` of dir/perf-gate.yml against baseline.json, into `out`. */
function againstBaseline(dir: string, out: string, sim: Record<string, string>) {
  const args = ['--baseline', 'baseline.json', '--out', out, '--quiet'];
  return cli(['run', '--config', 'perf-gate.yml', ...args], dir, sim);
}

describe('neuron-perf-gate run (bundled) on the simulator', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('perf-gate-cli-');
    await writeFile(join(dir, 'perf-gate.yml'), CONFIG);
    const first = await savedBaseline(dir, { SIM_SEED: '11' });
    expect(first.stderr).toContain('baseline saved');
    expect(first.code).toBe(0);
  });

  it('exits 1 on an 8% slowdown, with every latency metric and mfu in the table', async () => {
    const result = await againstBaseline(dir, 'out', { SIM_SEED: '12', SIM_SLOWDOWN: '1.08' });
    expect(result.code).toBe(1);
    for (const id of ['throughput', 'latency_p50', 'latency_p95', 'latency_p99']) {
      expect(result.stdout).toMatch(new RegExp(`\\| ${id} \\(`));
    }
    // MFU comes from the profiled run, summarised by the simulated neuron-explorer.
    expect(result.stdout).toMatch(/\| mfu \(%\) +\| +2\.\d+ \| +2\.\d+ \| +−\d\.\d%/);
    expect(result.stdout).toContain('#### Profile');
    // MFU comes from the one profiled run, so it is not in the per-run table.
    const perRun = result.stdout.split('Runs and per-run values')[1] ?? '';
    expect(perRun).toMatch(/\| throughput \(queries\/s\)/);
    expect(perRun).not.toMatch(/\| mfu/);
    // Read from the profile tables: one row per graph, named by its NEFF.
    expect(result.stdout).toMatch(/\| context encoding `neff_[0-9]+…` +\|/);
    expect(result.stdout).toContain(
      'Read from the profile tables (schema 7.4.0) of 4 profiler call(s).',
    );
    expect(result.stdout).toMatch(/profiling overhead \+\d+\.\d% on throughput/);
    const comment = await readFile(join(dir, 'out', 'comment.md'), 'utf8');
    expect(comment).toBe(result.stdout);
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    // Three clean runs, the profiled run, then confirmation runs in batches (2, 3, 5: at
    // most confirm-runs, 10) until the regression is clear, before failing.
    const kinds = report.benchmarks[0].result.runs.map((r: { kind: string }) => r.kind);
    expect(kinds.slice(0, 4)).toEqual(['clean', 'clean', 'clean', 'profiled']);
    const confirmations = kinds.slice(4);
    expect([2, 5, 10]).toContain(confirmations.length);
    expect(confirmations.every((kind: string) => kind === 'clean')).toBe(true);
    // Confirmation also follows an inconclusive metric (verdict before: pass).
    expect(report.benchmarks[0].confirmation).toMatchObject({ runs: confirmations.length });
    expect(['pass', 'regression']).toContain(report.benchmarks[0].confirmation.verdictBefore);
    expect(comment).toContain(`with ${confirmations.length} more clean run(s)`);
    const throughput = report.benchmarks[0].metrics.find(
      (m: { id: string }) => m.id === 'throughput',
    );
    expect(throughput.method).toBe('student-t');
    expect(throughput.ci[1]).toBeLessThan(0);
    expect(throughput.reason).toMatch(
      /lower \(95% CI \d+\.\d% to \d+\.\d%\), beyond the 5% threshold/,
    );
  });

  it('fails on an MFU drop beyond its threshold, stating the reason, when timing is not gated', async () => {
    await writeFile(
      join(dir, 'mfu-only.yml'),
      CONFIG.replace(
        'timeout-minutes: 1',
        'timeout-minutes: 1\n    thresholds: { throughput: 1000%, latency_p50: 1000%, latency_p95: 1000%, latency_p99: 1000%, latency_mean: off, latency_geomean: off, mbu: off }',
      ),
    );
    const result = await cli(
      ['run', '--config', 'mfu-only.yml', '--baseline', 'baseline.json', '--out', 'mfu', '--quiet'],
      dir,
      { SIM_SEED: '14', SIM_SLOWDOWN: '1.15' },
    );
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(await readFile(join(dir, 'mfu', 'report.json'), 'utf8'));
    const failing = report.benchmarks[0].metrics.filter(
      (m: { verdict: string }) => m.verdict === 'regression',
    );
    expect(failing.map((m: { id: string }) => m.id)).toEqual(['mfu']);
    expect(failing[0].reason).toMatch(
      /^1\d\.\d% lower, beyond the 10% threshold \(low confidence: .*no interval\)$/,
    );
    expect(result.stdout).toMatch(/- \*\*mfu\*\*: 1\d\.\d% lower/);
  });

  it('measures MFU from a session-mode profile (the newer layout) too', async () => {
    await writeFile(
      join(dir, 'session.yml'),
      CONFIG.replace('runs: 3', 'runs: 1\n    profile-mode: session'),
    );
    const result = await cli(
      ['run', '--config', 'session.yml', '--out', 'session', '--quiet'],
      dir,
      {
        SIM_SEED: '15',
      },
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'session', 'report.json'), 'utf8'));
    const profile = report.benchmarks[0].profile;
    expect(profile.status).toBe('measured');
    expect(profile.ntffFiles.every((f: string) => /profile_nc_\d+_session_0\.ntff$/.test(f))).toBe(
      true,
    );
    expect(profile.metrics.mfu).toBeGreaterThan(1.5);
    expect(profile.metrics.mfu).toBeLessThan(3.5);
  });

  it('stops a profiler that hangs within the benchmark timeout-minutes, not 10 minutes a batch', async () => {
    // The profiler replaces itself with a sleep that never ends on its own.
    await writeFile(join(dir, 'hang-profiler'), '#!/bin/sh\nexec sleep 100000\n', { mode: 0o755 });
    await writeFile(
      join(dir, 'hang.yml'),
      `profiler-path: ./hang-profiler\n${CONFIG.replace('runs: 3', 'runs: 1').replace('timeout-minutes: 1', 'timeout-minutes: 0.05')}`,
    );
    const result = await cli(['run', '--config', 'hang.yml', '--out', 'hang', '--quiet'], dir, {
      SIM_SEED: '16',
    });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'hang', 'report.json'), 'utf8'));
    const profile = report.benchmarks[0].profile;
    expect(profile.status).toBe('failed');
    // Every graph's call shares the one 3 s budget: stopped, or never started.
    expect(profile.warnings.length).toBeGreaterThan(0);
    for (const warning of profile.warnings) {
      expect(warning).toMatch(/the profiler's 3 s ran out/);
    }
  }, 120_000);

  /** A profiler that wraps the simulated neuron-explorer the way `script` says. */
  async function wrappedProfiler(name: string, script: string, runs = 1): Promise<string> {
    await writeFile(join(dir, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    const config = `${name}.yml`;
    await writeFile(
      join(dir, config),
      `profiler-path: ./${name}\n${CONFIG.replace('runs: 3', `runs: ${runs}`)}`,
    );
    return config;
  }

  it('reads the summary of a profiler that prints log lines before its JSON', async () => {
    // neuron-profile's console logger writes timestamped lines on stdout.
    const config = await wrappedProfiler(
      'logging-profiler',
      'echo "2026-11-24 09:12:01.442 INFO  [neuron-profile] Reading profile $4"\n' +
        'echo "INFO: Processing NTFF (28.1 MB)"\nexec neuron-explorer "$@"',
    );
    const result = await cli(['run', '--config', config, '--out', 'logs', '--quiet'], dir, {
      SIM_SEED: '17',
    });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'logs', 'report.json'), 'utf8'));
    const profile = report.benchmarks[0].profile;
    expect(profile.warnings ?? []).toEqual([]);
    expect(profile.status).toBe('measured');
    expect(profile.metrics.mfu).toBeGreaterThan(1.5);
  });

  it('names the profiler command and its output, not the NTFF, when it prints no JSON', async () => {
    const config = await wrappedProfiler(
      'log-only-profiler',
      'echo "INFO: Reading profile $4"\necho "ERROR: NTFF version 9 is newer than this viewer"',
    );
    const result = await cli(['run', '--config', config, '--out', 'log-only', '--quiet'], dir, {
      SIM_SEED: '18',
    });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'log-only', 'report.json'), 'utf8'));
    const profile = report.benchmarks[0].profile;
    expect(profile.status).toBe('failed');
    expect(profile.warnings.length).toBeGreaterThan(0);
    for (const warning of profile.warnings) {
      expect(warning).toMatch(
        /^the profiler's output for \S+\.ntff could not be read: `\S+\/log-only-profiler view -n \S+\.neff -s \S+\.ntff --output-format summary-json` printed no JSON summary: \d+ characters beginning "INFO: Reading profile /,
      );
      expect(warning).not.toMatch(/\.ntff: is not valid JSON/);
      expect(warning).toMatch(/Its stdout is kept in \S+summary-\d\.json\.$/);
    }
    expect(result.stdout).toContain('printed no JSON summary');
  });

  it('says MFU is not measured when the profiler gives a graph a NaN total_time', async () => {
    // One summary-json call (whichever comes first) prints NaN for its graph's total_time.
    const config = await wrappedProfiler(
      'nan-time-profiler',
      'if echo "$*" | grep -q summary-json && mkdir nan-time-done 2>/dev/null; then\n' +
        '  neuron-explorer "$@" | sed -E \'s/"total_time": [0-9.eE+-]+/"total_time": NaN/\'\n' +
        'else\n  exec neuron-explorer "$@"\nfi',
      3, // the baseline's run count, so that it applies
    );
    // A profiler without tables (summary-json only, as SDKs before Neuron Explorer).
    const result = await cli(
      ['run', '--config', config, '--baseline', 'baseline.json', '--out', 'nan-time', '--quiet'],
      dir,
      { SIM_SEED: '19', SIM_PROFILER_TABLES: '0' },
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'nan-time', 'report.json'), 'utf8'));
    const [benchmark] = report.benchmarks;
    expect(benchmark.profile.status).toBe('measured');
    expect(benchmark.profile.untimedGraphs).toHaveLength(1);
    expect(benchmark.profile.metrics.mfu).toBeUndefined();
    // The baseline has an MFU of the whole profile; this run has none to compare with it.
    const mfu = benchmark.metrics.find((m: { id: string }) => m.id === 'mfu');
    expect(mfu).toMatchObject({ verdict: 'missing', current: null, threshold: 0.1 });
    expect(mfu.baseline).toBeGreaterThan(1.5);
    expect(mfu.reason).toMatch(
      /^not measured: partial profile: the profiler gave no total_time for graph n_[0-9a-f]+ \(\S+\.ntff\)$/,
    );
    expect(benchmark.profile.graphs).toHaveLength(3);
    expect(result.stdout).toMatch(/\| mfu \(%\) +\| +2\.\d+ \| +— \|.*⚪ not measured/);
    expect(result.stdout).toContain(
      'MFU **not measured**: partial profile, 1 graph(s) without total_time',
    );
    expect(result.stdout).toMatch(
      /the profiler gave no total_time \(NaN or missing\) for graph n_/,
    );
  });

  it('does not overwrite the baseline from a regressed run', async () => {
    const before = await readFile(join(dir, 'baseline.json'), 'utf8');
    const result = await cli(
      [
        'run',
        '--config',
        'perf-gate.yml',
        '--baseline',
        'baseline.json',
        '--save-baseline',
        'baseline.json',
        '--out',
        'o2',
        '--quiet',
      ],
      dir,
      { SIM_SEED: '13', SIM_SLOWDOWN: '1.2' },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('baseline not saved');
    expect(await readFile(join(dir, 'baseline.json'), 'utf8')).toBe(before);
  });

  it('exits 3 with the last lines of output when the benchmark fails or hangs', async () => {
    const failed = await cli(['run', '--config', 'perf-gate.yml', '--out', 'o3', '--quiet'], dir, {
      SIM_FAIL: '1',
    });
    expect(failed.code).toBe(3);
    expect(failed.stdout).toMatch(/exited with code 1/);
    expect(failed.stdout).toContain('NRT_EXEC_COMPLETED_WITH_ERR');
    await writeFile(
      join(dir, 'hang.yml'),
      CONFIG.replace('timeout-minutes: 1', 'timeout-minutes: 0.02'),
    );
    const hung = await cli(['run', '--config', 'hang.yml', '--out', 'o4', '--quiet'], dir, {
      SIM_HANG: '1',
    });
    expect(hung.code).toBe(3);
    expect(hung.stdout).toMatch(/did not finish within timeout-minutes \(0.02 min\)/);
  });

  it('exits 2 naming the file on a malformed config and on an unknown format', async () => {
    await writeFile(join(dir, 'bad.yml'), 'benchmarks:\n  - name: x\n    command: [unclosed\n');
    const malformed = await cli(['run', '--config', 'bad.yml', '--out', 'o5'], dir);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/bad\.yml/);
    await writeFile(
      join(dir, 'csv.yml'),
      CONFIG.replace('format: offline-benchmark', 'format: csv'),
    );
    const unknown = await cli(['run', '--config', 'csv.yml', '--out', 'o6'], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/csv\.yml.*csv|csv.*csv\.yml/s);
    expect(unknown.stderr).toMatch(/offline-benchmark/);
    // Nothing ran: no run logs were written.
    await expect(
      readFile(join(dir, 'o6', 'runs', 'qwen3-reranker', 'run-1.clean.log')),
    ).rejects.toThrow();
  });
});

describe('neuron-perf-gate compare (bundled) on real pytest-benchmark files', () => {
  let dir: string;
  const pytestBenchmark = (sleepMs: number, out: string) =>
    execFileSync(
      '/usr/bin/python3',
      ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--benchmark-json=${out}`, 'test_sleep.py'],
      { cwd: dir, env: { ...process.env, SLEEP_MS: String(sleepMs) }, stdio: 'pipe' },
    );

  beforeAll(async () => {
    dir = await tempDir('perf-gate-pytest-');
    await writeFile(
      join(dir, 'test_sleep.py'),
      [
        'import os, time',
        'def test_sleep(benchmark):',
        "    delay = float(os.environ['SLEEP_MS']) / 1000",
        '    benchmark.pedantic(time.sleep, args=(delay,), rounds=15, iterations=1)',
        '',
      ].join('\n'),
    );
    pytestBenchmark(2, 'fast.json');
    // 20 ms against 2 ms: still far more than 50% slower when a loaded machine oversleeps each call.
    pytestBenchmark(20, 'slow.json');
  }, 120_000);

  it('exits 1 when the benchmark became several times slower', async () => {
    const result = await cli(
      ['compare', '--baseline', 'fast.json', '--current', 'slow.json', '--out', 'out'],
      dir,
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    expect(report.benchmarks[0].name).toBe('test_sleep.py::test_sleep');
    const throughput = report.benchmarks[0].metrics.find(
      (m: { id: string }) => m.id === 'throughput',
    );
    expect(throughput.verdict).toBe('regression');
    expect(throughput.change).toBeLessThan(-0.5);
  });

  it('exits 0 comparing a file with itself', async () => {
    const result = await cli(['compare', '--baseline', 'fast.json', '--current', 'fast.json'], dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no performance regression');
  });

  it('exits 2 naming the file when a result file is corrupt', async () => {
    await writeFile(join(dir, 'corrupt.json'), '{"benchmarks": [');
    const result = await cli(
      ['compare', '--baseline', 'fast.json', '--current', 'corrupt.json'],
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/corrupt\.json/);
  });
});

describe('neuron-perf-gate compare (bundled) on simulated builds', () => {
  let dir: string;
  /** Three runs of one simulated build, written by the simulator as seed-format files. */
  const build = async (label: string, slowdown: string, seed: string) => {
    const files: string[] = [];
    for (const run of ['1', '2', '3']) {
      const file = `${label}-${run}.json`;
      execFileSync(join(SIMULATOR_BIN, 'offline-benchmark'), ['--output-file', file], {
        cwd: dir,
        env: simulatorEnv({ SIM_SEED: seed, SIM_SLOWDOWN: slowdown, PERF_GATE_RUN: run }),
        stdio: 'ignore',
      });
      files.push(file);
    }
    return files;
  };

  beforeAll(async () => {
    dir = await tempDir('perf-gate-builds-');
  });

  it('passes the same build and fails a build 10% slower, with intervals in report.json and the comment', async () => {
    const baseline = await build('main', '1', '21');
    const same = await build('same', '1', '22');
    const slower = await build('slower', '1.10', '23');

    const pass = await cli(
      ['compare', '--baseline', ...baseline, '--current', ...same, '--out', 'pass'],
      dir,
    );
    expect(pass.code).toBe(0);
    const passed = JSON.parse(await readFile(join(dir, 'pass', 'report.json'), 'utf8'));
    expect(passed.verdict).toBe('pass');
    for (const metric of passed.benchmarks[0].metrics.filter(
      (m: { id: string }) => m.id !== 'mfu',
    )) {
      expect(metric.ci, metric.id).toHaveLength(2);
    }
    expect(pass.stdout).toMatch(/\| +95% CI +\|/);

    const fail = await cli(
      ['compare', '--baseline', ...baseline, '--current', ...slower, '--out', 'fail'],
      dir,
    );
    expect(fail.code).toBe(1);
    const failed = JSON.parse(await readFile(join(dir, 'fail', 'report.json'), 'utf8'));
    const p50 = failed.benchmarks[0].metrics.find((m: { id: string }) => m.id === 'latency_p50');
    expect(p50.verdict).toBe('regression');
    expect(p50.ci[0]).toBeGreaterThan(0);
    expect(fail.stdout).toMatch(
      /latency_p50\*\*: \d+\.\d% slower \(95% CI \d+\.\d% to \d+\.\d%\), beyond the 5% threshold/,
    );
  });
});

describe('a sweep of the reference shape (bundled CLI on the simulator)', () => {
  it('runs each variant with its parameters, ranks them, and compares each with its own baseline', async () => {
    const dir = await tempDir('perf-gate-sweep-');
    await writeFile(
      join(dir, 'sweep.json'),
      await readFile(join(ROOT, 'test', 'fixtures', 'offline_benchmark_sweep_config.json'), 'utf8'),
    );
    await writeFile(
      join(dir, 'perf-gate.yml'),
      [
        'benchmarks:',
        '  - name: reranker',
        '    command: >-',
        '      echo "$PERF_GATE_PARAM_ENABLE_PREFIX_CACHING" > "$PERF_GATE_OUTPUT.caching" &&',
        '      offline-benchmark --config-json "$PERF_GATE_PARAMS"',
        '    format: offline-benchmark',
        '    runs: 2',
        '    profile: false',
        '    sweep: { file: sweep.json }',
        '',
      ].join('\n'),
    );
    const first = await savedBaseline(dir, { SIM_SEED: '31' });
    expect(first.code).toBe(0);
    const { runsDir } = benchmarkPaths(join(dir, 'base'), 'reranker/cache_ON_bucketing_ON');
    const caching = await readFile(join(runsDir, 'run-1.clean.json.caching'), 'utf8');
    const params = JSON.parse(await readFile(join(runsDir, 'params.json'), 'utf8'));
    expect(params).toMatchObject({ enable_prefix_caching: true, batch_size: 8 });
    expect(params).not.toHaveProperty('name');
    expect(caching.trim()).toBe('true');
    // Prefix caching costs about 25% for this task: the cache-off variant ranks first.
    const ranking = first.stdout.split('### Sweep reranker: variants by throughput')[1] ?? '';
    const rows = ranking.split('\n').filter((line) => /^\| +\d/.test(line));
    expect(rows[0]).toContain('cache_OFF_bucketing_ON');
    expect(rows[1]).toContain('cache_ON_bucketing_ON');
    expect(first.stdout).toContain('<summary><b>reranker/cache_ON_bucketing_ON</b> — ');

    const second = await againstBaseline(dir, 'again', { SIM_SEED: '32' });
    expect(second.code).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'again', 'report.json'), 'utf8'));
    expect(
      report.benchmarks.map((b: { name: string; verdict: string }) => [b.name, b.verdict]),
    ).toEqual([
      ['reranker/cache_ON_bucketing_ON', 'pass'],
      ['reranker/cache_OFF_bucketing_ON', 'pass'],
    ]);
  });
});
