// The short-regression test of segmentation.ts (bumpIn): a few nights on another level in
// the middle of a segment must stand LARGE_BUMP (3) median night standard deviations
// from the rest, however many nights make its z pass the Bonferroni bound, since a drift
// wanders a night deviation or two up and back.
import { describe, expect, it } from 'vitest';
import { NightAlgebra, type NightModel } from '../../src/history/night-model.js';
import { segment } from '../../src/history/segmentation.js';
import { normalUpperTail } from '../../src/stats/distributions.js';
import { seededRandom } from '../../src/stats/rng.js';

const RUN_SD = 0.02;
const NIGHTS = 40;
// Nights 14–19 are the bump's, 2 runs each (SD 1.41%, so that clipping each night to 3 of
// its own deviations leaves a bump of 3.5 median ones whole); night 20 has 1 run (SD 2%),
// every fourth other night 6, the rest 3 (SD 1.155%, the median night's). Unsorted, night
// 20's deviation would stand in the middle.
const BUMP = [14, 20] as const;
const runs = Array.from({ length: NIGHTS }, (_, i) => {
  if (i >= BUMP[0] && i < BUMP[1]) return 2;
  if (i === 20) return 1;
  return i % 4 === 0 ? 6 : 3;
});
const MEDIAN_SD = RUN_SD / Math.sqrt(3);

/** A night model of these runs with no night effect, level 0 but for the bump. */
function bumpModel(height: number): NightModel {
  const weight = Float64Array.from(runs, (r) => r / RUN_SD ** 2);
  // Nights alternate a tenth of their deviation around the level, so no two are alike.
  const mean = Float64Array.from(runs, (r, i) => {
    const wobble = ((i % 2) * 2 - 1) * 0.1 * (RUN_SD / Math.sqrt(r));
    return wobble + (i >= BUMP[0] && i < BUMP[1] ? height : 0);
  });
  return {
    mean,
    runs: Int32Array.from(runs),
    log: true,
    scale: 1,
    sigma2: RUN_SD ** 2,
    tau2: 0,
    phi: 0,
    tau2Error: 0,
    weight,
    fittedBy: 'variogram',
    runners: {
      offset: new Float64Array(NIGHTS),
      effect: { of: new Int32Array(NIGHTS).fill(-1), variance: [] },
      runners: [],
    },
  };
}

function splits(heightInMedianSds: number) {
  const model = bumpModel(heightInMedianSds * MEDIAN_SD);
  const algebra = new NightAlgebra(
    model,
    model.weight,
    Float64Array.from(runs, (r) => RUN_SD ** 2 / r),
  );
  const settings = { alpha: 0.005, permutations: 199, minNights: 2 };
  return {
    model,
    algebra,
    found: segment(model, algebra, 0, NIGHTS, settings, seededRandom('bump')),
  };
}

function changePoints(heightInMedianSds: number): number[] {
  return splits(heightInMedianSds).found.map((s) => s.index);
}

describe('a short regression in the middle of a segment', () => {
  it('is found when it stands 3.5 median night deviations high', () => {
    expect(changePoints(3.5)).toEqual([...BUMP]);
  });

  it('has the normal p-value of its z times the bumps tried: every [a, b) with each side and it 2 nights or more', () => {
    const { model, algebra, found } = splits(3.5);
    const [a, b] = BUMP;
    const sum = (from: number, to: number, f: (i: number) => number) =>
      Array.from({ length: to - from }, (_, k) => f(from + k)).reduce((s, v) => s + v, 0);
    const w = (i: number) => model.weight[i]!;
    const wm = (i: number) => model.weight[i]! * model.mean[i]!;
    const inside = sum(a, b, w);
    const outside = sum(0, NIGHTS, w) - inside;
    const diff = sum(a, b, wm) / inside - (sum(0, NIGHTS, wm) - sum(a, b, wm)) / outside;
    const ranges: [number, number][] = [
      [0, a],
      [a, b],
      [b, NIGHTS],
    ];
    const z =
      Math.abs(diff) /
      Math.sqrt(algebra.variance(ranges, [-1 / outside, 1 / inside, -1 / outside]));
    // a from 2 to 36, b from a + 2 to 38: 35 + 34 + … + 1 = 630 bumps.
    for (const split of found)
      expect(split.pValue / (630 * 2 * normalUpperTail(z))).toBeCloseTo(1, 9);
  });

  it('is found as well in a segment that starts later', () => {
    const { model, algebra } = splits(3.5);
    const settings = { alpha: 0.005, permutations: 199, minNights: 2 };
    const found = segment(model, algebra, 4, NIGHTS, settings, seededRandom('later bump'));
    expect(found.map((s) => s.index)).toEqual([...BUMP]);
  });

  it('is no change at 2.5 median night deviations, though six nights make its z pass Bonferroni', () => {
    // z of the bump's mean against the rest: 2.5 × 1.155% / √(1.41%² / 6 + …) ≈ 4.9, a
    // p-value of about 0.001 over the ~600 bumps tried, under alpha 0.005.
    expect(changePoints(2.5)).toEqual([]);
  });
});
