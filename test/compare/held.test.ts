// A held metric (a tail metric at an early look, judge.ts: holdTailMetrics): a regression it
// sees stays open for the confirmation runs left, and is only open while runs are left.
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../src/compare/compare.js';
import type { Metric } from '../../src/model.js';

const time = (values: number[]): Metric => ({
  id: 'time',
  unit: 'ms',
  direction: 'lower-is-better',
  values,
});
const before = time([100, 101, 99, 100, 102]);
const slower = time([140, 141, 139, 140, 142]);
const OPTIONS = { confidence: 0.95, seed: 'held' };

describe('a held metric', () => {
  it('keeps a clear regression open for the runs left', () => {
    const c = compareMetric(slower, before, 0.1, { ...OPTIONS, held: true, moreRuns: 4 });
    expect(c.verdict).toBe('inconclusive');
    expect(c.worthConfirming).toBe(true);
    expect(compareMetric(slower, before, 0.1, { ...OPTIONS, moreRuns: 4 }).verdict).toBe(
      'regression',
    );
  });

  it('is not open for more runs when none are left', () => {
    const c = compareMetric(slower, before, 0.1, { ...OPTIONS, held: true, moreRuns: 0 });
    expect(c.verdict).toBe('inconclusive');
    expect(c.worthConfirming).toBeUndefined();
    const unset = compareMetric(slower, before, 0.1, { ...OPTIONS, held: true });
    expect(unset.worthConfirming).toBeUndefined();
  });
});
