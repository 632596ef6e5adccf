import { describe, expect, it } from 'vitest';
import { DEFAULT_DETECT_OPTIONS } from '../../src/history/changepoints.js';
import { algebraOf, nightModel } from '../../src/history/night-model.js';
import { creepTest } from '../../src/history/newest-nights.js';
import type { Direction } from '../../src/model.js';
import { makeSeries } from './make-series.js';

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
