import type { Metric } from '../model.js';
import { median, percentile } from './percentile.js';
import { pooledSorted } from './sorted.js';

/**
 * Requests beyond a percentile that make a pooled percentile trustworthy: with fewer, the
 * pooled P99 of 30 requests reads lower than that of 150, and sides of different sizes
 * would differ by sample size alone.
 */
const MIN_TAIL_SAMPLES = 10;

/**
 * The single figure that stands for a metric over all its runs, on its own: the pooled
 * percentile of every request when the tail is well sampled, else the median of the
 * per-run values, which one odd run cannot move.
 */
export function estimate(metric: Metric): number | null {
  return canPool(metric) ? pooledPercentile(metric) : medianOfRuns(metric);
}

/**
 * The figures of both sides of a comparison, estimated alike: pooled percentiles only
 * when both sides have enough requests in the tail, else the median of per-run values
 * on both sides, so that a difference in sample size cannot pass for a change.
 */
export function estimatePair(
  current: Metric,
  baseline: Metric,
): { current: number | null; baseline: number | null } {
  if (canPool(current) && canPool(baseline)) {
    return { current: pooledPercentile(current), baseline: pooledPercentile(baseline) };
  }
  return { current: medianOfRuns(current), baseline: medianOfRuns(baseline) };
}

/** Whether `metric` is a percentile with enough requests beyond it to pool (MIN_TAIL_SAMPLES). */
export function canPool(metric: Metric): boolean {
  if (metric.percentile === undefined || !metric.samples || metric.samples.length === 0)
    return false;
  const count = metric.samples.reduce((sum, run) => sum + run.length, 0);
  const tail = Math.min(metric.percentile, 100 - metric.percentile) / 100;
  return count * tail >= MIN_TAIL_SAMPLES;
}

function pooledPercentile(metric: Metric): number {
  return percentile(pooledSorted(metric.samples!), metric.percentile!);
}

function medianOfRuns(metric: Metric): number | null {
  const finite = metric.values.filter((value) => Number.isFinite(value));
  return finite.length > 0 ? median(finite) : null;
}
