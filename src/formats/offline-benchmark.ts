// The vllm-neuron offline reranker benchmark (`offline_benchmark.py --output-file F`):
// `metrics` with per-query times in seconds, `raw_times` with one latency per query, and
// `configuration` echoing the vLLM / Neuron settings.

import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import { mean } from '../stats/percentile.js';
import {
  fieldError,
  isObject,
  optionalSecondsAsMs,
  requireNonNegative,
  requireObject,
  requireSecondsAsMs,
  requireSecondsSamplesAsMs,
  type JsonObject,
} from './fields.js';
import {
  LATENCY_PERCENTILES,
  latencyMeanMetric,
  latencyPercentileMetric,
  latencyPercentilesFromSamples,
  throughputMetric,
} from './metrics.js';
import type { ResultFormat } from './types.js';

export const offlineBenchmarkFormat: ResultFormat = {
  id: 'offline-benchmark',
  description:
    'vllm-neuron offline benchmark script output (metrics.throughput_queries_per_sec, raw_times)',
  detect: (data) => {
    if (!isObject(data)) return undefined;
    if (isObject(data.metrics) && 'throughput_queries_per_sec' in data.metrics) {
      return 'metrics.throughput_queries_per_sec';
    }
    return Array.isArray(data.raw_times) ? 'a top-level raw_times array' : undefined;
  },
  parse: parseOfflineBenchmark,
};

function parseOfflineBenchmark(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(data, file, '', 'an object with metrics and raw_times');
  const metrics = requireObject(root.metrics, file, 'metrics', 'an object of per-query times');
  const rawTimesMs =
    root.raw_times === undefined
      ? undefined
      : requireSecondsSamplesAsMs(root.raw_times, file, 'raw_times', 'seconds per query');

  const parsed: ParsedMetric[] = [
    throughputMetric(queriesPerSecond(metrics, file), 'queries/s'),
    ...(rawTimesMs
      ? latencyPercentilesFromSamples(rawTimesMs)
      : latencyPercentilesFromMetrics(metrics, file)),
  ];
  const meanMs = meanLatencyMs(metrics, rawTimesMs, file);
  if (meanMs !== undefined) parsed.push(latencyMeanMetric(meanMs));

  // The script's file names no benchmark: the config entry that ran it does.
  const benchmark: ParsedBenchmark = { metrics: parsed };
  if (root.configuration !== undefined) {
    benchmark.info = requireObject(
      root.configuration,
      file,
      'configuration',
      'an object of vLLM / Neuron settings',
    );
  }
  return [benchmark];
}

function queriesPerSecond(metrics: JsonObject, file: string): number {
  if (metrics.throughput_queries_per_sec !== undefined) {
    return requireNonNegative(
      metrics.throughput_queries_per_sec,
      file,
      'metrics.throughput_queries_per_sec',
      'queries per second',
    );
  }
  // Older outputs lack the ratio; the script defines it as total_queries / total_time.
  if (metrics.total_queries === undefined || metrics.total_time === undefined) {
    throw fieldError(
      file,
      'metrics.throughput_queries_per_sec',
      undefined,
      'a number of queries per second, or metrics.total_queries and metrics.total_time to compute it',
    );
  }
  const queries = requireNonNegative(metrics.total_queries, file, 'metrics.total_queries');
  const seconds = requireNonNegative(metrics.total_time, file, 'metrics.total_time', 'seconds');
  if (seconds === 0) throw fieldError(file, 'metrics.total_time', 0, 'a number of seconds > 0');
  return queries / seconds;
}

/** Without raw_times, the script's own numpy percentiles (seconds) are all there is. */
function latencyPercentilesFromMetrics(metrics: JsonObject, file: string): ParsedMetric[] {
  return LATENCY_PERCENTILES.map((p) => {
    const key = `p${p}_time`;
    if (metrics[key] === undefined) {
      throw fieldError(
        file,
        `metrics.${key}`,
        undefined,
        'a number of seconds, since raw_times is missing too',
      );
    }
    return latencyPercentileMetric(p, requireSecondsAsMs(metrics[key], file, `metrics.${key}`));
  });
}

function meanLatencyMs(
  metrics: JsonObject,
  rawTimesMs: number[] | undefined,
  file: string,
): number | undefined {
  const ms = optionalSecondsAsMs(metrics.avg_time_per_query, file, 'metrics.avg_time_per_query');
  if (ms !== undefined) return ms;
  return rawTimesMs ? mean(rawTimesMs) : undefined;
}
