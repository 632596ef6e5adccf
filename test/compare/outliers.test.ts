// A wild run (a noisy neighbour) on either side must not hide a regression, and a slow
// current run must never be dropped in a way that could pass one.
import { describe, expect, it } from 'vitest';
import { compareBenchmark } from '../../src/compare/benchmark.js';
import { compareMetric } from '../../src/compare/compare.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

const THRESHOLDS = { throughput: 0.05, latency_p50: 0.05, latency_p95: 0.1, latency_p99: 0.15 };
const OPTIONS = { confidence: 0.95, seed: 'wild', testLevel: 0.001 };

/** Runs at CV 2% with a per-run factor (1.3 = the whole run 30% slower). */
function result(factors: number[], seed: string, records?: number[]): BenchmarkResult {
  const random = seededRandom(seed);
  const scales = factors.map((f) => f * Math.exp(0.02 * normal(random)));
  const latency = (id: string, base: number): Metric => ({
    id,
    unit: 'ms',
    direction: 'lower-is-better',
    values: scales.map((s) => base * s * Math.exp(0.005 * normal(random))),
    ...(records ? { records } : {}),
  });
  return {
    name: 'bench',
    format: 'offline',
    runs: [],
    metrics: [
      {
        id: 'throughput',
        unit: 'req/s',
        direction: 'higher-is-better',
        values: scales.map((s) => 100 / s),
        ...(records ? { records } : {}),
      },
      latency('latency_p50', 300),
      latency('latency_p95', 400),
      latency('latency_p99', 450),
    ],
  };
}

const ones = (n: number) => Array.from({ length: n }, () => 1);
const metric = (r: BenchmarkResult, id: string) => r.metrics.find((m) => m.id === id)!;

/** The P50 judged on all the runs (compareMetric keeps wild runs in). */
const p50OfAllRuns = (
  current: BenchmarkResult,
  baseline: BenchmarkResult,
  options: Parameters<typeof compareMetric>[3] = OPTIONS,
) => compareMetric(metric(current, 'latency_p50'), metric(baseline, 'latency_p50'), 0.05, options);

/** The P50 row of the benchmark's verdict (which looks again without wild runs). */
const p50Row = (current: BenchmarkResult, baseline: BenchmarkResult, options = OPTIONS) =>
  compareBenchmark(current, baseline, THRESHOLDS, options).metrics.find(
    (m) => m.id === 'latency_p50',
  )!;

