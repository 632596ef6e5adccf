// The short-regression test of segmentation.ts (bumpIn): a few nights on another level in
// the middle of a segment must stand LARGE_BUMP (3) median night standard deviations
// from the rest, however many nights make its z pass the Bonferroni bound, since a drift
// wanders a night deviation or two up and back.
import { describe, expect, it } from 'vitest';
import { NightAlgebra, type NightModel } from '../../src/history/night-model.js';
import { segment } from '../../src/history/segmentation.js';
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

function changePoints(heightInMedianSds: number): number[] {
  const model = bumpModel(heightInMedianSds * MEDIAN_SD);
  const algebra = new NightAlgebra(
    model,
    model.weight,
    Float64Array.from(runs, (r) => RUN_SD ** 2 / r),
  );
  const settings = { alpha: 0.005, permutations: 199, minNights: 2 };
  return segment(model, algebra, 0, NIGHTS, settings, seededRandom('bump')).map((s) => s.index);
}

describe('a short regression in the middle of a segment', () => {
  it('is found when it stands 3.5 median night deviations high', () => {
    expect(changePoints(3.5)).toEqual([...BUMP]);
  });

  it('is no change at 2.5 median night deviations, though six nights make its z pass Bonferroni', () => {
    // z of the bump's mean against the rest: 2.5 × 1.155% / √(1.41%² / 6 + …) ≈ 4.9, a
    // p-value of about 0.001 over the ~600 bumps tried, under alpha 0.005.
    expect(changePoints(2.5)).toEqual([]);
  });
});
