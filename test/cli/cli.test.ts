import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli-run.js';
import { thresholdText } from '../../src/cli/thresholds.js';
import { offlineResult, rawTimes, tempDir, writeJson } from '../support/offline-result.js';

async function runs(dir: string, prefix: string, factor: number): Promise<string[]> {
  return Promise.all(
    [1, 2, 3].map((run) =>
      writeJson(dir, `${prefix}-${run}.json`, offlineResult(rawTimes(factor, run))),
    ),
  );
}

describe('neuron-perf-gate compare', () => {
  it('pairs one unnamed current result with one named baseline, says so, and fails 7% slower', async () => {
    const dir = await tempDir();
    const base = await runs(dir, 'base', 1);
    const saved = await cli(
      [
        'compare',
        '--baseline',
        ...base,
        '--current',
        ...base,
        '--name',
        'qwen3-reranker',
        '--out',
        'saved',
      ],
      dir,
    );
    expect(saved.code).toBe(0);
    const current = await runs(dir, 'cur', 1.07);
    const result = await cli(
      ['compare', '--baseline', 'saved/report.json', '--current', ...current, '--out', 'out'],
      dir,
    );
    expect(result.code, result.stdout).toBe(1);
    expect(result.stdout).toContain('compared current "benchmark" with baseline "qwen3-reranker"');
  });

  it('names a bad --isolation with what is allowed, before anything runs', async () => {
    const dir = await tempDir('perf-gate-cli-isolation-');
    for (const value of ['docker', '']) {
      const result = await cli(['run', '--command', 'true', '--isolation', value], dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `option '--isolation': found ${JSON.stringify(value)}; allowed: auto, bubblewrap, unshare, none`,
      );
    }
  });

  it('exits 2 when no baseline benchmark matches any current one', async () => {
    const dir = await tempDir();
    const pytest = (name: string) => ({
      machine_info: {},
      benchmarks: [name, `${name}_b`].map((fullname) => ({
        name: fullname,
        fullname,
        stats: { min: 0.001, max: 0.002, mean: 0.0015, median: 0.0015, ops: 666, rounds: 5 },
      })),
    });
    await writeJson(dir, 'base.json', pytest('test_old'));
    await writeJson(dir, 'cur.json', pytest('test_new'));
    const result = await cli(['compare', '--baseline', 'base.json', '--current', 'cur.json'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no baseline benchmark .*test_old.* matches a current one/);
  });

  it('exits 1 on an 8% slowdown and writes the three report files', async () => {
    const dir = await tempDir();
    const baseline = await runs(dir, 'base', 1);
    const current = await runs(dir, 'cur', 1.08);
    const result = await cli(
      ['compare', '--baseline', ...baseline, '--current', ...current, '--out', 'out'],
      dir,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('performance regression');
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    expect(report.schemaVersion).toBe(1);
    expect(report.verdict).toBe('regression');
    const metrics = Object.fromEntries(
      report.benchmarks[0].metrics.map((m: { id: string; verdict: string; change: number }) => [
        m.id,
        m,
      ]),
    );
    expect(metrics.throughput.verdict).toBe('regression');
    expect(metrics.throughput.change).toBeCloseTo(1 / 1.08 - 1, 2);
    expect(metrics.latency_p50.verdict).toBe('regression');
    expect(metrics.mfu.verdict).toBe('missing');
    expect(await readFile(join(dir, 'out', 'comment.md'), 'utf8')).toBe(result.stdout);
  });

  it('exits 0 when nothing changed', async () => {
    const dir = await tempDir();
    const result = await cli(
      [
        'compare',
        '--baseline',
        ...(await runs(dir, 'a', 1)),
        '--current',
        ...(await runs(dir, 'b', 1.01)),
      ],
      dir,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no performance regression');
  });

  it('applies --threshold', async () => {
    const dir = await tempDir();
    const args = [
      'compare',
      '--baseline',
      ...(await runs(dir, 'a', 1)),
      '--current',
      ...(await runs(dir, 'b', 1.08)),
    ];
    const loose = await cli(
      [
        ...args,
        '--threshold',
        'throughput=10%',
        '--threshold',
        'latency_p50=10%',
        '--threshold=latency_p95=10%',
        '--threshold',
        'latency_mean=off',
        '--threshold',
        'latency_geomean=10%',
      ],
      dir,
    );
    expect(loose.code).toBe(0);
  });

  it('exits 2 naming the file when a result file is corrupt', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'corrupt.json'), '{"metrics": {"throughput_queries_per_sec": 3.1,');
    const result = await cli(
      ['compare', '--baseline', ...(await runs(dir, 'a', 1)), '--current', 'corrupt.json'],
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/corrupt\.json/);
  });

  it('exits 2 listing the formats when the format is unknown', async () => {
    const dir = await tempDir();
    const files = await runs(dir, 'a', 1);
    const result = await cli(
      ['compare', '--baseline', ...files, '--current', ...files, '--format', 'csv'],
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/csv/);
    expect(result.stderr).toMatch(/offline-benchmark/);
    expect(result.stderr).toMatch(/pytest-benchmark/);
  });

  it('exits 2 on bad usage with a message that says what to do', async () => {
    const dir = await tempDir();
    expect((await cli(['compare', '--current', 'x.json'], dir)).stderr).toMatch(
      /compare needs --baseline/,
    );
    expect((await cli(['frobnicate'], dir)).code).toBe(2);
    const bad = await cli(
      ['compare', '--baseline', 'a', '--current', 'b', '--threshold', 'throughput=5'],
      dir,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/write it with %/);
    expect((await cli(['run', '--bogus'], dir)).stderr).toMatch(/unknown option '--bogus'/);
  });

  it('prints help with the exit codes', async () => {
    const result = await cli(['--help'], '/');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Exit codes:/);
  });
});

