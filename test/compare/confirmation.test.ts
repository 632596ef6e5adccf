// Which verdicts take confirmation runs, which figures a row reports, and what a metric
// without an interval may do under the gate's false-alarm budget.
import { describe, expect, it } from 'vitest';
import { compareMetric, type CompareOptions } from '../../src/compare/compare.js';
import { judgeResults } from '../../src/compare/judge.js';
import {
  lookBudgets,
  lookSchedule,
  metricsNeedMoreRuns,
  needsMoreRuns,
  withConfirmation,
} from '../../src/compare/sequential.js';
import type { BenchmarkReport, BenchmarkResult, Comparison, Metric } from '../../src/model.js';
import { studentTQuantile } from '../../src/stats/distributions.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

const BUDGETED: CompareOptions = { confidence: 0.95, seed: 'c', testLevel: 0.001 };

function p50(...logs: number[]): Metric {
  return {
    id: 'latency_p50',
    unit: 'ms',
    direction: 'lower-is-better',
    values: logs.map((l) => 100 * Math.exp(l)),
  };
}

/**
 * Three current runs against three baseline runs, the same ±0.01 scatter on both (pooled
 * SD 0.01, SE 0.01 × √(2/3), 4 df), the current side `t` standard errors slower.
 */
function atT(t: number): { current: Metric; baseline: Metric } {
  const se = 0.01 * Math.sqrt(2 / 3);
  const shift = t * se;
  return { current: p50(shift - 0.01, shift, shift + 0.01), baseline: p50(-0.01, 0, 0.01) };
}

describe('confirmation runs only while the answer is open', () => {
  // OPEN_LEVEL: the one-sided 0.5% bound, the upper end of a 99% interval.
  const ONE_SIDED_99 = studentTQuantile(0.995, 4);
  const SE = 0.01 * Math.sqrt(2 / 3);
  /** The change at which the upper end of the 99% interval (4 df) lies for data atT(t). */
  const reachAt = (t: number) => Math.expm1((t + ONE_SIDED_99) * SE);
  const withRuns: CompareOptions = { ...BUDGETED, moreRuns: 10 };

  it('runs more while the 99% interval reaches past twice the threshold, not once it stays within', () => {
    const data = atT(1);
    const reach = reachAt(1);
    const open = compareMetric(...pair(data), reach / 2 - 1e-4, withRuns);
    expect(open.verdict).toBe('unchanged');
    expect(open.worthConfirming).toBe(true);
    expect(metricsNeedMoreRuns([open])).toBe(true);
    // Twice the threshold just beyond the 99% bound: settled as "same", no run more.
    const settled = compareMetric(...pair(data), reach / 2 + 1e-4, withRuns);
    expect(settled.worthConfirming).toBeUndefined();
    expect(metricsNeedMoreRuns([settled])).toBe(false);
  });

  it('takes no run when none is left, nor once any metric regressed', () => {
    const data = atT(1);
    const threshold = reachAt(1) / 2 - 1e-4;
    expect(compareMetric(...pair(data), threshold, BUDGETED).worthConfirming).toBeUndefined();
    expect(
      compareMetric(...pair(data), threshold, { ...withRuns, moreRuns: 0 }).worthConfirming,
    ).toBeUndefined();
    const open = compareMetric(...pair(data), threshold, withRuns);
    const regressed: Comparison = { ...open, verdict: 'regression', worthConfirming: undefined };
    expect(metricsNeedMoreRuns([open, regressed])).toBe(false);
  });

  it('takes no run once a benchmark failed to run, though another is open', () => {
    const open = compareMetric(...pair(atT(1)), reachAt(1) / 2 - 1e-4, withRuns);
    const report = (verdict: BenchmarkReport['verdict'], metrics: Comparison[]) =>
      ({ name: verdict, format: 'vllm', verdict, metrics, warnings: [] }) as BenchmarkReport;
    expect(needsMoreRuns([report('pass', [open])])).toBe(true);
    expect(needsMoreRuns([report('error', []), report('pass', [open])])).toBe(false);
  });

  it('takes none when no run is left, even where one more would settle it', () => {
    // 4 standard errors slower against a 3.5% threshold: open (its 99% bound reaches past
    // 7%) and settleable with the runs already there.
    const data = atT(4);
    const withOne = compareMetric(...pair(data), 0.035, { ...BUDGETED, moreRuns: 1 });
    expect(withOne.verdict).toBe('unchanged');
    expect(withOne.worthConfirming).toBe(true);
    for (const moreRuns of [0, undefined]) {
      const options = moreRuns === undefined ? BUDGETED : { ...BUDGETED, moreRuns };
      expect(compareMetric(...pair(data), 0.035, options).worthConfirming).toBeUndefined();
    }
  });

  it('takes no run that could not settle it: the test interval with every run left stays wider than twice the threshold', () => {
    // 3 runs against 15, log SD 0.05 on both sides, the current side 2% slower.
    const runs = (n: number, shift: number) =>
      Array.from(
        { length: n },
        (_, i) => shift + 0.05 * Math.sqrt(3) * (((2 * i) / (n - 1)) * 1 - 1),
      );
    const current = runs(3, 0.02);
    const baseline = runs(15, 0);
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    const ss = (v: number[]) => v.reduce((s, x) => s + (x - mean(v)) ** 2, 0);
    const pooled = (ss(current) + ss(baseline)) / 16;
    // With `more` runs: SE² = pooled (1/(3 + more) + 1/15), 16 + more df, at the 0.1% test.
    const halfWidth = (more: number) =>
      studentTQuantile(1 - 0.001, 16 + more) * Math.sqrt(pooled * (1 / (3 + more) + 1 / 15));
    const threshold = (more: number, side: number) => Math.expm1(halfWidth(more)) / 2 + side;
    for (const more of [2, 10]) {
      const options = { ...withRuns, moreRuns: more };
      const wide = compareMetric(
        p50(...current),
        p50(...baseline),
        threshold(more, -1e-4),
        options,
      );
      expect(wide.worthConfirming, `${more} runs left`).toBeUndefined();
      const narrow = compareMetric(
        p50(...current),
        p50(...baseline),
        threshold(more, 1e-4),
        options,
      );
      expect(narrow.worthConfirming, `${more} runs left`).toBe(true);
    }
    // Judged at the level the last look tests at (settleLevel, 0.4%), not this look's
    // stricter 0.1%: a threshold between the two half-widths is open with it, not without.
    const lastHalfWidth = (more: number) =>
      studentTQuantile(1 - 0.004, 16 + more) * Math.sqrt(pooled * (1 / (3 + more) + 1 / 15));
    const between = (Math.expm1(halfWidth(10)) / 2 + Math.expm1(lastHalfWidth(10)) / 2) / 2;
    expect(Math.expm1(lastHalfWidth(10)) / 2).toBeLessThan(between - 1e-3);
    const judgedAt = (settleLevel?: number) =>
      compareMetric(p50(...current), p50(...baseline), between, {
        ...withRuns,
        ...(settleLevel === undefined ? {} : { settleLevel }),
      }).worthConfirming;
    expect(judgedAt()).toBeUndefined();
    expect(judgedAt(0.004)).toBe(true);
  });
});

