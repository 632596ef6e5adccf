import type { Metric } from '../model.js';
import { median, percentile } from './percentile.js';

/**
 * The single figure that stands for a metric over all its runs: a latency percentile
 * is the percentile of every request of every run pooled together (more requests give a
 * steadier tail than the median of per-run tails); anything else is the median of the
 * per-run values, which one odd run cannot move.
 */
export function estimate(metric: Metric): number | null {
  if (metric.percentile !== undefined && metric.samples && metric.samples.length > 0) {
    const pooled = metric.samples.flat();
    if (pooled.length > 0) return percentile(pooled, metric.percentile);
  }
  const finite = metric.values.filter((value) => Number.isFinite(value));
  return finite.length > 0 ? median(finite) : null;
}
