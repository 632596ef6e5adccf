import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptanceRecord } from '../../src/baseline/accept.js';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { type BaselineRecord } from '../../src/baseline/record.js';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { readHistory } from '../../src/history/read.js';
import { buildSeries, filterSeries, withRecordPaths } from '../../src/history/series.js';
import { at, makeRepos, sampleRecord } from '../baseline/git/support.js';

function record(
  benchmark: string,
  seed: number,
  night: number,
  change: Partial<BaselineRecord> = {},
): BaselineRecord {
  return { ...sampleRecord(benchmark, seed, at(night)), ...change };
}

describe("buildSeries and A/B comparisons' records", () => {
  const abRecord = (night: number, change: number) =>
    record('a', night, night, {
      ab: {
        base: { label: 'the base environment', environment: {} },
        blocks: 2,
        changes: { throughput: { change, low: change - 0.02, high: change + 0.01 } },
      },
    });

  it('keeps them out of the series the history searches for change points', () => {
    const built = buildSeries(withRecordPaths([record('a', 1, 1), abRecord(2, -0.1)]));
    const throughput = filterSeries(built.series, { benchmark: 'a', metric: 'throughput' });
    expect(throughput).toHaveLength(1);
    expect(throughput[0]!.points).toHaveLength(1);
    expect(built.series.some((s) => s.ab)).toBe(false);
  });

  it("makes each metric's paired change a series of its own for the dashboard, in percent", () => {
    const built = buildSeries(
      withRecordPaths([record('a', 1, 1), abRecord(2, -0.1), abRecord(3, -0.02)]),
      {
        abSeries: true,
      },
    );
    const ab = built.series.filter((s) => s.ab);
    expect(ab.map((s) => s.metric)).toEqual(['throughput A/B change']);
    expect(ab[0]!.unit).toBe('%');
    expect(ab[0]!.points.map((p) => p.mean)).toEqual([-10, -2]);
    const [low, change, high] = ab[0]!.points[0]!.values;
    expect([low, change, high].map((v) => Number(v!.toFixed(9)))).toEqual([-12, -10, -9]);
    // The levels' series is as it was.
    expect(filterSeries(built.series, { metric: 'throughput' })[0]!.points).toHaveLength(1);
  });
});

describe('buildSeries', () => {
  it('makes one series per gate, benchmark, metric and environment, oldest first, with every run', () => {
    const records = [
      record('a', 3, 3),
      record('a', 1, 1),
      record('a', 2, 2, {
        environment: { instanceType: 'inf2.xlarge', neuronCores: 2, neuronSdkVersion: '2.27.0' },
      }),
      record('b', 4, 1),
    ];
    const { series } = buildSeries(withRecordPaths(records));
    expect(series.map((s) => s.id)).toContain(
      'default · a · throughput · inf2.xlarge/2 cores/config abc123',
    );
    const throughput = filterSeries(series, { benchmark: 'a', metric: 'throughput' });
    // An SDK upgrade stays in the same series: the software is what is under test.
    expect(throughput).toHaveLength(1);
    const points = throughput[0]!.points;
    expect(points.map((p) => p.createdAt)).toEqual(
      [at(1), at(2), at(3)].map((d) => d.toISOString()),
    );
    expect(points[1]!.environment.neuronSdkVersion).toBe('2.27.0');
    expect(points[0]!.values).toEqual(records[1]!.result.metrics[0]!.values);
    expect(points[0]!.values).toHaveLength(3);
    expect(points[0]!.mean).toBeCloseTo(points[0]!.values.reduce((s, v) => s + v, 0) / 3, 12);
    expect(points[0]!.path).toBe(pathOfRecord(records[1]!));
    expect(filterSeries(series, { benchmark: 'b' })).toHaveLength(4);
  });

  it('splits series by instance type and config, and leaves out errors, pull requests and other branches', () => {
    const records = [
      record('a', 1, 1),
      record('a', 2, 2, { environment: { instanceType: 'inf2.48xlarge', neuronCores: 24 } }),
      record('a', 3, 3, { verdict: 'error' }),
      record('a', 4, 4, { event: 'pull_request' }),
      record('a', 5, 5, { branch: 'feature' }),
      record('a', 6, 6, {
        environment: { instanceType: 'trn2.48xlarge', neuronCores: 64, logicalNcConfig: 2 },
      }),
    ];
    const set = buildSeries(withRecordPaths(records), { defaultBranch: 'main' });
    const throughput = filterSeries(set.series, { metric: 'throughput' });
    expect(throughput.map((s) => [s.environmentKey, s.points.length])).toEqual([
      ['inf2.48xlarge/24 cores/config abc123', 1],
      ['inf2.xlarge/2 cores/config abc123', 1],
      ['trn2.48xlarge/64 cores/LNC 2/config abc123', 1],
    ]);
    expect(set.skipped).toBe(3);
  });

  it('turns a baseline accept copy into an acceptance mark, not a second point', () => {
    const original = record('a', 1, 1, { verdict: 'regression' });
    const accepted = acceptanceRecord(original, {
      reason: 'manual',
      by: 'octocat',
      at: at(5),
      records: [pathOfRecord(original)],
    });
    const set = buildSeries(withRecordPaths([original, record('a', 2, 2), accepted]));
    expect(filterSeries(set.series, { metric: 'throughput' })[0]!.points).toHaveLength(2);
    expect(set.acceptances).toEqual([
      expect.objectContaining({
        benchmark: 'a',
        reason: 'manual',
        by: 'octocat',
        records: [pathOfRecord(original)],
        path: pathOfRecord(accepted),
      }),
    ]);
  });
});

