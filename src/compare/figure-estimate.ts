// Which estimator gave a percentile's `baseline` and `current` (stats/estimate.ts): the
// percentile of every request of the runs pooled, or the median of the runs' own
// percentiles when too few requests lie beyond it. Kept on the comparison, so that a
// table showing a pooled P95 beside a P99 that is a median of runs can say so.

import type { Comparison, Metric } from '../model.js';
import { canPool } from '../stats/estimate.js';

/**
 * The estimate of a compared percentile, as estimatePair chose it (pooled only when both
 * sides can pool), with the current side's runs and requests; undefined for a metric
 * that is not a percentile or that this run did not measure.
 */
export function figureEstimate(
  current: Metric | undefined,
  baseline: Metric | undefined,
): Comparison['estimate'] {
  if (!current || current.percentile === undefined) return undefined;
  const pooled = canPool(current) && (baseline === undefined || canPool(baseline));
  const requests = (current.samples ?? []).reduce((sum, run) => sum + run.length, 0);
  const runs = pooled
    ? current.samples!.length
    : current.values.filter((value) => Number.isFinite(value)).length;
  return {
    of: pooled ? 'pooled-requests' : 'median-of-runs',
    percentile: current.percentile,
    runs,
    ...(requests > 0 ? { requestCount: requests } : {}),
  };
}
