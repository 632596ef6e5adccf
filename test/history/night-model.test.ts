import { describe, expect, it } from 'vitest';
import { analyzeHistory } from '../../src/history/analyze.js';
import {
  NightAlgebra,
  nightModel,
  nightVariogram,
  type Range,
} from '../../src/history/night-model.js';
import { renderHistoryText } from '../../src/history/render.js';
import type { RunnerEffect } from '../../src/history/runner-levels.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import { makeSeries } from './make-series.js';

/**
 * Σ_ij c_i c'_j K_ij with K = diag(white) + tau²·phi^|i−j|, plus a runner's offset error's
 * variance between any two nights of that runner, the O(n²) way.
 */
function bruteCovariance(
  weight: number[],
  white: number[],
  tau2: number,
  phi: number,
  ranges: Range[],
  a: number[],
  b: number[],
  runners?: RunnerEffect,
): number {
  const coefficient = (c: number[], i: number) => {
    const r = ranges.findIndex(([p, q]) => i >= p && i < q);
    return r < 0 ? 0 : c[r]! * weight[i]!;
  };
  let total = 0;
  for (let i = 0; i < weight.length; i += 1) {
    for (let j = 0; j < weight.length; j += 1) {
      const runner = runners?.of[i] ?? -1;
      const shared = runner >= 0 && runners!.of[j] === runner ? runners!.variance[runner]! : 0;
      const k = (i === j ? white[i]! : 0) + tau2 * phi ** Math.abs(i - j) + shared;
      total += coefficient(a, i) * coefficient(b, j) * k;
    }
  }
  return total;
}

describe('NightAlgebra', () => {
  const random = seededRandom('algebra');
  const n = 23;
  const weight = Array.from({ length: n }, () => 0.5 + random.next());
  const white = Array.from({ length: n }, () => 0.1 + random.next());

  for (const phi of [0, 0.5, 0.8]) {
    it(`gives the covariance of range contrasts as the full matrix does (phi ${phi})`, () => {
      const algebra = new NightAlgebra({ tau2: 0.7, phi }, weight, white);
      const cases: { ranges: Range[]; a: number[]; b: number[] }[] = [
        {
          ranges: [
            [0, 10],
            [10, 23],
          ],
          a: [-0.3, 0.2],
          b: [-0.3, 0.2],
        },
        {
          ranges: [
            [0, 4],
            [4, 9],
            [9, 23],
          ],
          a: [-1, 2, -1],
          b: [0.5, 0.1, -3],
        },
        {
          ranges: [
            [2, 5],
            [7, 8],
            [15, 22],
          ],
          a: [1, -2, 0.4],
          b: [0.3, 1, 1],
        },
      ];
      for (const { ranges, a, b } of cases) {
        const expected = bruteCovariance(weight, white, 0.7, phi, ranges, a, b);
        expect(algebra.covariance(ranges, a, b)).toBeCloseTo(expected, 9);
        // With the runners' offset errors: runner 0 the first 6 nights and 3 later ones,
        // runner 1 most of the rest, runner 2 with an offset known exactly, night 12 none.
        const of = Int32Array.from({ length: n }, (_, i) =>
          i < 6 || i % 7 === 0 ? 0 : i === 12 ? -1 : i > 19 ? 2 : 1,
        );
        const runners: RunnerEffect = { of, variance: [0.4, 0.25, 0] };
        const withRunners = new NightAlgebra({ tau2: 0.7, phi }, weight, white, runners);
        const full = bruteCovariance(weight, white, 0.7, phi, ranges, a, b, runners);
        expect(full).not.toBeCloseTo(expected, 3);
        expect(withRunners.covariance(ranges, a, b)).toBeCloseTo(full, 9);
      }
    });
  }

  it('weighs a range of nights by the sum of their weights', () => {
    const algebra = new NightAlgebra({ tau2: 0.01, phi: 0.5 }, [1, 2, 4, 8], [0.1, 0.1, 0.1, 0.1]);
    expect(algebra.weightOf([0, 4])).toBe(15);
    expect(algebra.weightOf([1, 3])).toBe(6);
    expect(algebra.weightOf([2, 2])).toBe(0);
    expect(algebra.weightAt(3)).toBe(8);
  });

  it("adds a runner's offset error once for all its nights to a level's variance", () => {
    // Four nights of weight 1, runs' variance 0.01 each, no night effect: nights 0 and 1
    // on runner 0 (offset error 0.04), night 2 on runner 1 (0.09), night 3 on none.
    const runners: RunnerEffect = { of: Int32Array.from([0, 0, 1, -1]), variance: [0.04, 0.09] };
    const algebra = new NightAlgebra(
      { tau2: 0, phi: 0 },
      [1, 1, 1, 1],
      [0.01, 0.01, 0.01, 0.01],
      runners,
    );
    // The mean of nights 0 and 1: 0.02/4 from the runs, all of runner 0's error.
    expect(algebra.variance([[0, 2]], [1 / 2])).toBeCloseTo(0.045, 12);
    // Nights 2 and 3 against 0 and 1: half of runner 1's error, none of a night without one.
    expect(algebra.differenceVariance([0, 2], [2, 4])).toBeCloseTo(0.01 + 0.04 + 0.09 / 4, 12);
  });
});

