import { describe, expect, it } from 'vitest';
import { DEFAULT_DETECT_OPTIONS } from '../../src/history/changepoints.js';
import { algebraOf, nightModel } from '../../src/history/night-model.js';
import { creepTest, tailTest } from '../../src/history/newest-nights.js';
import type { Direction } from '../../src/model.js';
import { seededRandom } from '../../src/stats/rng.js';
import { makeSeries, type NightPlan } from './make-series.js';

/** Nights of 24 runs at run CV 5% with an AR(1) night effect (1% CV, phi 0.8 unless said). */
const driftingSeries = (seed: string, nights: number, more: Partial<NightPlan> = {}) =>
  makeSeries({ nights, runs: 24, runCv: 0.05, nightCv: 0.01, nightPhi: 0.8, seed, ...more });

// The creep detector on its own (the segmentation finds most creeps by itself later, so
// the whole detector's tests cannot tell which way the creep test looks).
describe('creepTest', () => {
  // Five 1% steps, one every 4 nights from night 12: 5% in all by the last 3 nights.
  const steps = (n: number) => (n < 12 ? 0 : Math.min(5, Math.floor((n - 12) / 4) + 1));
  const found = (factor: number, direction: Direction) => {
    let count = 0;
    for (let s = 0; s < 20; s += 1) {
      const series = makeSeries({
        nights: 34,
        runs: 10,
        runCv: 0.02,
        direction,
        level: (n) => factor ** steps(n),
        seed: `creep-test-${s}`,
      });
      const model = nightModel(series.points, { consecutiveOnly: true });
      const finding = creepTest(model, algebraOf(model), 0, 34, direction, DEFAULT_DETECT_OPTIONS);
      if (finding) count += 1;
    }
    return count;
  };

  it('flags a slow decline of a higher-is-better metric, not a slow rise', () => {
    expect(found(0.99, 'higher-is-better')).toBeGreaterThanOrEqual(18);
    expect(found(1.01, 'higher-is-better')).toBe(0);
  });

  it('flags a slow rise of a lower-is-better metric, not a slow decline', () => {
    expect(found(1.01, 'lower-is-better')).toBeGreaterThanOrEqual(18);
    expect(found(0.99, 'lower-is-better')).toBe(0);
  });
});

// The tail test on nights that drift: its z leans on tau², which a few dozen drifting
// nights estimate poorly, so it is read as a t statistic (estimated-variance.ts).
describe('tailTest on drifting nights', () => {
  it('keeps its false alarms near its rate when tau² rests on few nights', () => {
    let alarms = 0;
    let looks = 0;
    for (let s = 0; s < 40; s += 1) {
      const series = driftingSeries(`tail-drift-${s}`, 40);
      for (let n = 20; n <= 40; n += 1) {
        const model = nightModel(series.points.slice(0, n));
        if (tailTest(model, algebraOf(model), 0, n, DEFAULT_DETECT_OPTIONS)) alarms += 1;
        looks += 1;
      }
    }
    // Both directions at tailAlpha each would be about 2 × 0.9% of 840 looks, 15, were
    // the variance known; alone, a series rarely shows its drift, so more come (26).
    // Read as normal z scores they were 48.
    expect(looks).toBe(840);
    expect(alarms).toBeLessThanOrEqual(30);
  });
});

// At a gate's phi, tau² comes from the likelihood (night-likelihood.ts) and the tail test
// is decided by nights drawn from the model, each draw's tau² fitted again
// (refitted-draws.ts): both directions together at tailAlpha.
describe('tailTest decided by refitted draws', () => {
  it('keeps its false alarms, both directions together, near tailAlpha', () => {
    let drawn = 0;
    let read = 0;
    let looks = 0;
    for (let s = 0; s < 40; s += 1) {
      const series = driftingSeries(`tail-drawn-${s}`, 40);
      for (let n = 20; n <= 40; n += 1) {
        const model = nightModel(series.points.slice(0, n), { shared: { phi: 0.8 } });
        const algebra = algebraOf(model);
        const random = seededRandom(`draws-${s}-${n}`);
        if (tailTest(model, algebra, 0, n, DEFAULT_DETECT_OPTIONS, random)) drawn += 1;
        if (tailTest(model, algebra, 0, n, DEFAULT_DETECT_OPTIONS)) read += 1;
        looks += 1;
      }
    }
    // tailAlpha (0.9%) of 840 looks is 7.6 (11 here); read as t at the same variance,
    // each direction at tailAlpha, 12: the t reading is itself near its rate at a known
    // phi, and the draws halve the rate the tail test allows itself on drifting nights.
    expect(looks).toBe(840);
    expect(drawn).toBeLessThanOrEqual(14);
    expect(drawn).toBeLessThanOrEqual(read);
  });
});

describe('tailTest decided by refitted draws, on a step', () => {
  it('still names a 6% step by its 2nd night on drifting nights', () => {
    let found = 0;
    for (let s = 0; s < 20; s += 1) {
      const series = driftingSeries(`tail-step-${s}`, 42, { level: (n) => (n >= 40 ? 1.06 : 1) });
      const model = nightModel(series.points, { shared: { phi: 0.8 } });
      const random = seededRandom(`step-${s}`);
      const finding = tailTest(model, algebraOf(model), 0, 42, DEFAULT_DETECT_OPTIONS, random);
      if (finding?.index === 40) found += 1;
    }
    // A 6% step is 4 night-effect deviations, but nights 40 and 41 are no more than two
    // draws of a drift that wanders by one or two: about half are named (11 of 20 here).
    expect(found).toBeGreaterThanOrEqual(9);
  });
});

// The draws are for nights whose effect the fit shows (tau² at least one standard error
// above 0): at a gate's phi, independent nights still get tau² above 0 on about half of
// the series, and the draws, more cautious than the t reading, would cost their steps.
describe('tailTest draws only where the night effect is shown', () => {
  const drawsTaken = (nightCv: number, nightPhi: number) => {
    let taken = 0;
    let looks = 0;
    for (let s = 0; s < 30; s += 1) {
      const series = driftingSeries(`tail-shown-${nightCv}-${s}`, 42, {
        nightCv,
        nightPhi,
        level: (n) => (n >= 40 ? 1.03 : 1),
      });
      const model = nightModel(series.points, { shared: { phi: 0.5 } });
      let used = false;
      const base = seededRandom(`shown-${s}`);
      const random = { next: () => ((used = true), base.next()) };
      tailTest(model, algebraOf(model), 0, 42, DEFAULT_DETECT_OPTIONS, random);
      if (used) taken += 1;
      looks += 1;
    }
    return { taken, looks };
  };

  it('leaves independent nights to the t reading and draws on drifting ones', () => {
    const independent = drawsTaken(0, 0);
    const drifting = drawsTaken(0.02, 0.8);
    expect(independent.looks).toBe(30);
    // A 3% step at 24 runs a night passes the normal threshold on most series, so the
    // draws are called wherever they decide: 2 of 30 independent series (7 when any
    // tau² above 0 lets them), 9 of 30 drifting ones.
    expect(independent.taken).toBeLessThanOrEqual(3);
    expect(drifting.taken).toBeGreaterThanOrEqual(6);
  });
});
