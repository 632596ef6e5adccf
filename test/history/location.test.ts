// Where a change point is placed, and how sure its series is of that night (location.ts).
import { describe, expect, it } from 'vitest';
import { detectChangePoints } from '../../src/history/changepoints.js';
import { locationShares } from '../../src/history/location.js';
import { NightAlgebra } from '../../src/history/night-model.js';
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

describe('an awful night beside a step', () => {
  // 12 nights of 3 runs (2 on nights 2 and 7) at run SD 2%, no night effect: night i's
  // mean has SD 0.02 / √runs and weight runs / 0.02². A 3% step at night 6; night 9 reads
  // x of its SDs (0.011547) above the after-level, the median of nights 6–11, 3.05% (the
  // before-level, the median of nights 0–5, is 0.1%).
  const runs = [3, 3, 2, 3, 3, 3, 3, 2, 3, 3, 3, 3];
  const weight = runs.map((r) => r / 0.02 ** 2);
  const algebra = new NightAlgebra(
    { tau2: 0, phi: 0 },
    weight,
    weight.map((w) => 1 / w),
  );
  const sharesAt = (x: number) => {
    const means = [0.004, -0.006, 0.002, -0.003, 0.005, 0, 0.03, 0.026, 0.034, 0, 0.031, 0.029];
    means[9] = 0.0305 + x * (0.02 / Math.sqrt(3));
    return locationShares(algebra, means, 0, 12, 6, 2);
  };
  // The rule of location.ts computed in numpy (each night clipped to 3 of its SDs beyond
  // [0.1%, 3.05%]; z_k of a step at k from the weighted means before and after it over
  // √(1/W_before + 1/W_after); shares ∝ exp(z_k²/2), those of at least 0.001 kept).
  const expectShares = (shares: { index: number; share: number }[], expected: number[]) => {
    expect(shares.map((n) => n.index)).toEqual([4, 5, 6, 7, 8, 9]);
    shares.forEach((n, i) => expect(n.share).toBeCloseTo(expected[i]!, 6));
  };

  it('counts a night beyond the levels as 3 of its SDs past them, and one within as itself', () => {
    // Pins location.ts's CLIP: 3.1, 3.5 or 10 SDs out count as 3.0; a night 2.9 out as itself.
    // numpy: at 2.9 SDs (not clipped) 0.0017122, 0.0134896, 0.8856158, 0.0627562,
    // 0.0330652, 0.0032498; clipped to 3: 0.0015845, 0.0128536, 0.8846497, 0.063429,
    // 0.0339885, 0.0033954 (clipped at 3.6 instead, a night 3.5 out would give 0.8780214
    // on night 6; at 2.4, one 2.9 out 0.8887667).
    expectShares(sharesAt(2.9), [0.0017122, 0.0134896, 0.8856158, 0.0627562, 0.0330652, 0.0032498]);
    for (const x of [3.1, 3.5, 10]) {
      expectShares(sharesAt(x), [0.0015845, 0.0128536, 0.8846497, 0.063429, 0.0339885, 0.0033954]);
    }
  });
});