describe('nightModel', () => {
  /** Night means with an AR(1) night effect of variance tau2, plus runs of variance sigma2. */
  function driftingSeries(phi: number, seed: string) {
    const random = seededRandom(seed);
    let effect = 0;
    return makeSeries({ nights: 300, runs: 1, runCv: 0.001, seed }).points.map((point, i) => {
      effect =
        i === 0
          ? 0.01 * normal(random)
          : phi * effect + 0.01 * Math.sqrt(1 - phi * phi) * normal(random);
      const values = Array.from(
        { length: 8 },
        () => 100 * Math.exp(effect + 0.02 * normal(random)),
      );
      return { ...point, values, mean: values.reduce((s, v) => s + v, 0) / values.length };
    });
  }

  it('finds how alike drifting nights are, and calls independent nights independent', () => {
    const drifting = [1, 2, 3].map((k) => nightModel(driftingSeries(0.8, `ar-${k}`)));
    for (const model of drifting) {
      expect(model.phi).toBeGreaterThanOrEqual(0.6);
      expect(Math.sqrt(model.tau2)).toBeGreaterThan(0.007);
      expect(Math.sqrt(model.tau2)).toBeLessThan(0.014);
      expect(Math.sqrt(model.sigma2)).toBeCloseTo(0.02, 2);
    }
    const independent = [1, 2, 3].map((k) => nightModel(driftingSeries(0, `iid-${k}`)));
    for (const model of independent) expect(model.phi).toBeLessThanOrEqual(0.3);
  });
});

describe('history text', () => {
  it('says when the nights drift, and how alike they are', () => {
    const text = (nightPhi: number) => {
      const series = makeSeries({
        nights: 150,
        runs: 24,
        runCv: 0.05,
        nightCv: 0.02,
        nightPhi,
        seed: `text-${nightPhi}`,
      });
      const analysis = analyzeHistory({ series: [series], acceptances: [], skipped: 0 });
      return renderHistoryText(analysis, 'test');
    };
    expect(text(0.9)).toMatch(
      /night-to-night \d+\.\d+% \(drifting: consecutive nights 0\.[6-9]\d alike\)/,
    );
    expect(text(0)).not.toContain('drifting');
  });
});

describe('nightVariogram', () => {
  it('has a point at each lag its segments hold a pair of nights for, and only there', () => {
    // 30 nights (lags 1 to 10) in segments of 4, 4 and 22: every lag up to 10 has pairs.
    const points = makeSeries({ nights: 30, nightCv: 0.02, seed: 'lags' }).points;
    expect(nightVariogram(points, { changes: [4, 8] }).excess).toHaveLength(10);
    // Six segments of 5: no pair of nights lies 5 or more apart within one.
    const short = nightVariogram(points, { changes: [5, 10, 15, 20, 25] });
    expect(short.excess).toHaveLength(4);
    expect(short.excess.every(Number.isFinite)).toBe(true);
  });

  it('counts the blocks of five nights within segments, one degree of freedom per segment spent', () => {
    const points = makeSeries({ nights: 30, nightCv: 0.02, seed: 'blocks' }).points;
    expect(nightVariogram(points).blocks).toMatchObject({ dfBetween: 5, dfWithin: 24 });
    // Segments of 10: two blocks each, six blocks in three segments.
    expect(nightVariogram(points, { changes: [10, 20] }).blocks).toMatchObject({
      dfBetween: 3,
      dfWithin: 24,
    });
  });

  it('fits the likelihood to the nights before the newest three, cut only at changes within them', () => {
    const points = makeSeries({ nights: 30, seed: 'fit segments' }).points;
    expect(nightVariogram(points).data.segments).toEqual([[0, 27]]);
    // A change on the first night, or among the newest (a fresh step), cuts nothing.
    expect(nightVariogram(points, { changes: [0, 28] }).data.segments).toEqual([[0, 27]]);
    expect(nightVariogram(points, { changes: [12, 27] }).data.segments).toEqual([
      [0, 12],
      [12, 27],
    ]);
  });
});
