import { describe, expect, it } from 'vitest';
import { analyzeHistory } from '../../src/history/analyze.js';
import { NightAlgebra, nightModel, type Range } from '../../src/history/night-model.js';
import { renderHistoryText } from '../../src/history/render.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import { makeSeries } from './make-series.js';

/** Σ_ij c_i c'_j K_ij with K = diag(white) + tau²·phi^|i−j|, the O(n²) way. */
function bruteCovariance(
  weight: number[],
  white: number[],
  tau2: number,
  phi: number,
  ranges: Range[],
  a: number[],
  b: number[],
): number {
  const coefficient = (c: number[], i: number) => {
    const r = ranges.findIndex(([p, q]) => i >= p && i < q);
    return r < 0 ? 0 : c[r]! * weight[i]!;
  };
  let total = 0;
  for (let i = 0; i < weight.length; i += 1) {
    for (let j = 0; j < weight.length; j += 1) {
      const k = (i === j ? white[i]! : 0) + tau2 * phi ** Math.abs(i - j);
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
      }
    });
  }
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
