// A metric's summary figures, as a record stores them beside its reduced samples.

import type { Metric } from '../model.js';
import { pooledFigures, type PooledFigures } from './stored-samples.js';
import { meanOf } from '../stats/mean.js';
import type { MetricSummary } from './record.js';

/** Mean, min, max and runs of the per-run values, with the pooled sample figures. */
export function summarize(metric: Metric, pooled?: PooledFigures): MetricSummary {
  const { values } = metric;
  const summary: MetricSummary = {
    mean: values.length > 0 ? meanOf(values) : Number.NaN,
    min: values.length > 0 ? Math.min(...values) : Number.NaN,
    max: values.length > 0 ? Math.max(...values) : Number.NaN,
    runs: values.length,
  };
  if (values.length === 0) {
    // JSON has no NaN; a metric without runs has no summary figures.
    summary.mean = summary.min = summary.max = 0;
  }
  const figures = pooled ?? pooledFigures(metric.samples);
  return figures ? { ...summary, ...figures } : summary;
}