describe('one threshold spelling for run and compare', () => {
  const parsed = (words: string[]) => {
    const flags = new Map<string, string[]>();
    for (let i = 0; i < words.length; i += 2) {
      flags.set(words[i]!, [...(flags.get(words[i]!) ?? []), words[i + 1]!]);
    }
    return thresholdText({ command: 'run', flags });
  };

  it('reads METRIC=VALUE and METRIC: VALUE, one or several per flag', () => {
    const expected = 'throughput: 5%\nlatency_p99: 15%';
    expect(parsed(['threshold', 'throughput=5%', 'threshold', 'latency_p99=15%'])).toBe(expected);
    expect(parsed(['thresholds', 'throughput: 5%, latency_p99: 15%'])).toBe(expected);
    expect(parsed(['thresholds', 'throughput=5%,latency_p99=15%'])).toBe(expected);
    expect(parsed(['thresholds', 'throughput: 5%\nlatency_p99: 15%'])).toBe(expected);
    expect(parsed([])).toBeUndefined();
  });

  it("compare takes --thresholds 'metric: value' as run does", async () => {
    const dir = await tempDir();
    const args = [
      'compare',
      '--baseline',
      ...(await runs(dir, 'a', 1)),
      '--current',
      ...(await runs(dir, 'b', 1.08)),
    ];
    const strict = await cli(args, dir);
    expect(strict.code).toBe(1);
    const loose = await cli(
      [
        ...args,
        '--thresholds',
        'throughput: 10%, latency_p50: 10%',
        '--thresholds',
        'latency_p95: 10%',
        '--thresholds',
        'latency_mean: off, latency_geomean: 10%',
      ],
      dir,
    );
    expect(loose.code, loose.stderr).toBe(0);
  });

  it('run takes --threshold metric=value as compare does', async () => {
    const dir = await tempDir();
    // Three baseline runs give the one current run an interval: a change with none
    // (one run a side) is only a warning under the gate's false-alarm budget.
    const base = await runs(dir, 'base', 1);
    const [slow] = await runs(dir, 'slow', 1.08);
    const run = (threshold: string[]) =>
      cli(
        [
          'run',
          '--command',
          `cp '${slow}' "$PERF_GATE_OUTPUT"`,
          '--format',
          'offline-benchmark',
          '--runs',
          '1',
          '--confirm-runs',
          '0',
          '--profile',
          'false',
          '--baseline',
          ...base,
          '--out',
          'out',
          '--quiet',
          ...threshold,
        ],
        dir,
      );
    expect((await run([])).code).toBe(1);
    const loose = await run([
      '--threshold',
      'throughput=50%',
      '--threshold=latency_p50=50%',
      '--threshold=default=50%',
    ]);
    expect(loose.code, loose.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'out', 'report.json'), 'utf8'));
    const throughput = report.benchmarks[0].metrics.find(
      (m: { id: string }) => m.id === 'throughput',
    );
    expect(throughput.threshold).toBe(0.5);
  });
});

