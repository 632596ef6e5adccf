// The metric names the built-in result formats make, and the check that a threshold key
// names one of them: `thruput: 5%` is refused before anything runs, saying which metric
// was meant. Custom formats name their metrics from the file, so any key may be theirs.

import { DEFAULT_KEY, SERVER_VIEW_IDS } from './default-thresholds.js';
import { editDistance } from './did-you-mean.js';

const TIMES = ['latency', 'ttft', 'tpot', 'itl', 'e2el'];
const STATS = ['p50', 'p90', 'p95', 'p99', 'mean', 'min', 'max', 'geomean'];
const NAMES = [
  'throughput',
  'tokens_per_second',
  'total_tokens_per_second',
  'goodput',
  'mfu',
  'mbu',
  // A benchmark's server's launch → ready (runner/served-benchmarks.ts), whatever the format.
  'server_startup',
  // A benchmark's own launch → ready, and its cold start (`startup:`; src/observe/).
  'benchmark_startup',
  'cold_startup',
  'cold_compile_time',
  // The Neuron compile cache around the runs (src/observe/).
  'graphs_compiled',
  'graphs_cached',
  'compile_time',
  // Watched during the clean runs with `monitor:` (src/observe/).
  'device_memory_peak',
  'device_memory_model_code_peak',
  'device_memory_constants_peak',
  'device_memory_tensors_peak',
  'device_memory_scratchpad_peak',
  'device_memory_runtime_peak',
  'neuroncore_utilization_mean',
  'host_rss_peak',
  // The same of the benchmark's server (`server:`; src/observe/server-rss.ts).
  'server_rss_peak',
  // The server's own /metrics around each clean run (`server:`; src/observe/server-view.ts).
  ...SERVER_VIEW_IDS,
  'cost_per_million_tokens',
  'cost_per_million_requests',
  // Derived from the objectives of `slo:` (src/derive/).
  'slo_attainment',
  'capacity',
];
/**
 * Counts, judged by their own rule (compare/compile-cache.ts), never by a spread: a count
 * of graphs changes by whole graphs when the cache or the compiler does, not by noise.
 */
const COUNTS = ['graphs_compiled', 'graphs_cached'];

/** Whether `id` is a count of the built-in metrics (no change points, no interval). */
export function isCountMetric(id: string): boolean {
  return COUNTS.includes(id);
}

const TIME_METRIC = new RegExp(`^(${TIMES.join('|')})_(p\\d{1,3}(_\\d+)?|mean|min|max|geomean)$`);

/** Whether `id` is a metric name the built-in formats (not the custom ones) can report. */
export function isBuiltInMetricName(id: string): boolean {
  return NAMES.includes(id) || TIME_METRIC.test(id);
}

/** Common built-in names, for "did you mean". */
const COMMON = [...NAMES, ...TIMES.flatMap((time) => STATS.map((stat) => `${time}_${stat}`))];

/** The name at most a third of the longer name away: what a typo most likely meant. */
export function closestName(key: string, names: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(key, name);
    const limit = Math.max(2, Math.floor(Math.max(key.length, name.length) / 3));
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/**
 * Why `key` cannot be a threshold of a gate whose benchmarks have `formats`; undefined
 * when it can (a built-in name, `default`, or any name when a benchmark is custom).
 */
export function thresholdKeyProblem(key: string, formats: readonly string[]): string | undefined {
  if (key === DEFAULT_KEY || isBuiltInMetricName(key)) return undefined;
  if (formats.some((format) => format.startsWith('custom-'))) return undefined;
  // A percentile as vLLM's keys write it (p99.9_ttft_ms) is ttft_p99_9 as a metric name.
  const dotted = key.replace(/\./g, '_');
  const meant = isBuiltInMetricName(dotted) ? dotted : closestName(key, COMMON);
  return (
    `'${key}' is not a metric of the built-in formats${meant ? `; did you mean '${meant}'?` : ''} ` +
    '(a benchmark with format custom-bigger-is-better or custom-smaller-is-better may name ' +
    'its own); fix the key, or remove it'
  );
}
