// Building the metrics every format reports the same way, so ids, units and directions
// stay identical across formats and the baseline compares like with like.

import type { NotMeasuredNote, ParsedMetric, SampleRun } from '../model.js';
import { percentiles } from '../stats/percentile.js';

/** The latency percentiles the gate reports when a file has per-request samples. */
export const LATENCY_PERCENTILES = [50, 95, 99] as const;

/** What a format defines of a metric before its figure is read: id, unit and direction. */
export type MetricDefinition = Pick<ParsedMetric, 'id' | 'unit' | 'direction'>;

/** A lower-is-better time in ms (latency_p95, ttft_mean), as every format gives times. */
export function msDefinition(id: string): MetricDefinition {
  return { id, unit: 'ms', direction: 'lower-is-better' };
}

/** A higher-is-better rate (throughput in queries/s, tokens_per_second in tokens/s). */
export function rateDefinition(id: string, unit: string): MetricDefinition {
  return { id, unit, direction: 'higher-is-better' };
}

export function throughputMetric(value: number, unit: string): ParsedMetric {
  return rateMetric('throughput', value, unit);
}

/** A higher-is-better rate such as tokens_per_second. */
export function rateMetric(id: string, value: number, unit: string): ParsedMetric {
  return { id, unit, direction: 'higher-is-better', value };
}

/** The id suffix of percentile `p`: 95 → p95, 99.9 → p99_9. */
export function percentileSuffix(p: number): string {
  return `p${String(p).replace('.', '_')}`;
}

/** `<base>_p<P>` in ms (latency_p95, ttft_p99); `samples` are the values it came from. */
export function msPercentileMetric(
  base: string,
  p: number,
  value: number,
  samples?: SampleRun,
): ParsedMetric {
  const metric: ParsedMetric = {
    id: `${base}_${percentileSuffix(p)}`,
    unit: 'ms',
    direction: 'lower-is-better',
    value,
    percentile: p,
  };
  if (samples) metric.samples = samples;
  return metric;
}

/** `<base>_mean` in ms. */
export function msMeanMetric(base: string, valueMs: number): ParsedMetric {
  return { id: `${base}_mean`, unit: 'ms', direction: 'lower-is-better', value: valueMs };
}

/**
 * `<base>_p50/p95/p99` (and any other percentiles asked for) computed (numpy linear) from a
 * non-empty array of values in ms.
 */
export function msPercentilesFromSamples(
  base: string,
  samplesMs: SampleRun,
  ps: readonly number[] = LATENCY_PERCENTILES,
): ParsedMetric[] {
  const values = percentiles(samplesMs, ps);
  return ps.map((p, index) => msPercentileMetric(base, p, values[index]!, samplesMs));
}

/** latency_p<P> in ms; `samples` are the per-request values it was computed from. */
export function latencyPercentileMetric(
  p: number,
  value: number,
  samples?: number[],
): ParsedMetric {
  return msPercentileMetric('latency', p, value, samples);
}

/** latency_p50, latency_p95, latency_p99 computed from per-request latencies in ms. */
export function latencyPercentilesFromSamples(samplesMs: number[]): ParsedMetric[] {
  return msPercentilesFromSamples('latency', samplesMs);
}

/**
 * [latency_geomean] in ms: the geometric mean of the request latencies, exp(mean ln t).
 * The typical request, which a heavy tail moves little: per run, the mean of the log
 * times is the figure a t test finds a slowdown of every request on with the fewest runs
 * (a 10% slowdown of heavy-tailed requests: 44% of pull requests fail with it where the
 * percentiles alone found 16%, bench:accuracy heavy-tails).
 */
export function latencyGeomeanMetrics(
  samplesMs: SampleRun,
  notes: Record<string, NotMeasuredNote>,
): ParsedMetric[] {
  const definition = msDefinition('latency_geomean');
  if (samplesMs.length === 0) return [];
  // A request of 0 ms (a timer's resolution) has no logarithm: no geometric mean then.
  const zero = samplesMs.findIndex((value) => !(value > 0));
  if (zero !== -1) {
    const reason = `request ${zero + 1} took 0 ms, which has no logarithm: no geometric mean`;
    notes[definition.id] = { reason, unit: definition.unit, direction: definition.direction };
    return [];
  }
  let sum = 0;
  for (const value of samplesMs) sum += Math.log(value);
  return [{ ...definition, value: Math.exp(sum / samplesMs.length) }];
}

export function latencyMeanMetric(valueMs: number): ParsedMetric {
  return msMeanMetric('latency', valueMs);
}

/** The mean of finite values, without overflowing to Infinity when they are huge. */
export function finiteMean(values: SampleRun): number {
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / values.length;
  if (Number.isFinite(mean)) return mean;
  let running = 0;
  values.forEach((value, index) => (running += (value - running) / (index + 1)));
  return running;
}
