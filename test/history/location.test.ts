// Where a change point is placed, and how sure its series is of that night (location.ts).
import { describe, expect, it } from 'vitest';
import { detectChangePoints } from '../../src/history/changepoints.js';
import { makeSeries } from './make-series.js';

/** The regression change points of 10 seeded 40-night series with a 12% step at night 30. */
function stepSeries(nightBefore: number, runCv: number, name: string) {
  return Array.from({ length: 10 }, (_, s) => {
    const series = makeSeries({
      nights: 40,
      runCv,
      level: (n) => (n >= 30 ? 1.12 : n === 29 ? nightBefore : 1),
      seed: `${name}-${s}`,
    });
    return detectChangePoints(series).changePoints.filter((cp) => cp.direction === 'regression');
  });
}

describe('the location of a change point', () => {
  it('places a large step on its first night even when the night before read a little high', () => {
    // Clipped to 3 night deviations around the segment's median, every night after a 12%
    // step counted only ~3.5% up, and a night 3% up before it looked like the step's
    // first: 7 of these 10 series named the night before.
    const found = stepSeries(1.03, 0.02, 'high');
    expect(found.map((cps) => cps.map((cp) => cp.firstBad.index))).toEqual(
      Array.from({ length: 10 }, () => [30]),
    );
    for (const [cp] of found) expect(cp!.location.share).toBeGreaterThan(0.95);
  });

  it('says how sure: a night halfway up splits the share between it and the next', () => {
    // The night before the step reads 6% up (half the step) at 5% run CV: which of the two
    // nights started it is a close call, and the shares say so.
    const found = stepSeries(1.06, 0.05, 'half').map((cps) => cps[0]!);
    let split = 0;
    let unsure = 0;
    for (const cp of found) {
      const nights = cp.location.nights;
      const total = nights.reduce((s, n) => s + n.share, 0);
      expect(total).toBeGreaterThan(0.99);
      expect(total).toBeLessThanOrEqual(1 + 1e-9);
      expect(nights.map((n) => n.index)).toEqual(
        [...nights.map((n) => n.index)].sort((a, b) => a - b),
      );
      // Placed on its likeliest night, and named by run and commit.
      const best = nights.reduce((a, b) => (b.share > a.share ? b : a));
      expect(cp.firstBad.index).toBe(best.index);
      expect(cp.location.share).toBe(best.share);
      expect(best.runId).toBe(cp.firstBad.runId);
      expect(best.commit).toBe(cp.firstBad.commit);
      expect([29, 30]).toContain(cp.firstBad.index);
      const shareOf = (index: number) => nights.find((n) => n.index === index)?.share ?? 0;
      if (shareOf(29) >= 0.05 && shareOf(30) >= 0.05) split += 1;
      if (cp.location.share < 0.9) unsure += 1;
    }
    expect(split).toBeGreaterThanOrEqual(4);
    expect(unsure).toBeGreaterThanOrEqual(3);
  });
});
