import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { offlineResult, rawTimes, tempDir, writeJson } from '../support/offline-result.js';

async function cli(argv: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    cwd,
    env: { PATH: process.env.PATH },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

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
