// What a metric's noise lets the gate see: the chance that its one-sided t test finds a
// given change, and how many current runs would make that chance 95%. From the spread of
// the change the interval already has (interval.ts: LogSpread), so the figures are the
// metric's own noise, not a model of it.

import { normalQuantile, normalUpperTail, studentTQuantile } from './distributions.js';
import { withMoreRuns, type LogSpread } from './spread.js';

/**
 * Chance that a one-sided t test at `level` finds a worsening of `effect` (a log ratio,
 * > 0) with this standard error and degrees of freedom, the estimate also beyond `floor`
 * (the threshold, as a log ratio): the noncentral t's upper tail,
 * P((Z + δ) / √(V / df) > c) with δ = effect / se, integrated over V ~ χ²(df) (Wilson and
 * Hilferty's normal form of it), so that it holds at the 2 degrees of freedom of a Welch
 * interval of three runs too, where the central t shifted by δ is far off (1% for 19%).
 */
export function tTestPower(
  effect: number,
  spread: { se: number; df: number },
  level: number,
  floor = 0,
): number {
  if (!(spread.se > 0)) return effect > floor ? 1 : 0;
  const critical = Math.max(studentTQuantile(1 - level, spread.df), floor / spread.se);
  const delta = effect / spread.se;
  let power = 0;
  let weight = 0;
  for (let z = -8; z <= 8; z += CHI_STEP) {
    const density = Math.exp(-0.5 * z * z);
    const u = chiSquareOverDf(z, spread.df);
    power += density * normalUpperTail(critical * Math.sqrt(u) - delta);
    weight += density;
  }
  return power / weight;
}

/** Step of the normal scores the χ² is integrated over (tTestPower). */
const CHI_STEP = 0.02;

/**
 * χ²(df) / df at normal score `z`, by Wilson and Hilferty: (1 − 2/(9 df) + z √(2/(9 df)))³,
 * 0 below the cube's root.
 */
function chiSquareOverDf(z: number, df: number): number {
  const spread = 2 / (9 * df);
  return Math.max(0, 1 - spread + z * Math.sqrt(spread)) ** 3;
}

/**
 * The spread at the low end of a one-sided 90% bound of its standard deviation:
 * se · √(df / χ²(0.9; df)), χ² by Wilson and Hilferty. Three runs' spread is itself
 * uncertain; judged at its point estimate, a metric whose true power is 97% would be said
 * to fall short in 4 pull requests of 10 at run CV 5%.
 */
export function optimisticSpread(spread: LogSpread): LogSpread {
  const scale = 1 / Math.sqrt(chiSquareOverDf(normalQuantile(0.9), spread.df));
  // Every part of the variance scales alike, so projections to more runs keep their shape.
  const scaled = (variance: number | undefined) =>
    variance === undefined ? undefined : variance * scale ** 2;
  return {
    ...spread,
    se: spread.se * scale,
    ...(spread.perRun === undefined ? {} : { perRun: scaled(spread.perRun)! }),
    ...(spread.dayPart === undefined ? {} : { dayPart: scaled(spread.dayPart)! }),
  };
}

/** The most current runs the reach is looked for up to; beyond it "out of reach". */
export const MAX_RUNS_SEARCHED = 200;

/**
 * The fewest current runs (this spread's `runs` or more) at which the test finds
 * `effect` with chance `target`; undefined when no number up to MAX_RUNS_SEARCHED does
 * (the baseline's own noise or day-to-day drift, which more current runs do not shrink)
 * or the spread cannot be projected to more runs.
 */
export function runsForPower(
  effect: number,
  spread: LogSpread,
  level: number,
  target: number,
  floor = 0,
): number | undefined {
  const runs = spread.runs;
  if (runs === undefined || spread.perRun === undefined) return undefined;
  const powerAt = (total: number) =>
    tTestPower(effect, withMoreRuns(spread, total - runs), level, floor);
  if (powerAt(MAX_RUNS_SEARCHED) < target) return undefined;
  // Power grows with the runs: the smallest total that reaches the target, by bisection.
  let low = runs;
  let high = MAX_RUNS_SEARCHED;
  if (powerAt(low) >= target) return low;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (powerAt(middle) >= target) high = middle;
    else low = middle;
  }
  return high;
}
