// A server's clean starts compared like with like (src/compare/alike-starts.ts): each gate
// run's first start reads the model through a cold page cache, so the restarts are judged
// against the stored restarts, and a gate run of one start against the stored first starts.
import { describe, expect, it } from 'vitest';
import { alikeStarts } from '../../src/compare/alike-starts.js';
import { compareBenchmark, wildRunsOf } from '../../src/compare/benchmark.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { normal, seededRandom, type Random } from '../../src/stats/rng.js';

function starts(values: number[], extra: Partial<Metric> = {}): Metric {
  return { id: 'server_startup', unit: 's', direction: 'lower-is-better', values, ...extra };
}

/** Stored records of several starts each, the newest `window` the baseline's. */
function stored(records: number[][], window: number): Metric {
  const own = records.slice(0, window);
  const older = records.slice(window);
  return starts(own.flat(), {
    records: own.map((r) => r.length),
    ...(older.length > 0 ? { olderRecords: older } : {}),
  });
}

describe('alikeStarts', () => {
  const baseline = stored(
    [
      [52, 42, 41],
      [48, 43],
      [55, 40, 44],
    ],
    2,
  );

  it('compares the restarts when both sides have some', () => {
    const alike = alikeStarts(starts([50, 42, 43]), baseline)!;
    expect(alike.compared).toBe('restarts');
    expect(alike.current.values).toEqual([42, 43]);
    expect(alike.baseline.values).toEqual([42, 41, 43]);
    expect(alike.baseline.records).toEqual([2, 1]);
    expect(alike.baseline.olderRecords).toEqual([[40, 44]]);
  });

  it('compares the first starts when the gate run started the server once', () => {
    const alike = alikeStarts(starts([50]), baseline)!;
    expect(alike.compared).toBe('first-starts');
    expect(alike.current.values).toEqual([50]);
    expect(alike.baseline.values).toEqual([52, 48]);
    expect(alike.baseline.records).toEqual([1, 1]);
    expect(alike.baseline.olderRecords).toEqual([[55]]);
  });

  it('compares the first starts when no stored record has a restart', () => {
    const alike = alikeStarts(starts([50, 42]), stored([[52], [48], [55]], 3))!;
    expect(alike.compared).toBe('first-starts');
    expect(alike.current.values).toEqual([50]);
    expect(alike.baseline.values).toEqual([52, 48, 55]);
  });

  it('leaves other metrics, and the paired starts of A/B, alone', () => {
    expect(alikeStarts({ ...starts([1, 2]), id: 'throughput' }, baseline)).toBeUndefined();
    const paired = starts([50, 42], { blocks: [0, 1] });
    expect(alikeStarts(paired, starts([49, 43], { blocks: [0, 1] }))).toBeUndefined();
  });
});

/** One start of 42 s, CV 4%; the first of a gate run 5–30% slower (a cold page cache). */
function gateRunStarts(random: Random, count: number, slower: number): number[] {
  return Array.from({ length: count }, (_, index) => {
    const pageCache = index === 0 ? 1.05 + 0.25 * random.next() : 1;
    return 42 * Math.exp(0.04 * normal(random)) * pageCache * (1 + slower);
  });
}

function result(metric: Metric): BenchmarkResult {
  return { name: 'serve', format: 'vllm-bench-serve', metrics: [metric], runs: [] };
}

/** Gate runs of 3 starts against 20 stored ones (a window of 5) that server_startup fails. */
function failures(slower: number, trials: number): { failed: number; reasons: string[] } {
  let failed = 0;
  const reasons: string[] = [];
  for (let trial = 0; trial < trials; trial += 1) {
    const random = seededRandom(`alike-starts/${trial}`);
    const records = Array.from({ length: 20 }, () => gateRunStarts(random, 3, 0));
    const current = starts(gateRunStarts(random, 3, slower));
    const { metrics } = compareBenchmark(
      result(current),
      result(stored(records, 5)),
      { server_startup: 0.15 },
      // About server_startup's part of the gate's budget beside every default metric.
      { confidence: 0.95, seed: 's', testLevel: 5e-5 },
    );
    const judged = metrics.find((m) => m.id === 'server_startup')!;
    if (judged.verdict === 'regression') failed += 1;
    reasons.push(judged.reason);
  }
  return { failed, reasons };
}

describe('server_startup judged like with like', () => {
  it('finds a 25% slower start that pooling the cold first start with the restarts hides', () => {
    // Pooled, the first start's 5–30% widened every interval: 3 of these 40 were found.
    const { failed, reasons } = failures(0.25, 40);
    expect(failed).toBeGreaterThanOrEqual(30);
    expect(reasons[0]).toContain('the restarts compared');
  });

  it('fails no unchanged start', () => {
    expect(failures(0, 40).failed).toBe(0);
  });

  it('holds a single start against the stored first starts, never against the restarts', () => {
    const random = seededRandom('one-start');
    const records = Array.from({ length: 20 }, () => gateRunStarts(random, 3, 0));
    // A first start 30% above the warm restarts: as slow as a cold page cache makes it.
    const { metrics } = compareBenchmark(
      result(starts([42 * 1.3])),
      result(stored(records, 5)),
      { server_startup: 0.15 },
      { confidence: 0.95, seed: 's', testLevel: 5e-5 },
    );
    const judged = metrics.find((m) => m.id === 'server_startup')!;
    expect(judged.verdict).not.toBe('regression');
    expect(judged.reason).toContain('the first starts compared');
    expect(judged.change!).toBeLessThan(0.15);
  });
});

