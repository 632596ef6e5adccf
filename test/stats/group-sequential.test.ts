// The chance that any of the nested looks of the confirmation runs raises a false alarm
// (stats/group-sequential.ts), against reference values of the multivariate normal (scipy's
// Genz integration, 4 looks of 3, 5, 8 and 13 runs) and a seeded simulation of the looks.
import { describe, expect, it } from 'vitest';
import { normalQuantile, normalUpperTail } from '../../src/stats/distributions.js';
import { crossingProbability, lastLookLevel } from '../../src/stats/group-sequential.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

/** Information of looks at `runs` current runs against a shared baseline of `baseline` runs. */
const information = (runs: number[], baseline = Infinity) =>
  runs.map((n) => 1 / (1 / n + 1 / baseline));

describe('the normal upper tail', () => {
  it('keeps its relative accuracy far out in the tail', () => {
    // R: pnorm(c(0, 1.959964, 3, 5, 8), lower.tail = FALSE)
    expect(normalUpperTail(0)).toBeCloseTo(0.5, 7);
    expect(normalUpperTail(1.959964) / 0.025).toBeCloseTo(1, 5);
    expect(normalUpperTail(3) / 0.0013498980316301).toBeCloseTo(1, 6);
    expect(normalUpperTail(5) / 2.866515718791939e-7).toBeCloseTo(1, 6);
    expect(normalUpperTail(8) / 6.220960574271784e-16).toBeCloseTo(1, 6);
    expect(normalUpperTail(-3)).toBeCloseTo(1 - 0.0013498980316301, 9);
    expect(normalUpperTail(normalQuantile(1 - 0.00125)) / 0.00125).toBeCloseTo(1, 6);
  });
});

describe('the chance that any look crosses its bound', () => {
  it('matches the multivariate normal', () => {
    // scipy.stats.multivariate_normal, correlations √(n_j / n_k) (no baseline noise).
    expect(
      crossingProbability(information([3, 13]), [0.001, 0.002])! / 0.00292252773590318,
    ).toBeCloseTo(1, 4);
    expect(
      crossingProbability(information([3, 5, 8, 13]), [0.0005, 0.0005, 0.0005, 0.0015])! /
        0.0025281172295619214,
    ).toBeCloseTo(1, 4);
  });

  it('is the level of a single look, and between the largest level and the sum of them', () => {
    expect(crossingProbability([1], [0.003])! / 0.003).toBeCloseTo(1, 6);
    const levels = [0.001, 0.001, 0.001, 0.002];
    const p = crossingProbability(information([3, 5, 8, 13], 15), levels)!;
    expect(p).toBeGreaterThan(0.002);
    expect(p).toBeLessThan(0.005);
    // More alike looks (a larger baseline share of the variance) cross together more often.
    expect(p).toBeLessThan(crossingProbability(information([3, 5, 8, 13]), levels)!);
  });

  it('has no answer for looks of equal information, whose sum of levels still bounds it', () => {
    expect(crossingProbability([1, 1], [0.001, 0.001])).toBeUndefined();
    expect(lastLookLevel([1, 1], [0.001], 0.002)).toBeUndefined();
    // Nor for a look with less information than the one before: not a sequence of looks.
    expect(crossingProbability([2, 1], [0.001, 0.001])).toBeUndefined();
    expect(crossingProbability([1, 3, 2], [0.001, 0.001, 0.001])).toBeUndefined();
    expect(lastLookLevel([1, 3, 2], [0.001, 0.001], 0.003)).toBeUndefined();
    // Looks and levels that do not pair up are a caller's mistake, said as such.
    expect(() => crossingProbability([1, 2], [0.001])).toThrow('a level for every look');
    expect(() => lastLookLevel([1, 2], [], 0.002)).toThrow('one more look than early levels');
    expect(() => lastLookLevel([1, 2], [0.002], 0.002)).toThrow('spend the whole level');
  });
});

describe("the last look's level", () => {
  it('spends what the correlation of the looks leaves unspent', () => {
    const total = 0.0025;
    const early = [total / 6, total / 6, total / 6];
    const looks = information([3, 5, 8, 13]);
    const last = lastLookLevel(looks, early, total)!;
    // scipy: bisection of the multivariate normal's crossing, 0.66518 of the total.
    expect(last / total).toBeCloseTo(0.66518, 3);
    expect(crossingProbability(looks, [...early, last])! / total).toBeCloseTo(1, 5);
    // A shared baseline of 15 runs makes the looks more alike: more is left for the last.
    const shared = lastLookLevel(information([3, 5, 8, 13], 15), early, total)!;
    expect(shared).toBeGreaterThan(last);
    expect(shared).toBeLessThan(total);
    expect(lastLookLevel([1], [], total)).toBe(total);
  });

  it('keeps the chance of any false alarm at the total in a simulation of the looks', () => {
    // 3 current runs, then 5, 8 and 13, against 15 baseline runs, z tests (known σ): the
    // looks of the confirmation runs with no change. At these levels Bonferroni's split
    // gives about 0.83 of the total; the computed last look brings it to the total.
    const total = 0.02;
    const runs = [3, 5, 8, 13];
    const early = [total / 6, total / 6, total / 6];
    const last = lastLookLevel(information(runs, 15), early, total)!;
    const bounds = [...early, last].map((level) => normalQuantile(1 - level));
    const bonferroni = [...early, total / 2].map((level) => normalQuantile(1 - level));
    const random = seededRandom('looks');
    const pairs = 100000;
    let crossed = 0;
    let crossedBonferroni = 0;
    for (let i = 0; i < pairs; i += 1) {
      let baseline = 0;
      for (let j = 0; j < 15; j += 1) baseline += normal(random);
      baseline /= 15;
      let sum = 0;
      let n = 0;
      let any = false;
      let anyBonferroni = false;
      for (const [k, look] of runs.entries()) {
        for (; n < look; n += 1) sum += normal(random);
        const z = (sum / n - baseline) / Math.sqrt(1 / n + 1 / 15);
        if (z > bounds[k]!) any = true;
        if (z > bonferroni[k]!) anyBonferroni = true;
      }
      if (any) crossed += 1;
      if (anyBonferroni) crossedBonferroni += 1;
    }
    const se = Math.sqrt((total * (1 - total)) / pairs);
    expect(Math.abs(crossed / pairs - total)).toBeLessThan(3.5 * se);
    expect(crossedBonferroni / pairs).toBeLessThan(total - 5 * se);
  });
});
