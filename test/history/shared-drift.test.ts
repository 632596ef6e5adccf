import { describe, expect, it } from 'vitest';
import { detectEverySeries } from '../../src/history/analyze.js';
import { detectChangePoints } from '../../src/history/changepoints.js';
import {
  effectAtPhiByLikelihood,
  restrictedLogLikelihood,
} from '../../src/history/night-likelihood.js';
import { nightModel, nightVariogram } from '../../src/history/night-model.js';
import type { Series } from '../../src/history/series.js';
import { sharedDrift } from '../../src/history/shared-drift.js';
import { makeSeries, type NightPlan } from './make-series.js';

/** A gate of `count` series of one plan, each with its own noise (benchmarks b0, b1, …). */
function gate(count: number, plan: NightPlan, seed: string): Series[] {
  return Array.from({ length: count }, (_, k) => ({
    ...makeSeries({ ...plan, seed: `${seed}-${k}` }),
    id: `gate · b${k} · latency_p50 · any`,
    benchmark: `b${k}`,
  }));
}

const drifting: NightPlan = { nights: 30, runs: 24, runCv: 0.05, nightCv: 0.01, nightPhi: 0.8 };

describe('sharedDrift', () => {
  it('sees in a gate the drift that 30 nights of one series cannot show', () => {
    let own = 0;
    let shared = 0;
    for (let g = 0; g < 10; g += 1) {
      const series = gate(5, drifting, `drift-${g}`);
      own += series.filter((s) => nightModel(s.points).phi >= 0.5).length / series.length;
      const drift = sharedDrift(series.map((s) => nightVariogram(s.points)));
      if (drift && drift.phi >= 0.5) shared += 1;
    }
    // Alone, most series look independent; together, most gates show the drift.
    expect(own / 10).toBeLessThan(0.5);
    expect(shared).toBeGreaterThanOrEqual(7);
  });

  it('rarely finds a drift in a gate whose nights are independent', () => {
    let found = 0;
    for (let g = 0; g < 30; g += 1) {
      const series = gate(5, { ...drifting, nightPhi: 0, nights: 60 }, `iid-${g}`);
      if (sharedDrift(series.map((s) => nightVariogram(s.points)))) found += 1;
    }
    // The evidence test is taken at p 0.2: about one gate in five.
    expect(found).toBeLessThanOrEqual(10);
  });

  it('leaves a series on its own fit when it has no companion with a variogram', () => {
    const [series] = gate(1, drifting, 'alone');
    expect(sharedDrift([nightVariogram(series!.points)])).toBeUndefined();
    expect(sharedDrift([])).toBeUndefined();
  });

  it('keeps a slowdown every series of a gate shares from passing for a shared drift', () => {
    // One slow commit moves every benchmark: 5% at 3 runs a night is under the first
    // pass's "large", so a drift fitted across it would hide it in every series.
    let alone = 0;
    let together = 0;
    for (let g = 0; g < 20; g += 1) {
      const plan = {
        nights: 50,
        runCv: 0.03,
        nightCv: 0.01,
        level: (n: number) => (n >= 30 ? 1.05 : 1),
      };
      const series = gate(3, plan, `step-${g}`);
      const named = (cps: { firstBad: { index: number }; direction: string }[]) =>
        cps.some((cp) => cp.direction === 'regression' && Math.abs(cp.firstBad.index - 30) <= 1);
      alone += series.filter((s) => named(detectChangePoints(s).changePoints)).length;
      together += detectEverySeries(series).filter((a) => named(a.changePoints)).length;
    }
    expect(alone).toBeGreaterThanOrEqual(30);
    expect(together).toBeGreaterThanOrEqual(alone - 3);
  });

  it('raises fewer false change points on drifting nights in a gate than alone', () => {
    let alone = 0;
    let together = 0;
    for (let g = 0; g < 8; g += 1) {
      const series = gate(4, { ...drifting, nights: 45 }, `null-${g}`);
      for (let n = 20; n <= 45; n += 5) {
        const upTo = series.map((s) => ({ ...s, points: s.points.slice(0, n) }));
        alone += upTo.reduce((sum, s) => sum + detectChangePoints(s).changePoints.length, 0);
        together += detectEverySeries(upTo).reduce((sum, a) => sum + a.changePoints.length, 0);
      }
    }
    expect(together).toBeLessThan(alone);
  });
});

