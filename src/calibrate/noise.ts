import type { BenchmarkResult, Metric } from '../model.js';
import { median } from '../stats/percentile.js';
import { meanOf } from '../stats/mean.js';

/** How much one metric moves from run to run with nothing changed. */
export interface MetricNoise {
  id: string;
  unit: string;
  runs: number;
  /** Standard deviation of the per-run values ÷ their mean. */
  cv: number;
  /** Standard deviation of the log of the per-run values: the noise the gate's intervals see. */
  logSd: number;
  /** Largest distance of a run from the median, relative to it (the spread of a P99). */
  spread: number;
}

/** The run-to-run noise of every metric measured at least twice. */
export function measureNoise(result: BenchmarkResult): MetricNoise[] {
  return result.metrics.flatMap((metric) => {
    const noise = metricNoise(metric);
    return noise ? [noise] : [];
  });
}

function metricNoise(metric: Metric): MetricNoise | undefined {
  const values = metric.values.filter((v) => Number.isFinite(v) && v > 0);
  if (values.length < 2) return undefined;
  const mean = meanOf(values);
  const logs = values.map(Math.log);
  const logMean = meanOf(logs);
  const middle = median(values);
  return {
    id: metric.id,
    unit: metric.unit,
    runs: values.length,
    cv: standardDeviation(values, mean) / mean,
    logSd: standardDeviation(logs, logMean),
    spread: Math.max(...values.map((v) => Math.abs(v / middle - 1))),
  };
}

function standardDeviation(values: number[], mean: number): number {
  return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));
}
