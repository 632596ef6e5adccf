import { describe, expect, it } from 'vitest';
import {
  loadSlope,
  MIN_LOAD_POINTS,
  MIN_LOAD_SPREAD,
  type LoadPoint,
} from '../../src/stats/load-slope.js';

/** Points at `loads`, level = slope × load + a deterministic scatter of ± `noise`. */
function points(loads: number[], slope: number, noise: number): LoadPoint[] {
  return loads.map((load, i) => ({ load, level: slope * load + noise * Math.sin(2.3 * i + 1) }));
}

const SPREAD_LOADS = [0.02, 0.05, 0.03, 0.4, 0.04, 0.01, 0.3, 0.06, 0.5, 0.03];

describe('loadSlope', () => {
  it('finds a clear slope, shrunk hardly at all', () => {
    const slope = loadSlope(points(SPREAD_LOADS, 0.1, 0.002))!;
    expect(slope.estimate).toBeCloseTo(0.1, 2);
    expect(slope.slope).toBeGreaterThan(0.095);
    expect(slope.slope).toBeLessThanOrEqual(slope.estimate);
    expect(slope.range).toEqual([0.01, 0.5]);
    expect(slope.points).toBe(SPREAD_LOADS.length);
  });

  it('shrinks an uncertain slope towards zero by b̂(1 − se²/b̂²)', () => {
    const slope = loadSlope(points(SPREAD_LOADS, 0.03, 0.01))!;
    const t = slope.estimate / slope.standardError;
    expect(t).toBeGreaterThan(1);
    expect(t).toBeLessThan(6);
    expect(slope.slope).toBeCloseTo(slope.estimate * (1 - 1 / t ** 2), 12);
  });

  it('credits nothing to a slope within its standard error, or below zero', () => {
    // Busy gate runs 0.5% slower on average, scattered by ±1–1.5%: b̂ 0.01, se 0.036.
    const within = loadSlope([
      { load: 0, level: 0 },
      { load: 0, level: 0.02 },
      { load: 0.5, level: 0 },
      { load: 0.5, level: 0.03 },
    ])!;
    expect(within.estimate).toBeCloseTo(0.01, 12);
    expect(Math.abs(within.estimate)).toBeLessThan(within.standardError);
    expect(within.slope).toBe(0);
    expect(loadSlope(points(SPREAD_LOADS, -0.1, 0.002))!.slope).toBe(0);
  });

  it('teaches nothing from loads that hardly vary, or from too few gate runs', () => {
    const quiet = [0.02, 0.05, 0.03, 0.08, 0.04, 0.01, 0.06, 0.03];
    expect(loadSlope(points(quiet, 0.1, 0.001))).toBeUndefined();
    expect(MIN_LOAD_SPREAD).toBe(0.05);
    // Loads alternating 0 and 0.09 (SD 0.048) teach nothing; 0 and 0.1 (SD 0.053) do.
    const alternating = (high: number) => Array.from({ length: 8 }, (_, i) => (i % 2) * high);
    expect(loadSlope(points(alternating(0.09), 0.1, 0.001))).toBeUndefined();
    expect(loadSlope(points(alternating(0.1), 0.1, 0.001))).toBeDefined();
    expect(loadSlope(points([0, 0.5, 0.1], 0.1, 0.001))).toBeUndefined();
    expect(MIN_LOAD_POINTS).toBe(4);
    expect(loadSlope(points([0, 0.5, 0.1, 0.4], 0.1, 0.001))).toBeDefined();
  });
});
