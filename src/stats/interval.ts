// The confidence interval of a relative change (current / baseline − 1).
//
// With several runs per side the runs are the unit of evidence: a Student-t interval on
// the log of the per-run values, centred on the difference of their mean logs, with one
// run-to-run variance pooled over both sides (Welch's when one side clearly scatters
// more; see logSpread). It stays honest with 3 runs, where a bootstrap of 3 values is far
// too narrow; and because each run's value already carries that run's
// request-level noise, drift between runs is never hidden by thousands of requests.
// With a single run per side but per-request samples, requests are the only evidence: a
// seeded bootstrap of the percentile (run-to-run drift is then not covered, and the
// method says so). With neither, there is no interval.

import type { Metric, SampleRun } from '../model.js';
import { regularizedIncompleteBeta, studentTQuantile } from './distributions.js';
import { beta, seededRandom, type Random } from './rng.js';
import { sortedSamples } from './sorted.js';

export type IntervalMethod = 'student-t' | 'request-bootstrap' | 'none';

export interface ChangeInterval {
  ci: [number, number] | null;
  method: IntervalMethod;
}

export interface IntervalOptions {
  /** Confidence level as a fraction, e.g. 0.95. */
  confidence: number;
  /** Seeds the bootstrap, so the same inputs always give the same interval. */
  seed: string;
  /** Bootstrap replicates. */
  replicates?: number;
}

const DEFAULT_REPLICATES = 2000;
/** Fewer requests than this per side make a request bootstrap meaningless. */
const MIN_BOOTSTRAP_SAMPLES = 20;

export function changeInterval(
  current: Metric,
  baseline: Metric,
  options: IntervalOptions,
): ChangeInterval {
  const currentLogs = logValues(current.values);
  const baselineLogs = logValues(baseline.values);
  if (currentLogs.length >= 1 && baselineLogs.length >= 1) {
    const spread = logSpread(currentLogs, baselineLogs);
    if (spread) {
      // Centred on the difference of mean logs: the estimator whose spread the t interval
      // describes (centring it on the ratio of medians lets noise through more often).
      const center = meanOf(currentLogs) - meanOf(baselineLogs);
      const t = studentTQuantile(1 - (1 - options.confidence) / 2, spread.df);
      return {
        ci: expInterval(center - t * spread.se, center + t * spread.se),
        method: 'student-t',
      };
    }
  }
  const percentile = current.percentile ?? baseline.percentile;
  const currentSamples = current.samples?.[0];
  const baselineSamples = baseline.samples?.[0];
  if (
    percentile !== undefined &&
    current.samples?.length === 1 &&
    baseline.samples?.length === 1 &&
    currentSamples &&
    baselineSamples &&
    currentSamples.length >= MIN_BOOTSTRAP_SAMPLES &&
    baselineSamples.length >= MIN_BOOTSTRAP_SAMPLES
  ) {
    return {
      ci: requestBootstrap(currentSamples, baselineSamples, percentile, options),
      method: 'request-bootstrap',
    };
  }
  return { ci: null, method: 'none' };
}

function logValues(values: number[]): number[] {
  return values.filter((value) => Number.isFinite(value) && value > 0).map(Math.log);
}

/**
 * Standard error and degrees of freedom of the difference of mean logs. A run is a run,
 * whichever build made it: both sides share one run-to-run variance, pooled over all runs
 * (Student's), so 3 current runs do not leave the test with Welch's 2 degrees of freedom.
 * When one side clearly scatters more than the other (a noisy-neighbour run: their
 * variances differ at the 1% level), each keeps its own and the test is Welch's. With a
 * single run on one side the other side's variance stands for both.
 */
export function logSpread(a: number[], b: number[]): { se: number; df: number } | undefined {
  if (a.length < 2 && b.length < 2) return undefined;
  if (a.length < 2 || b.length < 2) {
    const many = a.length >= 2 ? a : b;
    return {
      se: Math.sqrt(sampleVariance(many)! * (1 / a.length + 1 / b.length)),
      df: many.length - 1,
    };
  }
  const va = sampleVariance(a)!;
  const vb = sampleVariance(b)!;
  if (variancesDiffer(va, a.length, vb, b.length)) return welchSpread(a, b);
  const df = a.length + b.length - 2;
  const pooled = ((a.length - 1) * va + (b.length - 1) * vb) / df;
  return { se: Math.sqrt(pooled * (1 / a.length + 1 / b.length)), df };
}

/** Two-sided F test of equal variances at the 1% level. */
const VARIANCE_TEST_LEVEL = 0.01;

function variancesDiffer(va: number, na: number, vb: number, nb: number): boolean {
  if (va === vb) return false;
  if (va === 0 || vb === 0) return true;
  const [high, nHigh, low, nLow] = va > vb ? [va, na, vb, nb] : [vb, nb, va, na];
  return fUpperTail(high / low, nHigh - 1, nLow - 1) < VARIANCE_TEST_LEVEL / 2;
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

function meanOf(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function sampleVariance(values: number[]): number | undefined {
  if (values.length < 2) return undefined;
  const mean = meanOf(values);
  return values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
}

function expInterval(low: number, high: number): [number, number] {
  return [Math.expm1(low), Math.expm1(high)];
}

/**
 * Percentile bootstrap of the change of one percentile between two sets of requests.
 * Each replicate draws the resampled order statistics directly (the k-th smallest of n
 * uniforms is Beta(k, n − k + 1)), so a replicate costs O(1) after one sort per side and
 * 100,000 requests per side take milliseconds.
 */
function requestBootstrap(
  current: SampleRun,
  baseline: SampleRun,
  percentile: number,
  options: IntervalOptions,
): [number, number] {
  const random = seededRandom(options.seed);
  const sortedCurrent = sortedSamples(current);
  const sortedBaseline = sortedSamples(baseline);
  const replicates = options.replicates ?? DEFAULT_REPLICATES;
  const logRatios = new Float64Array(replicates);
  for (let i = 0; i < replicates; i += 1) {
    const now = resampledPercentile(sortedCurrent, percentile, random);
    const before = resampledPercentile(sortedBaseline, percentile, random);
    logRatios[i] = Math.log(now / before);
  }
  logRatios.sort();
  const tail = (1 - options.confidence) / 2;
  return expInterval(quantileOfSorted(logRatios, tail), quantileOfSorted(logRatios, 1 - tail));
}

/** numpy's linear percentile of one bootstrap resample of `sorted`, without building it. */
function resampledPercentile(sorted: Float64Array, percentile: number, random: Random): number {
  const n = sorted.length;
  const rank = (n - 1) * (percentile / 100);
  const k = Math.floor(rank);
  const fraction = rank - k;
  // U(k+1) and U(k+2) in 1-based order-statistic terms: the k-th and (k+1)-th smallest.
  const lower = beta(random, k + 1, n - k);
  const lowerValue = sorted[indexOf(lower, n)]!;
  if (fraction === 0 || k + 1 >= n) return lowerValue;
  const upper = lower + (1 - lower) * beta(random, 1, n - k - 1);
  return lowerValue + fraction * (sorted[indexOf(upper, n)]! - lowerValue);
}

function indexOf(uniform: number, n: number): number {
  return Math.min(n - 1, Math.max(0, Math.ceil(uniform * n) - 1));
}

function quantileOfSorted(sorted: Float64Array, q: number): number {
  const rank = (sorted.length - 1) * q;
  const low = Math.floor(rank);
  const high = Math.min(sorted.length - 1, low + 1);
  return sorted[low]! + (rank - low) * (sorted[high]! - sorted[low]!);
}
