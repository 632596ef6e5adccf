// Which verdicts take confirmation runs, which figures a row reports, and what a metric
// without an interval may do under the gate's false-alarm budget.
import { describe, expect, it } from 'vitest';
import { compareMetric, type CompareOptions } from '../../src/compare/compare.js';
import { judgeResults } from '../../src/compare/judge.js';
import { metricsNeedMoreRuns } from '../../src/compare/sequential.js';
import type { BenchmarkResult, Comparison, Metric } from '../../src/model.js';
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

describe('confirmation runs only near the boundary', () => {
  it('confirms an inconclusive change whose one-sided p-value is below the 2% confirmation level', () => {
    // p just below 2%: the 96% interval lies on the worse side, the gate's 99.8% test does not.
    const { current, baseline } = atT(studentTQuantile(1 - 0.018, 4));
    const c = compareMetric(current, baseline, 0.01, BUDGETED);
    expect(c.verdict).toBe('inconclusive');
    expect(c.worthConfirming).toBe(true);
    expect(metricsNeedMoreRuns([c])).toBe(true);
  });

  it('lets an inconclusive change above the confirmation level pass without a run more', () => {
    // p just above 2% (still below 2.5%: the shown 95% interval excludes no change).
    const { current, baseline } = atT(studentTQuantile(1 - 0.022, 4));
    const c = compareMetric(current, baseline, 0.01, BUDGETED);
    expect(c.verdict).toBe('inconclusive');
    expect(c.ci![0]).toBeGreaterThan(0);
    expect(c.worthConfirming).toBeUndefined();
    expect(metricsNeedMoreRuns([c])).toBe(false);
  });

  it('takes no run more once any metric regressed, nor for a change within its threshold', () => {
    const near = compareMetric(...pair(atT(studentTQuantile(1 - 0.01, 4))), 0.01, BUDGETED);
    expect(near.worthConfirming).toBe(true);
    const regressed: Comparison = { ...near, verdict: 'regression' };
    expect(metricsNeedMoreRuns([near, regressed])).toBe(false);
    const within = compareMetric(...pair(atT(1)), 0.5, BUDGETED);
    expect(within.verdict).toBe('unchanged');
    expect(metricsNeedMoreRuns([within])).toBe(false);
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
