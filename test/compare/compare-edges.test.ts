// compareMetric at its edges: a side missing, a baseline of 0 or a negative side, the
// figures a change is the ratio of, and what a verdict without an interval says it lacked.
import { describe, expect, it } from 'vitest';
import { compareMetric, worseLog, worsening } from '../../src/compare/compare.js';
import type { Metric } from '../../src/model.js';

const metric = (values: number[], more: Partial<Metric> = {}): Metric => ({
  id: 'latency_p50',
  unit: 'ms',
  direction: 'lower-is-better',
  values,
  ...more,
});
const OPTIONS = { confidence: 0.95, seed: 'edges' };

describe('compareMetric without a change to judge', () => {
  it('calls a metric this run did not measure missing, and one the baseline lacks new', () => {
    const missing = compareMetric(undefined, metric([10, 11]), 0.05, OPTIONS);
    expect(missing).toEqual({
      id: 'latency_p50',
      unit: 'ms',
      direction: 'lower-is-better',
      baseline: 10.5,
      current: null,
      threshold: 0.05,
      confidence: 0.95,
      change: null,
      ci: null,
      method: 'none',
      verdict: 'missing',
      reason: 'not measured in this run',
    });
    const fresh = compareMetric(metric([10, 11]), undefined, null, OPTIONS);
    expect(fresh).toMatchObject({ baseline: null, current: 10.5, threshold: null, verdict: 'new' });
    expect(fresh.reason).toBe('no baseline value to compare with');
    expect(() => compareMetric(undefined, undefined, 0.05, OPTIONS)).toThrow(
      'compareMetric needs at least one side',
    );
  });

  it('shows, and does not judge, a baseline of 0 or a negative side', () => {
    const judged = (current: number[], baseline: number[]) => {
      const c = compareMetric(metric(current), metric(baseline), 0.05, OPTIONS);
      expect([c.verdict, c.change, c.ci, c.method]).toEqual(['unchanged', null, null, 'none']);
      return c.reason;
    };
    expect(judged([10, 11], [0, 0])).toBe('the baseline is 0, so a relative change is undefined');
    const negative =
      'a side is negative (a delta), so a relative change is undefined; shown, not judged';
    expect(judged([-1, -2], [1, 2])).toBe(negative);
    expect(judged([1, 2], [-1, -2])).toBe(negative);
    // A current value of 0 against a positive baseline is a change like any other: all of it.
    const zero = compareMetric(metric([0]), metric([10]), 0.05, OPTIONS);
    expect([zero.verdict, zero.change, zero.ci, zero.method]).toEqual([
      'improvement',
      -1,
      null,
      'none',
    ]);
    const zeros = compareMetric(metric([0, 0, 0]), metric([10, 11, 12]), 0.05, OPTIONS);
    expect([zeros.verdict, zeros.change, zeros.ci, zeros.method]).toEqual([
      'improvement',
      -1,
      null,
      'none',
    ]);
  });
});

describe('what a compared metric says it rests on', () => {
  it('names the geometric means a change of runs is the ratio of', () => {
    const c = compareMetric(metric([110, 111, 109]), metric([100, 101, 99]), 0.05, OPTIONS);
    expect(c.basis).toEqual({
      estimator: 'geometric-mean',
      current: expect.closeTo(110, 1),
      baseline: expect.closeTo(100, 1),
    });
    expect(c.change).toBeCloseTo(c.basis!.current / c.basis!.baseline - 1, 12);
    // One value a side: no interval, so no basis either.
    expect(compareMetric(metric([110]), metric([100]), 0.05, OPTIONS).basis).toBeUndefined();
  });

  it('names the fewer of the two sides’ per-request samples when they are too few', () => {
    const three = [[100, 110, 120]];
    const five = [[90, 95, 100, 105, 110]];
    const reason = (current: number[][], baseline: number[][]) =>
      compareMetric(
        metric([110], { samples: current, percentile: 95 }),
        metric([100], { samples: baseline }),
        0.05,
        OPTIONS,
      ).reason;
    const tooFew = /one run and 3 per-request samples, fewer than the 20 a request bootstrap needs/;
    expect(reason(three, five)).toMatch(tooFew);
    expect(reason(five, three)).toMatch(tooFew);
  });
});

describe('the level a change is tested at', () => {
  it('is never looser than the shown interval’s: that interval decides then', () => {
    // 11.7% slower, 95% interval −7.7% to 35.1%: a 60% one would lie above zero.
    const current = metric([100, 112, 124]);
    const baseline = metric([95, 100, 105]);
    const at = (testLevel?: number) =>
      compareMetric(current, baseline, 0.05, {
        ...OPTIONS,
        ...(testLevel === undefined ? {} : { testLevel }),
      });
    expect(at().verdict).toBe('inconclusive');
    expect(at(0.2)).toEqual(at());
  });
});

describe('a change for the worse, whichever way the metric points', () => {
  it('is a log ratio: 10% slower is ln 1.1, 10% less throughput −ln 0.9', () => {
    expect(worseLog(0.1, 'lower-is-better')).toBeCloseTo(Math.log(1.1), 15);
    expect(worseLog(0.1, 'higher-is-better')).toBeCloseTo(-Math.log(0.9), 15);
    // Losing all of it or more is capped at 99.9% lost.
    expect(worseLog(1.5, 'higher-is-better')).toBeCloseTo(-Math.log(0.001), 12);
    expect(worseLog(1.5, 'lower-is-better')).toBeCloseTo(Math.log(2.5), 15);
  });

  it('is positive for the worse either way', () => {
    expect(worsening(0.1, 'lower-is-better')).toBe(0.1);
    expect(worsening(0.1, 'higher-is-better')).toBe(-0.1);
  });
});

describe('what the noise allows (reach)', () => {
  it('is said of a metric that passed or is open, never of a regression it caught', () => {
    // Three runs a side at about 5% CV: a 10% regression fails under half the time.
    const at = (factor: number) =>
      compareMetric(
        metric([95 * factor, 100 * factor, 105 * factor]),
        metric([95, 100, 105]),
        0.05,
        OPTIONS,
      );
    expect(at(1).verdict).toBe('unchanged');
    expect(at(1).reach).toEqual({ power: expect.closeTo(0.43, 2), runs: 3, runsFor95: null });
    expect(at(1.1).verdict).toBe('inconclusive');
    expect(at(1.1).reach?.power).toBeCloseTo(0.43, 2);
    expect(at(1.3).verdict).toBe('regression');
    expect(at(1.3).reach).toBeUndefined();
  });
});