describe('a lone first start left undecided', () => {
  const judge = (records: number[][], moreRuns: number) => {
    const { metrics } = compareBenchmark(
      result(starts([42 * 1.3 * 1.25])),
      result(stored(records, 5)),
      { server_startup: 0.15 },
      { confidence: 0.95, seed: 's', testLevel: 5e-5, moreRuns },
    );
    return metrics.find((m) => m.id === 'server_startup')!;
  };
  const random = seededRandom('lone-first');
  const withRestarts = Array.from({ length: 20 }, () => gateRunStarts(random, 3, 0));

  it('is worth confirming with restarts when the stored records have restarts to compare', () => {
    const judged = judge(withRestarts, 10);
    expect(judged.verdict).toBe('inconclusive');
    expect(judged.reason).toContain('the first starts compared');
    expect(judged.worthConfirming).toBe(true);
  });

  it('is not, with no restart left or none stored to compare with', () => {
    expect(judge(withRestarts, 0).worthConfirming).toBeUndefined();
    const firstOnly = withRestarts.map((record) => record.slice(0, 1));
    expect(judge(firstOnly, 10).worthConfirming).toBeUndefined();
  });
});

describe('restarts left undecided', () => {
  const random = seededRandom('undecided-restarts');
  const records = Array.from({ length: 20 }, () => gateRunStarts(random, 3, 0));
  const judge = (current: number[], moreRuns: number) => {
    const { metrics } = compareBenchmark(
      result(starts(current)),
      result(stored(records, 5)),
      { server_startup: 0.15 },
      { confidence: 0.95, seed: 's', testLevel: 5e-5, moreRuns },
    );
    return metrics.find((m) => m.id === 'server_startup')!;
  };

  it('are worth restarts while inconclusive, though their interval stays within twice the threshold', () => {
    // Two restarts 2% and 36% slower: beyond the threshold, not clear of zero at this level.
    const judged = judge([55, 42 * 1.02, 42 * 1.36], 10);
    expect(judged.reason).toContain('the restarts compared');
    expect(judged.verdict).toBe('inconclusive');
    expect(judged.worthConfirming).toBe(true);
    expect(judge([55, 42 * 1.02, 42 * 1.36], 0).worthConfirming).toBeUndefined();
  });

  it('are not once settled', () => {
    const judged = judge([55, 42.2, 41.9], 10);
    expect(judged.verdict).toBe('unchanged');
    expect(judged.worthConfirming).toBeUndefined();
  });
});

describe('a lone first start with no stored history of first starts', () => {
  const judge = (current: number, stored: number[]) => {
    const { metrics } = compareBenchmark(
      result(starts([current])),
      result(starts(stored, stored.length > 1 ? { records: stored.map(() => 1) } : {})),
      { server_startup: 0.15 },
      { confidence: 0.95, seed: 's', testLevel: 5e-5 },
    );
    return metrics.find((m) => m.id === 'server_startup')!;
  };

  it('is inconclusive within twice the threshold: two cold page caches lie that far apart', () => {
    // 5% and 30% slower than a restart of 42 s: +24%, what two unchanged first starts give.
    const judged = judge(42 * 1.3, [42 * 1.05]);
    expect(judged.ci).toBeNull();
    expect(judged.change!).toBeGreaterThan(0.15);
    expect(judged.verdict).toBe('inconclusive');
    expect(judged.reason).toContain('only beyond 2× it');
  });

  it('fails beyond twice the threshold: a server three times slower to load', () => {
    const judged = judge(3 * 48, [48]);
    expect(judged.ci).toBeNull();
    expect(judged.verdict).toBe('regression');
  });
});

describe('the wild runs', () => {
  it('never counts a start as a run, whatever the number of starts', () => {
    // Three runs and three starts: the first run was slow (a noisy neighbour), no start was.
    // Counted as a run's metric, the starts would outvote the throughput and keep that run.
    const runs = (values: number[]): Metric => ({
      id: 'throughput',
      unit: 'requests/s',
      direction: 'higher-is-better',
      values,
    });
    const jitter = [1, 1.004, 0.996, 1.002, 0.998];
    const before = jitter.flatMap((j) => [42 * j, 42.2 * j, 41.8 * j]);
    const benchmark = (metrics: Metric[]): BenchmarkResult => ({ ...result(metrics[0]!), metrics });
    const wild = wildRunsOf(
      benchmark([starts([42.1, 41.9, 42]), runs([7, 10, 10.05])]),
      benchmark([starts(before), runs(before.map((v) => v / 4.2))]),
      { server_startup: 0.15, throughput: 0.05 },
    );
    expect(wild.current).toEqual([0]);
  });
});
