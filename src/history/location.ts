// Where a change point sits, and how sure its series is of that night.
//
// The detectors decide whether a segment holds a change; this places it. For every night
// k of the change's segment (between its neighbouring change points), z_k is the
// mean-shift z of a step at k, its variance from the night model; z_k²/2 is the profile
// log-likelihood of that step against none (Gaussian nights, the step's size fitted).
// Normalised over the segment's nights, the likelihoods are the shares of the night: a
// clean 12% step puts ~100% on one night, a noisy series splits its share between two.
// A segmentation split is placed on the night of the largest share.
//
// The nights are clipped as the segmentation clips them (3 night standard deviations),
// but around the range the two levels span, not around the segment's median: clipped to
// the median, every night after a large step counts only 3 deviations up, and a night
// before it 2–3 deviations up looked like the step's first: 30 of 760 series (19
// benchmarks × 2 metrics × 20 seeds, a 12% step at 3 runs a night) named the night before.

import type { NightAlgebra } from './night-model.js';

export interface NightShare {
  /** Index of the night in the series. */
  index: number;
  /** Share of the likelihood of a step at this night, among the nights of its segment. */
  share: number;
}

/** A change point's location, as history --json and the regressions carry it. */
export interface Location {
  /** The share of its own first bad night: how sure its series is of that night. */
  share: number;
  /** Every night of its segment with a share of at least SHARE_SHOWN, oldest first. */
  nights: (NightShare & { runId: string; commit: string })[];
}

/** Nights with less than this share are left out of a location (they sum to under 1% or so). */
export const SHARE_SHOWN = 0.001;

/** Clip of a night mean, in its night standard deviations beyond the levels' range. */
const CLIP = 3;

/**
 * The shares of each night of [from, to) as the start of a step, the change found at
 * `index` (always a candidate); every other candidate leaves `minNights` nights on each
 * side. Oldest first, shares of at least SHARE_SHOWN, summing to about 1.
 */
export function locationShares(
  algebra: NightAlgebra,
  means: ArrayLike<number>,
  from: number,
  to: number,
  index: number,
  minNights: number,
): NightShare[] {
  const mean = clippedToLevels(algebra, means, from, to, index);
  const first = Math.min(index, from + minNights);
  const last = Math.max(index, to - minNights);
  const logLikelihood: number[] = [];
  // Prefix sums of w·mean over [from, to).
  const wm = new Float64Array(to - from + 1);
  for (let i = from; i < to; i += 1) {
    wm[i - from + 1] = wm[i - from]! + algebra.weightAt(i) * mean[i - from]!;
  }
  for (let k = first; k <= last; k += 1) {
    const before = wm[k - from]! / algebra.weightOf([from, k]);
    const after = (wm[to - from]! - wm[k - from]!) / algebra.weightOf([k, to]);
    const z = (after - before) / Math.sqrt(algebra.differenceVariance([from, k], [k, to]));
    logLikelihood.push(Number.isFinite(z) ? (z * z) / 2 : Number.NEGATIVE_INFINITY);
  }
  const top = Math.max(...logLikelihood);
  if (!Number.isFinite(top)) return [{ index, share: 1 }];
  const weights = logLikelihood.map((l) => Math.exp(l - top));
  const total = weights.reduce((s, w) => s + w, 0);
  return weights
    .map((w, i) => ({ index: first + i, share: w / total }))
    .filter((night) => night.share >= SHARE_SHOWN);
}

/**
 * Each change found (oldest first) with its shares, each within the segment its
 * neighbours leave it; a segmentation split moves to its likeliest night. The newest
 * nights' tests keep theirs: the tail test's evidence is its 2 or 3 newest nights (moved
 * to an earlier night by the profile of a step only 2 nights old, 2% fewer 3% steps were
 * named within a night by their 2nd night), and a creep has no night of its own.
 */
export function locateChanges<T extends { index: number; detector: string }>(
  algebra: NightAlgebra,
  means: ArrayLike<number>,
  found: readonly T[],
  minNights: number,
): (T & { shares: NightShare[] })[] {
  const located: (T & { shares: NightShare[] })[] = [];
  found.forEach((change, i) => {
    const from = i > 0 ? located[i - 1]!.index : 0;
    const to = i + 1 < found.length ? found[i + 1]!.index : means.length;
    const shares = locationShares(algebra, means, from, to, change.index, minNights);
    const index = change.detector !== 'segmentation' ? change.index : likeliestNight(shares);
    located.push({ ...change, index, shares });
  });
  return located;
}

/** The night of the largest share (the earlier on a tie). */
export function likeliestNight(shares: readonly NightShare[]): number {
  return shares.reduce((best, night) => (night.share > best.share ? night : best)).index;
}

/**
 * Night means of [from, to), each at most CLIP of its standard deviations beyond the
 * range of the median nights before and after `index`: a step of any size keeps its
 * size, while one awful night still counts no more than a night a little past a level.
 */
function clippedToLevels(
  algebra: NightAlgebra,
  means: ArrayLike<number>,
  from: number,
  to: number,
  index: number,
): Float64Array {
  const levels = [median(means, from, index), median(means, index, to)].filter(Number.isFinite);
  const low = Math.min(...levels);
  const high = Math.max(...levels);
  const mean = new Float64Array(to - from);
  for (let i = from; i < to; i += 1) {
    const limit = CLIP / Math.sqrt(algebra.weightAt(i));
    mean[i - from] = Math.min(high + limit, Math.max(low - limit, means[i]!));
  }
  return mean;
}

function median(values: ArrayLike<number>, from: number, to: number): number {
  if (to <= from) return Number.NaN;
  const sorted = Float64Array.from({ length: to - from }, (_, i) => values[from + i]!).sort();
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
