// The vllm-neuron offline reranker benchmark (`offline_benchmark.py --output-file F`):
// `metrics` with per-query times in seconds, `raw_times` with one latency per query, and
// `configuration` echoing the vLLM / Neuron settings.

import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import { mean } from '../stats/percentile.js';
import {
  fieldError,
  isObject,
  measuredOrNoted,
  nanInArray,
  nanNote,
  noteNotMeasured,
  optionalSecondsAsMs,
  requireObject,
  requireSecondsSamplesAsMs,
  secondsAsMsOrNoted,
  type JsonObject,
  type NotMeasured,
} from './fields.js';
import {
  LATENCY_PERCENTILES,
  latencyMeanMetric,
  latencyPercentileMetric,
  latencyGeomeanMetrics,
  latencyPercentilesFromSamples,
  msDefinition,
  rateDefinition,
  throughputMetric,
} from './metrics.js';
import type { ResultFormat } from './types.js';

/** The throughput this format gives, measured or not. */
const THROUGHPUT = rateDefinition('throughput', 'queries/s');

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
  // A NaN in raw_times (a query the script could not time) makes them unusable: the
  // script's own figures are used instead, or the metric is not measured.
  const rawTimesNaN = nanInArray(root.raw_times, 'raw_times');
  const rawTimesMs =
    root.raw_times === undefined || rawTimesNaN !== undefined
      ? undefined
      : requireSecondsSamplesAsMs(root.raw_times, file, 'raw_times', 'seconds per query');

  const notes: NotMeasured = {};
  const parsed: ParsedMetric[] = [];
  const queries = queriesPerSecond(metrics, file, notes);
  if (queries !== undefined) parsed.push(throughputMetric(queries, THROUGHPUT.unit));
  parsed.push(
    ...(rawTimesMs
      ? latencyPercentilesFromSamples(rawTimesMs)
      : latencyPercentilesFromMetrics(metrics, file, notes, rawTimesNaN)),
  );
  const meanMs = meanLatencyMs(metrics, rawTimesMs, file, notes);
  if (meanMs !== undefined) parsed.push(latencyMeanMetric(meanMs));
  if (rawTimesMs) parsed.push(...latencyGeomeanMetrics(rawTimesMs, notes));

  // The script's file names no benchmark: the config entry that ran it does.
  const benchmark: ParsedBenchmark = { metrics: parsed };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
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

function queriesPerSecond(
  metrics: JsonObject,
  file: string,
  notes: NotMeasured,
): number | undefined {
  if (metrics.throughput_queries_per_sec !== undefined) {
    return measuredOrNoted(
      metrics.throughput_queries_per_sec,
      file,
      'metrics.throughput_queries_per_sec',
      'queries per second',
      THROUGHPUT,
      notes,
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
  const queries = measuredOrNoted(
    metrics.total_queries,
    file,
    'metrics.total_queries',
    'queries',
    THROUGHPUT,
    notes,
  );
  const seconds = measuredOrNoted(
    metrics.total_time,
    file,
    'metrics.total_time',
    'seconds',
    THROUGHPUT,
    notes,
  );
  if (queries === undefined || seconds === undefined) return undefined;
  if (seconds === 0) throw fieldError(file, 'metrics.total_time', 0, 'a number of seconds > 0');
  return queries / seconds;
}

/** Without raw_times, the script's own numpy percentiles (seconds) are all there is. */
function latencyPercentilesFromMetrics(
  metrics: JsonObject,
  file: string,
  notes: NotMeasured,
  rawTimesNaN: string | undefined,
): ParsedMetric[] {
  return LATENCY_PERCENTILES.flatMap((p) => {
    const key = `p${p}_time`;
    const id = `latency_p${p}`;
    if (metrics[key] === undefined) {
      if (rawTimesNaN !== undefined) {
        noteNotMeasured(notes, msDefinition(id), `${rawTimesNaN}, and metrics.${key} is missing`);
        return [];
      }
      throw fieldError(
        file,
        `metrics.${key}`,
        undefined,
        'a number of seconds, since raw_times is missing too',
      );
    }
    const ms = secondsAsMsOrNoted(metrics[key], file, `metrics.${key}`, id, notes);
    return ms === undefined ? [] : [latencyPercentileMetric(p, ms)];
  });
}

function meanLatencyMs(
  metrics: JsonObject,
  rawTimesMs: number[] | undefined,
  file: string,
  notes: NotMeasured,
): number | undefined {
  const path = 'metrics.avg_time_per_query';
  const value = metrics.avg_time_per_query;
  if (value !== null && value !== undefined) return optionalSecondsAsMs(value, file, path);
  if (rawTimesMs) return mean(rawTimesMs);
  if (value === null) noteNotMeasured(notes, msDefinition('latency_mean'), nanNote(path));
  return undefined;
}