describe('neuron-perf-gate run, as a new user meets it', () => {
  const simpleRun = (dir: string, source: string, extra: string[]) =>
    cli(
      [
        'run',
        '--command',
        `cp '${source}' "$PERF_GATE_OUTPUT"`,
        '--format',
        'offline-benchmark',
        '--runs',
        '1',
        '--confirm-runs',
        '0',
        '--profile',
        'false',
        '--out',
        'out',
        '--quiet',
        ...extra,
      ],
      dir,
    );

  it('says a mistyped --baseline is a missing baseline file, not a benchmark that wrote nothing', async () => {
    const dir = await tempDir();
    const [result] = await runs(dir, 'r', 1);
    const run = await simpleRun(dir, result!, ['--baseline', 'baselin.json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/baselin\.json: not found: the baseline file is missing/);
    expect(run.stderr).not.toMatch(/did not write/);
  });

  it('does not claim to have uploaded profiles', async () => {
    const dir = await tempDir();
    const [result] = await runs(dir, 'r', 1);
    const run = await simpleRun(dir, result!, []);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/profiles uploaded|kept \d+ days/);
    expect(run.stdout).toMatch(/profiles not uploaded/);
  });

  it("removes an earlier run's files from a reused out folder, and nothing else", async () => {
    const dir = await tempDir();
    const [result] = await runs(dir, 'r', 1);
    const folder = join(dir, 'out', 'runs', 'benchmark');
    await mkdir(folder, { recursive: true });
    for (const name of ['run-5.clean.json', 'run-5.clean.log', 'run-9.profiled.log', 'notes.txt']) {
      await writeFile(join(folder, name), 'old');
    }
    const run = await simpleRun(dir, result!, []);
    expect(run.code, run.stderr).toBe(0);
    expect((await readdir(folder)).sort()).toEqual([
      'notes.txt',
      'run-1.clean.json',
      'run-1.clean.log',
    ]);
  });

  it('the no-config error names the run command in its example', async () => {
    const dir = await tempDir();
    const run = await cli(['run'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/neuron-perf-gate run --command/);
  });
});

describe('help', () => {
  it.each([
    ['run', /neuron-perf-gate run /, /neuron-perf-gate compare /],
    ['compare', /neuron-perf-gate compare /, /neuron-perf-gate run /],
    ['calibrate', /neuron-perf-gate calibrate /, /neuron-perf-gate compare /],
  ])('%s --help prints the help of %s only', async (command, own, other) => {
    for (const argv of [
      [command, '--help'],
      ['help', command],
      [command, '-h'],
    ]) {
      const result = await cli(argv, '/');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(own);
      expect(result.stdout).not.toMatch(other);
      expect(result.stdout).toMatch(/Exit codes:/);
    }
  });

  it('--help alone lists every command', async () => {
    const result = await cli(['--help'], '/');
    for (const command of ['run', 'compare', 'calibrate', 'baseline list']) {
      expect(result.stdout).toContain(`neuron-perf-gate ${command} `);
    }
  });
});