describe("the gate's night effect as each series' floor", () => {
  const slow: NightPlan = { nights: 40, runs: 24, runCv: 0.05, nightCv: 0.01, nightPhi: 0.95 };

  it('fits tau² of a slow drift from the whole gate where one series comes out low', () => {
    // At phi 0.95, 40 nights of one series are two or three independent ones.
    let ownLow = 0;
    let gateLow = 0;
    let gateSum = 0;
    let gates = 0;
    for (let g = 0; g < 12; g += 1) {
      const variograms = gate(3, slow, `tau-${g}`).map((s) => nightVariogram(s.points));
      const drift = sharedDrift(variograms);
      if (!drift) continue;
      gates += 1;
      gateSum += drift.tau2! / 1e-4;
      if (drift.tau2! < 0.5e-4) gateLow += 1;
      for (const v of variograms) {
        if (effectAtPhiByLikelihood(v.data, drift.phi).tau2 < 0.5e-4) ownLow += 1;
      }
    }
    expect(gates).toBeGreaterThanOrEqual(9);
    // tau² is 1e-4 (night CV 1%): the gate's within a factor 2 on average, and below half
    // of it in far fewer gates than a series alone is (measured: 0.87 on average; below
    // half in 2 of 12 gates, against 12 of their 36 series at the gate's phi).
    expect(gateSum / gates).toBeGreaterThan(0.5);
    expect(gateSum / gates).toBeLessThan(2);
    expect(gateLow / gates).toBeLessThan(ownLow / (3 * gates) - 0.1);
  });

  it("raises a series whose own tau² comes out below its gate's to the gate's, at its phi", () => {
    // Night CV 1% (tau² 1e-4), its own fit at phi 0.9 far lower by chance: its 40 nights
    // cannot reject the gate's 1.5e-4, so it takes it.
    const series = makeSeries({ ...slow, seed: 'like-1' });
    const own = nightModel(series.points, { shared: { phi: 0.9 } });
    const floored = nightModel(series.points, { shared: { phi: 0.9, tau2: 1.5e-4 } });
    expect(own.tau2).toBeLessThan(0.2e-4);
    expect(floored.tau2).toBe(1.5e-4);
    expect(floored.phi).toBe(0.9);
    const above = nightModel(series.points, { shared: { phi: 0.9, tau2: own.tau2 / 2 } });
    expect(above.tau2).toBe(own.tau2);
  });

  it('floors a series its nights show quieter than its gate only to the largest tau² they allow', () => {
    // Night CV 0.2% beside a gate of 2% (tau² 4e-4): its nights reject the gate's, so it
    // takes the tau² where its restricted likelihood has dropped by the one-sided 95%
    // bound (2.71 on the 2 log-likelihood scale), no lower.
    const series = makeSeries({ ...slow, nightCv: 0.002, seed: 'quiet-0' });
    const own = nightModel(series.points, { shared: { phi: 0.9 } });
    const floored = nightModel(series.points, { shared: { phi: 0.9, tau2: 4e-4 } });
    expect(floored.tau2).toBeGreaterThan(own.tau2);
    expect(floored.tau2).toBeLessThan(2e-4);
    expect(floored.phi).toBe(0.9);
    const { data } = nightVariogram(series.points);
    const drop = (tau2: number) =>
      2 * (restrictedLogLikelihood(data, own.tau2, 0.9) - restrictedLogLikelihood(data, tau2, 0.9));
    expect(drop(floored.tau2)).toBeCloseTo(2.706, 1);
    expect(drop(floored.tau2)).toBeLessThanOrEqual(2.706);
  });

  it("raises fewer false change points on slowly drifting nights than each series' own tau² would", () => {
    // 15 gates of 3 unchanged series drifting at phi 0.95 (night CV 1%, run CV 3%), looked
    // at every 4th night from the 20th to the 60th: every change point is a false one.
    // Measured: 25 with the gate's floor, 37 at the gate's phi with each series' own tau².
    let floored = 0;
    let own = 0;
    for (let g = 0; g < 15; g += 1) {
      const series = gate(3, { ...slow, nights: 60, runCv: 0.03 }, `slow-drift-${g}`);
      for (let n = 20; n <= 60; n += 4) {
        const upTo = series.map((s) => ({ ...s, points: s.points.slice(0, n) }));
        for (const analysis of detectEverySeries(upTo)) {
          floored += analysis.changePoints.length;
          const phiOnly = analysis.sharedDrift && { phi: analysis.sharedDrift.phi };
          own += detectChangePoints(analysis.series, {}, phiOnly).changePoints.length;
        }
      }
    }
    expect(floored).toBeLessThanOrEqual(own * 0.85);
  });
});
