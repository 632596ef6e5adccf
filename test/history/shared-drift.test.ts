import { describe, expect, it } from 'vitest';
import { detectEverySeries } from '../../src/history/analyze.js';
import { detectChangePoints } from '../../src/history/changepoints.js';
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
