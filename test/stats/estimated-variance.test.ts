import { describe, expect, it } from 'vitest';
import { normalQuantile, studentTQuantile } from '../../src/stats/distributions.js';
import { normalEquivalent, satterthwaiteDf } from '../../src/stats/estimated-variance.js';

describe('normalEquivalent', () => {
  it('gives the normal score of a t statistic’s tail', () => {
    // t(10) leaves 2.5% above 2.228: the normal score of 2.5% is 1.96.
    expect(normalEquivalent(studentTQuantile(0.975, 10), 10)).toBeCloseTo(1.96, 3);
    expect(normalEquivalent(-studentTQuantile(0.995, 4), 4)).toBeCloseTo(normalQuantile(0.005), 3);
    // Far in the tail, where 1 − CDF would cancel to 0.
    expect(normalEquivalent(40, 30)).toBeGreaterThan(8);
    expect(Number.isFinite(normalEquivalent(40, 30))).toBe(true);
  });

  it('leaves a z with a known variance alone, and never raises one', () => {
    expect(normalEquivalent(3.1, Number.POSITIVE_INFINITY)).toBe(3.1);
    expect(normalEquivalent(2, 1e7)).toBe(2);
    for (const df of [1, 3, 30, 300]) expect(normalEquivalent(2.5, df)).toBeLessThan(2.5);
  });
});

describe('satterthwaiteDf', () => {
  it('is infinite with nothing estimated, and 2/(relative error)² when all is', () => {
    expect(satterthwaiteDf(1, 0, 0)).toBe(Number.POSITIVE_INFINITY);
    // A variance estimated with a 20% standard error: 50 degrees of freedom.
    expect(satterthwaiteDf(0, 1, 0.2)).toBeCloseTo(50, 9);
    // A known part makes the whole more certain.
    expect(satterthwaiteDf(3, 1, 0.2)).toBeCloseTo(800, 9);
  });
});