describe('readHistory', () => {
  it('reads every record of every gate from a real data branch, with their paths', async () => {
    const repos = await makeRepos();
    const store = new GitBranchStore({
      repoDir: repos.checkout,
      workDir: await mkdtemp(join(repos.root, 'work-')),
    });
    const records = [
      sampleRecord('a', 1, at(1)),
      sampleRecord('a', 2, at(2)),
      sampleRecord('b', 3, at(3), { gateKey: 'other gate' }),
    ];
    await store.appendRecords(records);
    const all = await readHistory(store, undefined);
    expect(all.records).toBe(3);
    expect(new Set(all.series.map((s) => s.gateKey))).toEqual(new Set(['default', 'other gate']));
    const one = await readHistory(store, 'default');
    expect(one.records).toBe(2);
    const points = filterSeries(one.series, { metric: 'throughput' })[0]!.points;
    expect(points.map((p) => p.path)).toEqual([
      pathOfRecord(records[0]!),
      pathOfRecord(records[1]!),
    ]);
    expect(one.commit).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('buildSeries and the start-up metrics (startup:)', () => {
  it('makes series of benchmark_startup and cold_startup with their built-in thresholds', () => {
    const timed = (night: number, warm: number[], cold: number) => {
      const base = record('a', night, night);
      const metrics = [
        ...base.result.metrics,
        { id: 'benchmark_startup', unit: 's', direction: 'lower-is-better' as const, values: warm },
        { id: 'cold_startup', unit: 's', direction: 'lower-is-better' as const, values: [cold] },
      ];
      return { ...base, result: { ...base.result, metrics } };
    };
    const built = buildSeries(withRecordPaths([timed(1, [1.2, 1.1], 4.0), timed(2, [1.3], 4.4)]));
    const warm = filterSeries(built.series, { metric: 'benchmark_startup' });
    expect(warm).toHaveLength(1);
    expect(warm[0]!.threshold).toBe(0.15);
    expect(warm[0]!.points.map((p) => p.values)).toEqual([[1.2, 1.1], [1.3]]);
    const cold = filterSeries(built.series, { metric: 'cold_startup' });
    expect(cold[0]!.threshold).toBe(0.25);
    expect(cold[0]!.points.map((p) => p.mean)).toEqual([4.0, 4.4]);
  });
});
