// The F test that says whether nights drift (night-model.ts): blocks of five nights against
// the nights within them, its sums on exact night means and its p-value in closed forms.
import { describe, expect, it } from 'vitest';
import { driftPValue, nightVariogram, type BlockVariance } from '../../src/history/night-model.js';
import { makeSeries } from './make-series.js';

/** One run a night at exp(mean): night means of exactly `means` on the log scale. */
function pointsAt(means: readonly number[]) {
  return makeSeries({ nights: means.length, runs: 1 }).points.map((p, i) => ({
    ...p,
    values: [Math.exp(means[i]!)],
    mean: Math.exp(means[i]!),
  }));
}

/** P(F > f) for F(2, d2): (1 + 2f/d2)^(−d2/2). */
const upperTailF2 = (f: number, d2: number) => (1 + (2 * f) / d2) ** (-d2 / 2);

describe('blocks of nights', () => {
  it('sums the blocks around their level and the nights around their block', () => {
    // Blocks of 0.01…0.05 and 0.06…0.10: means 0.03 and 0.08 around 0.055.
    const means = Array.from({ length: 10 }, (_, i) => 0.01 * (i + 1));
    const { blocks } = nightVariogram(pointsAt(means));
    expect(blocks.between).toBeCloseTo(2 * 5 * 0.025 ** 2, 12);
    expect(blocks.within).toBeCloseTo(2 * (4 + 1 + 0 + 1 + 4) * 1e-4, 12);
    expect([blocks.dfBetween, blocks.dfWithin]).toEqual([1, 8]);
    // Nights past the last whole block are in neither sum.
    const more = nightVariogram(pointsAt([...means, 5, -5, 3])).blocks;
    expect(more.between).toBeCloseTo(blocks.between, 12);
    expect(more.within).toBeCloseTo(blocks.within, 12);
  });

  it('starts blocks afresh at a change, each segment around its own level', () => {
    // A change on night 3: nights 0–2 make no block; 3–7 and 8–12 are one segment's two.
    const means = [9, 9, 9, ...Array.from({ length: 10 }, (_, i) => 0.01 * (i + 1))];
    const { blocks } = nightVariogram(pointsAt(means), { changes: [3] });
    expect([blocks.dfBetween, blocks.dfWithin]).toEqual([1, 8]);
    expect(blocks.between).toBeCloseTo(2 * 5 * 0.025 ** 2, 12);
    expect(blocks.within).toBeCloseTo(2e-3, 12);
    // A change between the two blocks: each is its segment's level, nothing between.
    const apart = nightVariogram(pointsAt(means.slice(3)), { changes: [5] }).blocks;
    expect([apart.between, apart.dfBetween, apart.dfWithin]).toEqual([0, 0, 8]);
  });
});

describe('the run-to-run variance of one run a night', () => {
  /** Nights whose log means step by `steps` from 0. */
  const stepping = (steps: readonly number[]) =>
    pointsAt(steps.reduce((means, d) => [...means, means[means.length - 1]! + d], [0]));
  // E[X | X ≤ its q quantile] of chi-square(1), by numerical integration: the trimmed
  // mean of the squared differences over the whole one.
  const TRIMMED_MEAN_90 = 0.623015485;
  const TRIMMED_MEAN_50 = 0.142651836;

  it('is half the mean square of consecutive differences, the largest tenth left out and made up for', () => {
    const steps = [0.01, -0.02, 0.01, 0.03, -0.01, 0.02, -0.01, 0.015, -0.02, 0.2];
    const kept = steps
      .map((d) => d * d)
      .sort((a, b) => a - b)
      .slice(0, 9);
    const expected = kept.reduce((s, v) => s + v, 0) / 9 / TRIMMED_MEAN_90 / 2;
    expect(nightVariogram(stepping(steps)).sigma2 / expected).toBeCloseTo(1, 5);
  });

  it('keeps the smaller of two differences, and the one of two nights whole', () => {
    const two = nightVariogram(stepping([0.02, -0.05])).sigma2;
    expect(two / (0.02 ** 2 / TRIMMED_MEAN_50 / 2)).toBeCloseTo(1, 5);
    expect(nightVariogram(stepping([0.03])).sigma2).toBeCloseTo(0.03 ** 2 / 2, 12);
  });
});

describe('driftPValue', () => {
  const series = (between: number, dfBetween: number, within: number, dfWithin: number) =>
    ({ between, dfBetween, within, dfWithin }) satisfies BlockVariance;

  it('is the upper tail of F at the ratio of the mean squares', () => {
    // F(2, 10) at 3: (1 + 0.6)^−5.
    expect(driftPValue([series(6, 2, 10, 10)])).toBeCloseTo(upperTailF2(3, 10), 9);
    expect(driftPValue([series(6, 2, 10, 10)])).toBeCloseTo(0.0953674, 6);
    // Equal degrees of freedom and mean squares: F = 1, the median.
    expect(driftPValue([series(8, 8, 8, 8)])).toBeCloseTo(0.5, 9);
  });

  it('weighs each series by its own within-block spread, so any spread counts alike', () => {
    const one = series(6, 2, 10, 10);
    const louder = series(6000, 2, 10000, 10);
    // Two alike series: F(4, 20) at 3, as one series of twice the blocks.
    const both = driftPValue([one, louder]);
    expect(both).toBeCloseTo(driftPValue([series(12, 4, 20, 20)]), 12);
    expect(both).toBeLessThan(driftPValue([one]));
  });

  it('leaves out a series of fewer than 2 degrees between blocks or no spread within them', () => {
    const one = series(6, 2, 10, 10);
    const p = driftPValue([one]);
    expect(driftPValue([one, series(50, 1, 10, 5)])).toBeCloseTo(p, 12);
    expect(driftPValue([one, series(50, 3, 0, 5)])).toBeCloseTo(p, 12);
    // Nothing left to test: no evidence of a drift.
    expect(driftPValue([series(50, 1, 10, 5)])).toBe(1);
    expect(driftPValue([])).toBe(1);
  });
});
