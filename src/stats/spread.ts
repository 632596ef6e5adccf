// The standard error of a difference of mean logs between two sides' runs: pooled
// (Student's) or, when one side clearly scatters more, Welch's; and how it shrinks with
// more current runs.

import { regularizedIncompleteBeta } from './distributions.js';
import { skewTerms, type SkewSide, type SkewTerms } from './skewness.js';
import { meanOf } from './mean.js';

/**
 * Standard error and degrees of freedom of the difference of mean logs, with what of its
 * variance shrinks with more current runs: `perRun` / `runs` of it.
 */
export interface LogSpread {
  se: number;
  df: number;
  /** Variance of one current run's log value, as the standard error counts it. */
  perRun?: number;
  /** Current runs the standard error is of. */
  runs?: number;
  /** Stored records whose means it was learned from (history-spread.ts), when it was. */
  history?: number;
  /** Runs each of those records holds, when more than one (a sweep summary's 2). */
  historyRuns?: number;
  /** The relative SDs the two sides' files state, when it is theirs (interval.ts). */
  stated?: { current: number; baseline: number };
  /** Whether day-to-day drift is in it (driftSpread). */
  drift?: boolean;
  /** The day-to-day variance τ² of the log values in it (driftSpread), and its degrees of freedom. */
  dayVariance?: number;
  dayDf?: number;
  /**
   * A drift spread's two parts for Satterthwaite's df: the days' share of the variance
   * (τ² as the difference carries it) and the within-day variance's degrees of freedom.
   */
  dayPart?: number;
  withinDf?: number;
  /**
   * Skewness terms of the studentized difference when the runs' log values are skewed
   * (skewness.ts; not for drift spreads): the end that decides a regression is stretched
   * when the tail reaches that way.
   */
  skew?: SkewTerms;
}

/**
 * The spread with `more` current runs added: the baseline's part and day-to-day drift stay,
 * the current runs' part shrinks, and their degrees of freedom add to a pooled or Welch
 * spread's; a drift spread's are Satterthwaite's again, with more within-day df but the
 * days' part still known from its records only: how far more runs could narrow the interval.
 */
export function withMoreRuns(spread: LogSpread, more: number): { se: number; df: number } {
  if (spread.perRun === undefined || spread.runs === undefined || more <= 0) return spread;
  const variance = Math.max(
    0,
    spread.se ** 2 - spread.perRun / spread.runs + spread.perRun / (spread.runs + more),
  );
  const se = Math.sqrt(variance);
  const { dayPart, dayDf, withinDf } = spread;
  if (!spread.drift) return { se, df: spread.df + more };
  if (dayPart === undefined || dayDf === undefined || withinDf === undefined) {
    return { se, df: spread.df };
  }
  const runPart = variance - dayPart;
  const df = variance ** 2 / (dayPart ** 2 / dayDf + runPart ** 2 / (withinDf + more));
  return { se, df: Math.max(1, df) };
}

/**
 * Standard error and degrees of freedom of the difference of mean logs. A run is a run,
 * whichever build made it: both sides share one run-to-run variance, pooled over all runs
 * (Student's), so 3 current runs do not leave the test with Welch's 2 degrees of freedom.
 * When one side clearly scatters more than the other (a noisy-neighbour run: their
 * variances differ at the 1% level), each keeps its own and the test is Welch's. With a
 * single run on one side the other side's variance stands for both. `gamma`, the runs'
 * skewness (skewness.ts: cautiousSkewness), gives the spread its skewness terms.
 */
