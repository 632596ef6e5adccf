// Percentiles the way numpy computes them by default (method 'linear'), so that our
// figures match the ones benchmark scripts print with np.percentile.

import type { SampleRun } from '../model.js';
import { meanOf } from './mean.js';
import { sortedSamples } from './sorted.js';

/** Values as plain arrays or typed arrays (large per-request sample sets). */
export type Numbers = SampleRun;

/**
 * The p-th percentile (0..100) of `values`, interpolating linearly between the two closest
 * ranks. Sorts a copy; `values` is left as it is.
 */
export function percentile(values: Numbers, p: number): number {
  requirePercent(p);
  return percentileOfSorted(sortedCopy(values, 'percentile'), p);
}

/** Several percentiles of the same values, sorting only once. */
export function percentiles(values: Numbers, ps: readonly number[]): number[] {
  ps.forEach(requirePercent);
  const sorted = sortedCopy(values, 'percentiles');
  return ps.map((p) => percentileOfSorted(sorted, p));
}

export function median(values: Numbers): number {
  return percentile(values, 50);
}

export function mean(values: Numbers): number {
  requireFiniteValues(values, 'mean');
  return meanOf(values);
}

function percentileOfSorted(sorted: Float64Array, p: number): number {
  // numpy divides by 100 first and then scales by n − 1; doing the same keeps the
  // rounding identical to the last bit.
  const rank = (sorted.length - 1) * (p / 100);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  return lerp(sorted[below]!, sorted[above]!, rank - below);
}

function requirePercent(p: number): void {
  if (!(p >= 0 && p <= 100)) {
    throw new RangeError(`percentile: p must be between 0 and 100, got ${p}`);
  }
}

function sortedCopy(values: Numbers, caller: string): Float64Array {
  requireFiniteValues(values, caller);
  // A typed array sorts numerically and faster than Array#sort with a comparator; samples
  // a parser sorted already are not copied (nor changed: callers only read).
  return sortedSamples(values);
}

function requireFiniteValues(values: Numbers, caller: string): void {
  if (values.length === 0) {
    throw new RangeError(`${caller}: needs at least one value, got none`);
  }
  for (const value of values) {
    // NaN would sort anywhere and poison the result silently.
    if (!Number.isFinite(value)) {
      throw new RangeError(`${caller}: values must be finite numbers, got ${value}`);
    }
  }
}

/** numpy's _lerp: from the nearer end, so that t = 1 gives exactly `b`. */
function lerp(a: number, b: number, t: number): number {
  const difference = b - a;
  return t >= 0.5 ? b - difference * (1 - t) : a + difference * t;
}
