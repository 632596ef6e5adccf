import { describe, expect, it } from 'vitest';
import {
  bestSharedPhi,
  bestTau2,
  effectAtPhiByLikelihood,
  FIT_HOLDOUT,
  fitEnd,
  fitNightEffectByLikelihood,
  restrictedLogLikelihood,
  tau2StandardError,
  type NightData,
} from '../../src/history/night-likelihood.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

/** The runs' part of a night mean's variance: run CV 5.3% at 24 runs a night. */
const WHITE = 0.053 ** 2 / 24;

/** Night means of a level plus an AR(1) night effect (sd `tau`, coefficient `phi`) plus runs' noise. */
function nights(
  count: number,
  tau: number,
  phi: number,
  seed: string,
): NightData & { mean: Float64Array } {
  const random = seededRandom(seed);
  let effect = tau * normal(random);
  const mean = new Float64Array(count);
  for (let t = 0; t < count; t += 1) {
    if (t > 0) effect = phi * effect + tau * Math.sqrt(1 - phi * phi) * normal(random);
    mean[t] = Math.log(100) + effect + Math.sqrt(WHITE) * normal(random);
  }
  return { mean, white: new Float64Array(count).fill(WHITE), segments: [[0, count]] };
}

function average(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

describe('the night effect fitted by likelihood', () => {
  it('recovers phi and tau² of a year of drifting nights', () => {
    const fits = Array.from({ length: 20 }, (_, s) =>
      fitNightEffectByLikelihood(nights(365, 0.01, 0.8, `year-${s}`)),
    );
    // Each fit: phi within 0.15, tau² within a factor 2 (a year of nights at phi 0.8 is
    // about 40 independent ones); on average, within 0.05 and 15%.
    for (const fit of fits) {
      expect(Math.abs(fit.phi - 0.8)).toBeLessThanOrEqual(0.15);
      expect(fit.tau2 / 1e-4).toBeGreaterThan(0.5);
      expect(fit.tau2 / 1e-4).toBeLessThan(2);
    }
    expect(Math.abs(average(fits.map((f) => f.phi)) - 0.8)).toBeLessThan(0.05);
    expect(Math.abs(average(fits.map((f) => f.tau2)) / 1e-4 - 1)).toBeLessThan(0.15);
  });

  it('is not biased low on short segments of drifting nights (the restricted likelihood)', () => {
    // A plain maximum likelihood would plug in each segment's mean, which absorbs much of
    // a slow drift: on segments of 20 nights at phi 0.8, tau² came out a third low (0.64).
    const tau2 = Array.from({ length: 60 }, (_, s) => {
      const data = nights(60, 0.01, 0.8, `short-${s}`);
      const segments = [[0, 20] as const, [20, 40] as const, [40, 60] as const];
      return bestTau2({ ...data, segments }, 0.8).tau2;
    });
    expect(average(tau2) / 1e-4).toBeGreaterThan(0.85);
    expect(average(tau2) / 1e-4).toBeLessThan(1.2);
  });

  it('gives phi near 0 for independent nights', () => {
    const fits = Array.from({ length: 20 }, (_, s) =>
      fitNightEffectByLikelihood(nights(200, 0.01, 0, `iid-${s}`)),
    );
    expect(average(fits.map((f) => f.phi))).toBeLessThan(0.1);
    for (const fit of fits) expect(fit.phi).toBeLessThanOrEqual(0.3);
    expect(Math.abs(average(fits.map((f) => f.tau2)) / 1e-4 - 1)).toBeLessThan(0.15);
  });

  it('gives no night effect where the nights differ only by their runs', () => {
    const fits = Array.from({ length: 20 }, (_, s) =>
      fitNightEffectByLikelihood(nights(100, 0, 0, `white-${s}`)),
    );
    // tau² at most a third of the runs' part on every series, a tenth on average.
    for (const fit of fits) expect(fit.tau2).toBeLessThan(WHITE / 3);
    expect(average(fits.map((f) => f.tau2))).toBeLessThan(WHITE / 10);
  });

  it('fits one phi to a gate of series better than to each alone', () => {
    let alone = 0;
    let together = 0;
    for (let g = 0; g < 15; g += 1) {
      const gate = [0, 1, 2].map((k) => nights(40, 0.01, 0.8, `gate-${g}-${k}`));
      alone += average(gate.map((d) => Math.abs(fitNightEffectByLikelihood(d).phi - 0.8)));
      together += Math.abs(bestSharedPhi(gate) - 0.8);
    }
    expect(together).toBeLessThan(alone);
    expect(together / 15).toBeLessThan(0.15);
  });

  it('counts one awful night as no more than 3 deviations', () => {
    const clean = nights(60, 0.01, 0.5, 'awful');
    const awful = { ...clean, mean: Float64Array.from(clean.mean) };
    awful.mean[30] = awful.mean[30]! + 0.3; // a night 30% slower: 20 night SDs
    const tau2Clean = bestTau2(clean, 0.5).tau2;
    const tau2Awful = bestTau2(awful, 0.5).tau2;
    // Counted squared (or linearly beyond 3, as Huber's loss does), 9 times as large.
    expect(tau2Awful).toBeLessThan(tau2Clean * 2);
  });

  it('treats each segment as its own level', () => {
    const data = nights(60, 0.01, 0.8, 'segments');
    const stepped = { ...data, mean: data.mean.map((m, t) => (t >= 30 ? m + 0.2 : m)) };
    const split = { ...stepped, segments: [[0, 30] as const, [30, 60] as const] };
    const one = { ...data, segments: [[0, 30] as const, [30, 60] as const] };
    expect(restrictedLogLikelihood(split, 1e-4, 0.8)).toBeCloseTo(
      restrictedLogLikelihood(one, 1e-4, 0.8),
      9,
    );
  });
});

describe('an odd night in the likelihood', () => {
  // 12 independent nights (phi 0): 3 runs at run SD 2% (white 0.02²/3), tau² 1e-4, so each
  // night's innovation is its own residual, SD √(tau² + white) = 0.0152753. Eleven nights
  // within 1.9 SDs of the level, night 11 at x of its SDs above it (the level, their mean,
  // includes it: its value is x · SD · 12/11).
  const WHITE_3 = 0.02 ** 2 / 3;
  const likelihoodAt = (x: number) => {
    const others = [-0.012, 0.008, -0.004, 0.015, -0.009, 0, 0.009, -0.015, 0.004, -0.008, 0.012];
    const sd = Math.sqrt(1e-4 + WHITE_3);
    const data: NightData = {
      mean: [...others, (x * sd * 12) / 11],
      white: new Float64Array(12).fill(WHITE_3),
      segments: [[0, 12]],
    };
    return restrictedLogLikelihood(data, 1e-4, 0);
  };

  it('counts a night beyond 3 SDs as 3, and one within as itself', () => {
    // Pins night-likelihood.ts's CLIP: the odd night adds min(x², 9) to the likelihood's loss.
    // numpy, the closed form for phi 0: −½ (Σ log f + Σ min(z², 9) + log Σ 1/f), f = tau² +
    // white, z from the GLS level: 37.8955792 at 2.9 SDs, 37.5460337 at 3.1, 37.4260337 at
    // 3.5, 33.4373974 at 10 (clipped at 3.6 instead, 3.5 SDs give 35.8010337; at 2.4, 2.9
    // SDs give 39.2205792).
    expect(likelihoodAt(2.9)).toBeCloseTo(37.8955792, 6);
    expect(likelihoodAt(3.1)).toBeCloseTo(37.5460337, 6);
    expect(likelihoodAt(3.5)).toBeCloseTo(37.4260337, 6);
    expect(likelihoodAt(10)).toBeCloseTo(33.4373974, 6);
  });
});

describe("tau²'s standard error", () => {
  it('shrinks with the nights that teach it, about as the square root of their count', () => {
    const errorOf = (count: number) => {
      const data = nights(count, 0.01, 0.5, `error-${count}`);
      const { tau2 } = bestTau2(data, 0.5);
      return tau2StandardError(data, tau2, 0.5);
    };
    const short = errorOf(60);
    const long = errorOf(360);
    expect(short).toBeGreaterThan(0);
    expect(Number.isFinite(short)).toBe(true);
    // Six times the nights: √6 ≈ 2.4 times smaller, within what one draw of each allows.
    expect(short / long).toBeGreaterThan(1.5);
    expect(short / long).toBeLessThan(4);
  });

  it("is the observed information's: one over the root of the likelihood's curvature", () => {
    const data = nights(120, 0.01, 0.5, 'curvature');
    const { tau2 } = bestTau2(data, 0.5);
    expect(tau2).toBeGreaterThan(0);
    // The curvature by a central difference 100 times finer than the one the code takes.
    const h = tau2 * 1e-3;
    const at = (t: number) => restrictedLogLikelihood(data, t, 0.5);
    const curvature = (at(tau2 + h) - 2 * at(tau2) + at(tau2 - h)) / (h * h);
    expect(curvature).toBeLessThan(0);
    // Within 0.5%: the coarser difference reads the curvature over ±10% of tau².
    expect(tau2StandardError(data, tau2, 0.5) * Math.sqrt(-curvature)).toBeCloseTo(1, 2);
  });

  it('is unbounded (+∞) where no segment of two nights or more says anything about tau²', () => {
    const lone: NightData = {
      mean: [4.6, 4.7, 4.5],
      white: [WHITE, WHITE, WHITE],
      segments: [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
    };
    expect(tau2StandardError(lone, 0, 0.5)).toBe(Number.POSITIVE_INFINITY);
    expect(tau2StandardError(lone, 1e-4, 0)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('what a fit reads', () => {
  it('leaves the newest FIT_HOLDOUT nights out once 10 nights remain, none before', () => {
    expect(FIT_HOLDOUT).toBe(3);
    expect(fitEnd(13)).toBe(10);
    expect(fitEnd(12)).toBe(12);
    expect(fitEnd(100)).toBe(97);
  });

  it("keeps a gate's phi with a night effect, and drops it with none", () => {
    const drifting = nights(120, 0.01, 0.6, 'at-phi');
    const fit = effectAtPhiByLikelihood(drifting, 0.6);
    expect(fit.phi).toBe(0.6);
    expect(fit.tau2).toBeGreaterThan(0);
    // Nights that are their runs and nothing else: no effect, so no correlation of one.
    const flat: NightData = {
      mean: new Float64Array(40).fill(Math.log(100)),
      white: new Float64Array(40).fill(WHITE),
      segments: [[0, 40]],
    };
    expect(bestTau2(flat, 0.6).tau2).toBe(0);
    expect(effectAtPhiByLikelihood(flat, 0.6)).toEqual({ tau2: 0, phi: 0 });
  });
});