describe('the looks of the confirmation runs', () => {
  it('come in growing batches up to confirm-runs', () => {
    expect(lookSchedule(0)).toEqual([0]);
    expect(lookSchedule(1)).toEqual([0, 1]);
    expect(lookSchedule(2)).toEqual([0, 1, 2]);
    expect(lookSchedule(10)).toEqual([0, 2, 5, 10]);
    expect(lookSchedule(20)).toEqual([0, 4, 10, 20]);
  });

  it('spend the budget in parts that add up to it, four fifths of it on the last look', () => {
    expect(lookBudgets(0.005, 0)).toEqual([0.005]);
    const budgets = lookBudgets(0.005, 10);
    expect(budgets).toHaveLength(4);
    expect(budgets.reduce((s, b) => s + b, 0)).toBeCloseTo(0.005, 15);
    expect(budgets[3]).toBeCloseTo(0.004, 15);
    expect(budgets[0]).toBeCloseTo(0.001 / 3, 15);
  });
});

describe('what the confirmation runs changed', () => {
  const row = (id: string, verdict: Comparison['verdict'], change: number | null) =>
    ({ id, verdict, change, unit: 'ms', direction: 'lower-is-better' }) as Comparison;
  const report = (name: string, verdict: BenchmarkReport['verdict'], metrics: Comparison[]) =>
    ({ name, format: 'vllm', verdict, metrics, warnings: [] }) as BenchmarkReport;

  it("keeps the benchmark's own verdict and metrics before the runs, by name", () => {
    const before = [
      report('other', 'no-baseline', [row('latency_p50', 'new', null)]),
      report('chat', 'pass', [row('latency_p50', 'inconclusive', 0.08)]),
    ];
    const after = report('chat', 'regression', [row('latency_p50', 'regression', 0.09)]);
    const confirmed = withConfirmation(after, before, 5);
    expect(confirmed).toMatchObject({
      name: 'chat',
      verdict: 'regression',
      metrics: after.metrics,
    });
    expect(confirmed.confirmation).toEqual({
      runs: 5,
      verdictBefore: 'pass',
      metricsBefore: [{ id: 'latency_p50', verdict: 'inconclusive', change: 0.08 }],
    });
  });

  it("counts a sweep's passes and a server's restarts only when given, even as 0", () => {
    const after = report('chat', 'pass', []);
    const before = [report('chat', 'pass', [])];
    expect(withConfirmation(after, before, 2, { sweepPasses: 0 }).confirmation).toEqual({
      runs: 2,
      sweepPasses: 0,
      verdictBefore: 'pass',
      metricsBefore: [],
    });
    expect(withConfirmation(after, before, 0, { restarts: 3 }).confirmation).toEqual({
      runs: 0,
      restarts: 3,
      verdictBefore: 'pass',
      metricsBefore: [],
    });
  });

  it('says the benchmark had no verdict before when the first runs did not measure it', () => {
    const after = report('chat', 'pass', [row('latency_p50', 'unchanged', 0.01)]);
    expect(withConfirmation(after, [report('other', 'pass', [])], 1).confirmation).toEqual({
      runs: 1,
      verdictBefore: 'error',
      metricsBefore: [],
    });
  });
});

