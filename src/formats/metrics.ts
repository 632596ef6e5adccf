// Building the metrics every format reports the same way, so ids, units and directions
// stay identical across formats and the baseline compares like with like.

import type { ParsedMetric } from '../model.js';
import { percentiles } from '../stats/percentile.js';

/** The latency percentiles the gate reports when a file has per-request samples. */
export const LATENCY_PERCENTILES = [50, 95, 99] as const;

export function throughputMetric(value: number, unit: string): ParsedMetric {
  return { id: 'throughput', unit, direction: 'higher-is-better', value };
}

/** latency_p<P> in ms; `samples` are the per-request values it was computed from. */
export function latencyPercentileMetric(
  p: number,
  value: number,
  samples?: number[],
): ParsedMetric {
  const metric: ParsedMetric = {
    id: `latency_p${p}`,
    unit: 'ms',
    direction: 'lower-is-better',
    value,
    percentile: p,
  };
  if (samples) metric.samples = samples;
  return metric;
}

/** latency_p50, latency_p95, latency_p99 computed from per-request latencies in ms. */
export function latencyPercentilesFromSamples(samplesMs: number[]): ParsedMetric[] {
  const values = percentiles(samplesMs, LATENCY_PERCENTILES);
  return LATENCY_PERCENTILES.map((p, index) =>
    latencyPercentileMetric(p, values[index]!, samplesMs),
  );
}

export function latencyMeanMetric(valueMs: number): ParsedMetric {
  return { id: 'latency_mean', unit: 'ms', direction: 'lower-is-better', value: valueMs };
}
