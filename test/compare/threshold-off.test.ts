// A metric whose threshold is off is shown, never judged (src/compare/compare.ts: decide).
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../src/compare/compare.js';
import type { Metric } from '../../src/model.js';

const time = (values: number[]): Metric => ({
  id: 'time',
  unit: 'ms',
  direction: 'lower-is-better',
  values,
});
const OPTIONS = { confidence: 0.95, seed: 'off' };

describe('a metric with its threshold off', () => {
  it('is unchanged however far it moves, with the change and interval still shown', () => {
    const before = time([100, 101, 99, 100, 102]);
    const slower = compareMetric(time([140, 141, 139, 140, 142]), before, null, OPTIONS);
    expect(slower.verdict).toBe('unchanged');
    expect(slower.threshold).toBeNull();
    expect(slower.change).toBeCloseTo(0.4, 2);
    expect(slower.ci![0]).toBeGreaterThan(0.3);
    expect(compareMetric(time([60, 61, 59, 60, 62]), before, null, OPTIONS).verdict).toBe(
      'unchanged',
    );
    // The same change with a threshold fails.
    expect(compareMetric(time([140, 141, 139, 140, 142]), before, 0.1, OPTIONS).verdict).toBe(
      'regression',
    );
  });

  it('says nothing of how many runs would tell a change: there is none to tell', () => {
    const noisyBefore = time([100, 120, 85, 110, 95]);
    const noisyNow = time([105, 90, 125, 100, 115]);
    expect(compareMetric(noisyNow, noisyBefore, 0.05, OPTIONS).reach).toBeDefined();
    expect(compareMetric(noisyNow, noisyBefore, null, OPTIONS).reach).toBeUndefined();
  });
});