export function logSpread(a: number[], b: number[], gamma = 0): LogSpread | undefined {
  if (a.length < 2 && b.length < 2) return undefined;
  // Each side's run-to-run SD in the spread's model and its sample variance's weight in
  // se², for the skewness terms (skewness.ts).
  const side = (runs: number, variance: number, weight: number): SkewSide => ({
    runs,
    sd: Math.sqrt(variance),
    weight,
  });
  const withSkew = (spread: LogSpread, sides: [SkewSide, SkewSide]): LogSpread =>
    gamma === 0 ? spread : { ...spread, skew: skewTerms(gamma, ...sides) };
  if (a.length < 2 || b.length < 2) {
    const many = a.length >= 2 ? a : b;
    const variance = sampleVariance(many)!;
    const r = 1 / a.length + 1 / b.length;
    return withSkew(
      {
        se: Math.sqrt(variance * r),
        df: many.length - 1,
        perRun: variance,
        runs: a.length,
      },
      [side(a.length, variance, many === a ? r : 0), side(b.length, variance, many === b ? r : 0)],
    );
  }
  const va = sampleVariance(a)!;
  const vb = sampleVariance(b)!;
  if (variancesDiffer(va, a.length, vb, b.length)) {
    return withSkew({ ...welchSpread(a, b), perRun: va, runs: a.length }, [
      side(a.length, va, 1 / a.length),
      side(b.length, vb, 1 / b.length),
    ]);
  }
  const df = a.length + b.length - 2;
  const pooled = ((a.length - 1) * va + (b.length - 1) * vb) / df;
  const r = 1 / a.length + 1 / b.length;
  return withSkew(
    {
      se: Math.sqrt(pooled * r),
      df,
      perRun: pooled,
      runs: a.length,
    },
    [
      side(a.length, pooled, (r * (a.length - 1)) / df),
      side(b.length, pooled, (r * (b.length - 1)) / df),
    ],
  );
}

/** Two-sided F test of equal variances at the 1% level. */
const VARIANCE_TEST_LEVEL = 0.01;

/**
 * Runs the side that scatters less needs for Welch's test to trust its own variance. Three
 * runs' variance (2 degrees of freedom) is under a tenth of the truth one time in ten;
 * when it is small enough to differ from the baseline's at the 1% level, Welch's test
 * takes those three runs as exact and the change as known to within the baseline's spread
 * alone, and any change beyond the threshold fails. With fewer runs than this on the side
 * that scatters less, the runs are pooled: the interval is wider, never narrower.
 */
const WELCH_MIN_RUNS = 6;

export function variancesDiffer(va: number, na: number, vb: number, nb: number): boolean {
  const nLow = va > vb ? nb : na;
  if (va !== vb && nLow < WELCH_MIN_RUNS) return false;
  return fTestDiffers(va, na - 1, vb, nb - 1, VARIANCE_TEST_LEVEL);
}

/** Two-sided F test of two variances, each with its degrees of freedom, at `level`. */
export function fTestDiffers(
  v1: number,
  df1: number,
  v2: number,
  df2: number,
  level: number,
): boolean {
  if (v1 === v2) return false;
  const [high, dfHigh, low, dfLow] = v1 > v2 ? [v1, df1, v2, df2] : [v2, df2, v1, df1];
  // A zero beside a spread: the ratio is infinite, its tail 0, so the test says they differ.
  return fUpperTail(high / low, dfHigh, dfLow) < level / 2;
}

/** P(F > f) for an F(d1, d2) variable. */
export function fUpperTail(f: number, d1: number, d2: number): number {
  return regularizedIncompleteBeta(d2 / (d2 + d1 * f), d2 / 2, d1 / 2);
}

/**
 * Welch's standard error of the difference of two means, each side with its own variance,
 * and the Welch–Satterthwaite degrees of freedom. Both sides need two or more values.
 */
export function welchSpread(a: number[], b: number[]): { se: number; df: number } {
  const wa = sampleVariance(a)! / a.length;
  const wb = sampleVariance(b)! / b.length;
  const se = Math.sqrt(wa + wb);
  if (se === 0) return { se: 0, df: a.length + b.length - 2 };
  const df = (wa + wb) ** 2 / (wa ** 2 / (a.length - 1) + wb ** 2 / (b.length - 1));
  return { se, df };
}

/** The sample variance (n − 1); undefined for fewer than two values. */
export function sampleVariance(values: readonly number[]): number | undefined {
  if (values.length < 2) return undefined;
  const mean = meanOf(values);
  return values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
}
