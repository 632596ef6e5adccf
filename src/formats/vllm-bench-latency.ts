// `vllm bench latency --output-json F`: avg_latency, std_latency, latencies (seconds per
// batch) and percentiles keyed "10" "25" "50" "75" "90" "99" — no P95, so it is computed
// from latencies; without latencies, P95 is left out.

import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import { lacksDefiningKeys } from './defining-keys.js';
import {
  fieldError,
  isObject,
  nanInArray,
  noteNotMeasured,
  requireObject,
  requireSecondsSamplesAsMs,
  secondsAsMsOrNoted,
  type NotMeasured,
} from './fields.js';
import {
  finiteMean,
  LATENCY_PERCENTILES,
  latencyMeanMetric,
  latencyPercentileMetric,
  latencyGeomeanMetrics,
  latencyPercentilesFromSamples,
  msDefinition,
} from './metrics.js';
import type { ResultFormat } from './types.js';

export const vllmBenchLatencyFormat: ResultFormat = {
  id: 'vllm-bench-latency',
  description: 'vllm bench latency --output-json output (avg_latency, latencies, percentiles)',
  detect: (data) => {
    if (!isObject(data) || !('avg_latency' in data)) return undefined;
    const other = ['latencies', 'percentiles'].find((key) => key in data);
    return other ? `top-level avg_latency and ${other}` : undefined;
  },
  // latencies and percentiles without avg_latency: a file it did not write whole.
  lacks: (data) =>
    isObject(data) && !('avg_latency' in data)
      ? lacksDefiningKeys(data, ['avg_latency', 'latencies', 'percentiles'])
      : undefined,
  parse: parseVllmBenchLatency,
};

function parseVllmBenchLatency(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(data, file, '', 'an object with latencies and avg_latency');
  const metrics: ParsedMetric[] = [];
  const notes: NotMeasured = {};
  // A NaN in latencies makes them unusable: the tool's own percentiles are used instead.
  const latenciesNaN = nanInArray(root.latencies, 'latencies');
  let samplesMs: number[] | undefined;
  if (root.latencies !== undefined && latenciesNaN === undefined) {
    samplesMs = requireSecondsSamplesAsMs(root.latencies, file, 'latencies', 'seconds per batch');
    metrics.push(
      ...latencyPercentilesFromSamples(samplesMs),
      ...latencyGeomeanMetrics(samplesMs, notes),
    );
  } else {
    metrics.push(...percentilesFromKeys(root.percentiles, file, notes, latenciesNaN));
  }
  const meanMs = secondsAsMsOrNoted(root.avg_latency, file, 'avg_latency', 'latency_mean', notes);
  if (meanMs !== undefined) metrics.push(latencyMeanMetric(meanMs));
  else if (samplesMs) {
    delete notes.latency_mean;
    metrics.push(latencyMeanMetric(finiteMean(samplesMs)));
  }
  if (metrics.length === 0 && Object.keys(notes).length === 0) {
    throw fieldError(
      file,
      'latencies',
      undefined,
      'an array of seconds, or percentiles or avg_latency',
    );
  }
  const benchmark: ParsedBenchmark = { metrics };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  return [benchmark];
}

/**
 * The tool's own numpy percentiles (seconds); only the ones it wrote. P95, which it never
 * writes, is not measured when latencies has a NaN.
 */
function percentilesFromKeys(
  value: unknown,
  file: string,
  notes: NotMeasured,
  latenciesNaN: string | undefined,
): ParsedMetric[] {
  const percentiles =
    value === undefined
      ? {}
      : requireObject(
          value,
          file,
          'percentiles',
          'an object of seconds keyed by percentile ("50", "99")',
        );
  const metrics: ParsedMetric[] = [];
  for (const p of LATENCY_PERCENTILES) {
    const key = String(p);
    const id = `latency_p${p}`;
    if (percentiles[key] === undefined) {
      if (latenciesNaN !== undefined) noteNotMeasured(notes, msDefinition(id), latenciesNaN);
      continue;
    }
    const ms = secondsAsMsOrNoted(percentiles[key], file, `percentiles.${key}`, id, notes);
    if (ms !== undefined) metrics.push(latencyPercentileMetric(p, ms));
  }
  return metrics;
}
