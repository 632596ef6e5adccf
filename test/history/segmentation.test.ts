// How segmentation.ts decides a split: by resampling from SMALL_SEGMENT (20) nights on,
// by the normal p-value of the best split times the splits tried below that.
import { describe, expect, it } from 'vitest';
import { NightAlgebra, type NightModel } from '../../src/history/night-model.js';
import { bestSplit, segment } from '../../src/history/segmentation.js';
import { normalUpperTail } from '../../src/stats/distributions.js';
import { seededRandom } from '../../src/stats/rng.js';

const RUN_SD = 0.02;
const RUNS = 4;
const SETTINGS = { alpha: 0.005, permutations: 199, minNights: 2 };

/** Nights of RUNS runs, no night effect, a step of `step` from night `at` on, a small wobble. */
function stepModel(nights: number, at: number, step: number): NightModel {
  const mean = Float64Array.from({ length: nights }, (_, i) => {
    const wobble = ((i % 3) - 1) * 0.2 * (RUN_SD / Math.sqrt(RUNS));
    return wobble + (i >= at ? step : 0);
  });
  return {
    mean,
    runs: new Int32Array(nights).fill(RUNS),
    log: true,
    scale: 1,
    sigma2: RUN_SD ** 2,
    tau2: 0,
    phi: 0,
    tau2Error: 0,
    weight: new Float64Array(nights).fill(RUNS / RUN_SD ** 2),
    fittedBy: 'variogram',
    runners: {
      offset: new Float64Array(nights),
      effect: { of: new Int32Array(nights).fill(-1), variance: [] },
      runners: [],
    },
  } as NightModel;
}

function setUp(nights: number, at: number, step: number) {
  const model = stepModel(nights, at, step);
  const white = new Float64Array(nights).fill(RUN_SD ** 2 / RUNS);
  return { model, algebra: new NightAlgebra(model, model.weight, white) };
}

function splitsOf(nights: number, at: number, step: number) {
  const { model, algebra } = setUp(nights, at, step);
  return segment(model, algebra, 0, nights, SETTINGS, seededRandom('segments'));
}

describe('segment', () => {
  it('tests a split of 20 nights or more by shuffling them, its p-value one of the draws', () => {
    const [split] = splitsOf(20, 10, 0.04);
    expect(split!.index).toBe(10);
    // No shuffle of so clear a step comes near it: the smallest p-value 199 draws give.
    expect(split!.pValue).toBe(1 / 200);
  });

  it('counts the splits of a segment that starts later, not of the nights before it', () => {
    // Nights 5 to 24 of 24: 19 nights, 16 splits, tested by the normal p-value as from 0.
    const { model, algebra } = setUp(24, 15, 0.02);
    const [split, ...rest] = segment(model, algebra, 5, 24, SETTINGS, seededRandom('later'));
    expect(rest).toEqual([]);
    expect(split!.index).toBe(15);
    const best = bestSplit(algebra, 5, model.mean.subarray(5, 24), SETTINGS.minNights);
    expect(split!.pValue / (32 * normalUpperTail(best.z))).toBeCloseTo(1, 9);
  });

  it('splits a segment of twice minNights nights at its middle, and none shorter', () => {
    // A 20% step, far beyond the runs' noise: the one split of 4 nights is kept.
    const [split, ...rest] = splitsOf(4, 2, 0.2);
    expect(rest).toEqual([]);
    expect(split!.index).toBe(2);
    expect(split!.pValue).toBeLessThan(1e-6);
    expect(splitsOf(3, 2, 0.2)).toEqual([]);
  });

  it('tests a split of fewer nights by its normal p-value times the splits tried', () => {
    const [split] = splitsOf(19, 10, 0.04);
    expect(split!.index).toBe(10);
    // Below any shuffle's 1/200: a 4% step against night means of 1% SD, z about 8.
    expect(split!.pValue).toBeLessThan(1e-6);
    // A 2% step, z about 4.4: 16 splits (nights 2 to 17) tried, each two-sided. (The runs'
    // variance known, the night effect nil: the z is its own normal score.)
    const { model, algebra } = setUp(19, 10, 0.02);
    const best = bestSplit(algebra, 0, model.mean, SETTINGS.minNights);
    expect(best.index).toBe(10);
    const [kept] = splitsOf(19, 10, 0.02);
    expect(kept!.pValue).toBeLessThan(SETTINGS.alpha);
    expect(kept!.pValue / (32 * normalUpperTail(best.z))).toBeCloseTo(1, 9);
  });
});

describe('bestSplit', () => {
  it('leaves at least minNights nights on either side, however far an end night lies', () => {
    const { algebra } = setUp(10, 5, 0);
    const last = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    expect(bestSplit(algebra, 0, last, 2).index).toBe(8);
    expect(bestSplit(algebra, 0, [...last].reverse(), 2).index).toBe(2);
    expect(bestSplit(algebra, 0, last, 3).index).toBe(7);
    // Too few nights for both sides: no split.
    expect(bestSplit(algebra, 0, [0, 1, 0], 2).index).toBe(-1);
  });
});