function pair({ current, baseline }: { current: Metric; baseline: Metric }): [Metric, Metric] {
  return [current, baseline];
}

describe('the reported change comes from the interval it is shown with', () => {
  it('lies inside its own interval, with a noisy-neighbour run or one run a side', () => {
    const random = seededRandom('same estimator');
    for (let i = 0; i < 300; i += 1) {
      const runs = (n: number, shift: number) =>
        Array.from({ length: n }, () => shift + 0.03 * normal(random));
      const current = runs(3, 0.05);
      // A noisy-neighbour run among the current ones every third pull request.
      if (i % 3 === 0) current[i % 2] = current[i % 2]! + 0.3;
      const baseline = runs(15, 0);
      const c = compareMetric(p50(...current), p50(...baseline), 0.05, BUDGETED);
      expect(c.ci![0]).toBeLessThanOrEqual(c.change!);
      expect(c.change!).toBeLessThanOrEqual(c.ci![1]);
      // The geometric means of the runs, not the medians the table shows beside it.
      const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
      expect(c.change).toBeCloseTo(Math.expm1(mean(current) - mean(baseline)), 12);
    }
  });

  it('is the change of the percentile itself when one run a side is bootstrapped', () => {
    const random = seededRandom('bootstrap estimator');
    for (let i = 0; i < 50; i += 1) {
      const requests = (n: number, scale: number) =>
        Array.from({ length: n }, () => scale * Math.exp(0.5 * normal(random)));
      const metric = (samples: number[], value: number): Metric => ({
        id: 'latency_p95',
        unit: 'ms',
        direction: 'lower-is-better',
        values: [value],
        samples: [samples],
        percentile: 95,
      });
      // The files' own P95 figures (1.23, 1.0) are not what the bootstrap resamples.
      const c = compareMetric(metric(requests(40, 1.05), 1.23), metric(requests(40, 1), 1), 0.05, {
        ...BUDGETED,
        seed: `${i}`,
      });
      expect(c.method).toBe('request-bootstrap');
      expect(c.ci![0]).toBeLessThanOrEqual(c.change!);
      expect(c.change!).toBeLessThanOrEqual(c.ci![1]);
      expect(c.change).not.toBeCloseTo(0.23, 6);
    }
  });
});

describe('a metric without an interval under the budget', () => {
  const mfu = (value: number): Metric => ({
    id: 'mfu',
    unit: '%',
    direction: 'higher-is-better',
    values: [value],
  });

  it('fails beyond its threshold, saying low confidence: a real MFU drop must not pass', () => {
    const c = compareMetric(mfu(30), mfu(40), 0.1, BUDGETED);
    expect(c.method).toBe('none');
    expect(c.verdict).toBe('regression');
    expect(c.reason).toContain('low confidence');
    expect(c.reason).toContain('no interval');
    // A confirmation run is a clean run: it measures no MFU, so it would settle nothing.
    expect(c.worthConfirming).toBeUndefined();
    expect(metricsNeedMoreRuns([c])).toBe(false);
    // Within the threshold it passes, budget or not.
    expect(compareMetric(mfu(37), mfu(40), 0.1, BUDGETED).verdict).toBe('unchanged');
  });

  const result = (mfuValue: number, throughput: number[]): BenchmarkResult => ({
    name: 'b',
    format: 'offline-benchmark',
    runs: [],
    metrics: [
      mfu(mfuValue),
      { id: 'throughput', unit: 'queries/s', direction: 'higher-is-better', values: throughput },
    ],
  });
  const judged = (current: BenchmarkResult, baseline: BenchmarkResult) =>
    judgeResults(
      [current],
      { source: 'baseline.json', benchmarks: [baseline] },
      () => ({ mfu: 0.1, throughput: 0.05 }),
      { confidence: 0.95, failOnInconclusive: false, falseAlarmRate: 0.005 },
    )[0]!;

  it('fails a gate run whose one-record baseline had 25% more MFU, beside unchanged timed runs', () => {
    const report = judged(result(30, [3.2, 3.21, 3.19]), result(40, [3.2, 3.22, 3.18]));
    expect(report.metrics.find((m) => m.id === 'throughput')!.verdict).toBe('unchanged');
    expect(report.metrics.find((m) => m.id === 'mfu')!.verdict).toBe('regression');
    expect(report.verdict).toBe('regression');
  });

  it('leaves the threshold to decide when no metric has an interval (one run a side)', () => {
    const report = judged(result(30, [2.5]), result(40, [3.2]));
    expect(report.metrics.find((m) => m.id === 'throughput')!.verdict).toBe('regression');
    expect(report.metrics.find((m) => m.id === 'mfu')!.verdict).toBe('regression');
    expect(report.verdict).toBe('regression');
  });
});