describe('wild runs', () => {
  const baselineFactors = ones(15);
  baselineFactors[8] = 1.3;
  const baseline = result(baselineFactors, 'base', [3, 3, 3, 3, 3]);

  it('a baseline run 30% slower does not hide a 10% regression, and the row names it', () => {
    const current = result([1.1, 1.1, 1.1], 'slower');
    // All the runs: the wild run widens the interval until the regression hides in it.
    const all = p50OfAllRuns(current, baseline);
    expect(all.verdict).toBe('inconclusive');
    const { metrics, verdict } = compareBenchmark(current, baseline, THRESHOLDS, OPTIONS);
    expect(verdict).toBe('regression');
    const p50 = metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.verdict).toBe('regression');
    expect(p50.excludedRuns).toEqual([{ side: 'baseline', change: expect.closeTo(0.3, 1) }]);
    expect(p50.reason).toMatch(/a regression even without the outlier runs: 1 baseline run \(\d/);
    expect(p50.change!).toBeGreaterThan(0.07);
    expect(p50.ci![0]).toBeGreaterThan(0);
    // With runs left to take, all the runs' open interval would ask for them; the
    // regression found without the wild run needs none.
    const open = p50OfAllRuns(current, baseline, { ...OPTIONS, moreRuns: 10 });
    expect([open.verdict, open.worthConfirming]).toEqual(['inconclusive', true]);
    const withRuns = compareBenchmark(current, baseline, THRESHOLDS, { ...OPTIONS, moreRuns: 10 });
    const found = withRuns.metrics.find((m) => m.id === 'latency_p50')!;
    expect(found.verdict).toBe('regression');
    expect(found.worthConfirming).toBeUndefined();
  });

  it('leaves out wild runs of the older stored records (day-to-day drift only) too', () => {
    const olderFactors = ones(45);
    olderFactors[22] = 1.3;
    const older = result(olderFactors, 'older');
    const withOlder: BenchmarkResult = {
      ...baseline,
      metrics: baseline.metrics.map((m) => {
        const values = metric(older, m.id).values;
        const olderRecords = Array.from({ length: 15 }, (_, r) => values.slice(3 * r, 3 * r + 3));
        return { ...m, olderRecords };
      }),
    };
    const current = result([1.1, 1.1, 1.1], 'slower');
    const { metrics, verdict } = compareBenchmark(current, withOlder, THRESHOLDS, OPTIONS);
    expect(verdict).toBe('regression');
    // The window's wild run and the older record's, each about 30% above the others.
    const p50 = metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.excludedRuns).toEqual([
      { side: 'baseline', change: expect.closeTo(0.3, 1) },
      { side: 'baseline', change: expect.closeTo(0.3, 1) },
    ]);
  });

  it('shows a regression the runs make clear with all of them, wild baseline run and all', () => {
    // 30% slower: clear on every run, so nothing is left out of the change or its interval.
    const current = result(
      Array.from({ length: 6 }, () => 1.3),
      'clearly slower',
    );
    const all = p50OfAllRuns(current, baseline);
    expect(all.verdict).toBe('regression');
    const p50 = p50Row(current, baseline);
    expect(p50.verdict).toBe('regression');
    expect(p50.excludedRuns).toBeUndefined();
    expect(p50.ci).toEqual(all.ci);
  });

  it('finds a regression a wild current run hides, naming that run', () => {
    // Eleven runs 10% slower and one twice as slow, against a clean baseline.
    const current = result([...Array.from({ length: 11 }, () => 1.1), 2], 'cur');
    const clean = result(ones(15), 'clean', [3, 3, 3, 3, 3]);
    const all = p50OfAllRuns(current, clean);
    expect(all.verdict).toBe('inconclusive');
    const p50 = p50Row(current, clean);
    expect(p50.verdict).toBe('regression');
    expect(p50.excludedRuns).toEqual([{ side: 'current', change: expect.closeTo(0.8, 1) }]);
  });

  it('an unchanged build stays unchanged without the wild baseline run', () => {
    const current = result([1, 1, 1], 'same');
    const { verdict } = compareBenchmark(current, baseline, THRESHOLDS, OPTIONS);
    expect(verdict).toBe('pass');
  });

  it('keeps a slow current run in the change it shows when the build is not clearly worse', () => {
    const current = result([1, 1, 1.3], 'one slow', undefined);
    const { metrics, verdict } = compareBenchmark(current, baseline, THRESHOLDS, OPTIONS);
    const p50 = metrics.find((m) => m.id === 'latency_p50')!;
    // The slow run is in the change (about +9% = 30% / 3, not about 0%) and in no exclusion.
    expect(p50.change!).toBeGreaterThan(0.06);
    expect(p50.excludedRuns).toBeUndefined();
    expect(p50.verdict).not.toBe('regression');
    expect(verdict).toBe('pass');
  });

  it('judges a build that makes some of its runs slow on all its runs (3 of 13 runs 30% slower)', () => {
    const factors = ones(13);
    for (const i of [1, 5, 8]) factors[i] = 1.3;
    const current = result(factors, 'bimodal');
    const clean = result(ones(15), 'clean', [3, 3, 3, 3, 3]);
    const { metrics } = compareBenchmark(current, clean, THRESHOLDS, OPTIONS);
    const p50 = metrics.find((m) => m.id === 'latency_p50')!;
    // 3 × 26% / 13 ≈ 6% slower on all the runs: beyond the threshold, with runs this
    // scattered not clear, so a warning; without the slow runs it would pass as unchanged.
    expect(p50.change!).toBeGreaterThan(0.05);
    expect(p50.verdict).toBe('inconclusive');
    expect(p50.excludedRuns).toBeUndefined();
  });
});
