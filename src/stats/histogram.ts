// A latency distribution in bounded size: log-spaced buckets between the smallest and the
// largest value, so that a run of a million requests keeps the shape of its TTFTs in a
// few hundred bytes (report.json, a stored record, the dashboard's CDFs). Latencies spread
// over decades; log-spaced buckets keep the same relative resolution at 20 ms and at 2 s.

import type { LatencyHistogram, SampleRun } from '../model.js';

/** Buckets of a histogram: 64 between min and max (about 6% wide for two decades). */
export const HISTOGRAM_BUCKETS = 64;
/** Significant digits of the inner edges, which keeps the JSON short. */
const EDGE_DIGITS = 4;

/**
 * The histogram of `runs` pooled (in any order), or undefined when they hold no value.
 * Zeros (an inter-token gap below the clock's resolution) fall into a first bucket from 0
 * up to the smallest positive value.
 */
export function histogramOf(
  runs: readonly SampleRun[],
  buckets = HISTOGRAM_BUCKETS,
): LatencyHistogram | undefined {
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  let smallestPositive = Infinity;
  for (const run of runs) {
    for (let i = 0; i < run.length; i += 1) {
      const value = run[i]!;
      count += 1;
      if (value < min) min = value;
      if (value > max) max = value;
      if (value > 0 && value < smallestPositive) smallestPositive = value;
    }
  }
  if (count === 0) return undefined;
  const edges = edgesBetween(min, max, smallestPositive, Math.max(1, Math.floor(buckets)));
  const counts: number[] = new Array<number>(edges.length - 1).fill(0);
  for (const run of runs) {
    for (let i = 0; i < run.length; i += 1) counts[bucketOf(edges, run[i]!)]! += 1;
  }
  return { count, min, max, edges, counts };
}

/** Edges from min to max: log-spaced when both ends are positive, a zero bucket first when not. */
function edgesBetween(min: number, max: number, positive: number, buckets: number): number[] {
  if (max <= min) return [min, max];
  if (min <= 0 && !(positive < max)) return [min, max];
  const zeroBucket = min <= 0;
  const low = zeroBucket ? positive : min;
  const spaced = zeroBucket ? buckets - 1 : buckets;
  const edges = [min];
  if (zeroBucket) edges.push(low);
  const ratio = Math.log(max / low) / Math.max(1, spaced);
  for (let k = 1; k < spaced; k += 1) {
    const edge = Number((low * Math.exp(ratio * k)).toPrecision(EDGE_DIGITS));
    // Rounding can bring two edges together on a narrow range: keep them strictly rising.
    if (edge > edges.at(-1)! && edge < max) edges.push(edge);
  }
  edges.push(max);
  return edges;
}

/** The bucket of `value`: the last edge at or below it, the top bucket holding max too. */
function bucketOf(edges: readonly number[], value: number): number {
  let low = 0;
  let high = edges.length - 1;
  // Invariant: edges[low] <= value (or low = 0), value < edges[high] unless high is the last.
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (edges[middle]! <= value) low = middle;
    else high = middle;
  }
  return Math.min(low, edges.length - 2);
}

/**
 * The p-th percentile (0–100) read from the histogram: the bucket holding the value of
 * rank p/100 × (count − 1), as numpy's linear percentile ranks them, and a place within
 * it in proportion to the rank. Exact at p 0 and 100; otherwise within the bucket that
 * holds the exact value or the one beside it.
 */
export function histogramPercentile(histogram: LatencyHistogram, p: number): number {
  const { count, min, max, edges, counts } = histogram;
  if (p <= 0) return min;
  if (p >= 100) return max;
  const rank = (p / 100) * (count - 1);
  let before = 0;
  for (let bucket = 0; bucket < counts.length; bucket += 1) {
    const inBucket = counts[bucket]!;
    if (inBucket > 0 && rank < before + inBucket) {
      const share = (rank - before + 0.5) / inBucket;
      const low = edges[bucket]!;
      const high = edges[bucket + 1]!;
      return Math.min(max, Math.max(min, low + Math.min(1, share) * (high - low)));
    }
    before += inBucket;
  }
  return max;
}

/** The cumulative share (0–1) at each edge: the points of the histogram's CDF. */
export function histogramCdf(histogram: LatencyHistogram): { value: number; share: number }[] {
  const points = [{ value: histogram.edges[0]!, share: 0 }];
  let seen = 0;
  histogram.counts.forEach((inBucket, bucket) => {
    seen += inBucket;
    points.push({ value: histogram.edges[bucket + 1]!, share: seen / histogram.count });
  });
  return points;
}
