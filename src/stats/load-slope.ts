// How much slower a host's timings run per unit of load that other processes put on it,
// learnt from stored gate runs: the least-squares slope of each gate run's level (the
// median log of its values, signed so that slower is larger) on its host load, shrunk
// towards zero by its own uncertainty. Used by compare/host-load.ts.
//
// Why shrunk, and never below zero: a slope learnt from a few busy gate runs is uncertain,
// and every bit of it that is credited to the load is taken from a change the gate should
// see. The positive-part shrinkage b̂ (1 − se²/b̂²) keeps about all of a slope several
// standard errors from zero and none of one within a standard error; a host does not run
// faster when busy, so a negative slope is noise.

/** One stored gate run: its host load (share of CPU others took) and its level. */
export interface LoadPoint {
  load: number;
  level: number;
}

export interface LoadSlope {
  /** The slope credited to the load: the estimate shrunk by its uncertainty. */
  slope: number;
  /** The least-squares estimate and its standard error. */
  estimate: number;
  standardError: number;
  /** The loads the slope was learnt over: a load beyond them is not extrapolated to. */
  range: [number, number];
  points: number;
}

/** Fewer stored gate runs with a load than this teach no slope (2 degrees of freedom left). */
export const MIN_LOAD_POINTS = 4;
/**
 * Loads that spread less than this (standard deviation, share of CPU) teach no slope:
 * a history of quiet days alone leaves every verdict as it was.
 */
export const MIN_LOAD_SPREAD = 0.05;

/** The slope of level on load, or undefined where the points cannot teach one. */
export function loadSlope(points: readonly LoadPoint[]): LoadSlope | undefined {
  const n = points.length;
  if (n < MIN_LOAD_POINTS) return undefined;
  const meanLoad = points.reduce((s, p) => s + p.load, 0) / n;
  const meanLevel = points.reduce((s, p) => s + p.level, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.load - meanLoad) ** 2;
    sxy += (p.load - meanLoad) * (p.level - meanLevel);
  }
  if (!(Math.sqrt(sxx / (n - 1)) >= MIN_LOAD_SPREAD)) return undefined;
  const estimate = sxy / sxx;
  const residuals = points.reduce(
    (s, p) => s + (p.level - meanLevel - estimate * (p.load - meanLoad)) ** 2,
    0,
  );
  const standardError = Math.sqrt(residuals / (n - 2) / sxx);
  const loads = points.map((p) => p.load);
  return {
    slope: shrunk(estimate, standardError),
    estimate,
    standardError,
    range: [Math.min(...loads), Math.max(...loads)],
    points: n,
  };
}

/** The positive part of b̂ (1 − se²/b̂²): zero for a slope within a standard error of zero. */
function shrunk(estimate: number, standardError: number): number {
  if (!(estimate > 0)) return 0;
  return Math.max(0, estimate * (1 - (standardError / estimate) ** 2));
}
