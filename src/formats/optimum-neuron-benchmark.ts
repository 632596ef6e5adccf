// optimum-neuron's embedding benchmark (huggingface/optimum-neuron,
// benchmark/vllm/embedding_perf.py --output F): one JSON object per run of total_requests
// requests, concurrent_users at a time, against a vLLM server's /v1/embeddings. The rates
// count successful requests and their prompt tokens over wall_time_s; the latencies, in
// ms, are of the successful requests (p90 and p99: the sorted latencies at int(n × 0.9)
// and int(n × 0.99)). The script writes no file when every request failed.

import { inputError } from '../errors.js';
import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import { definedByKeys } from './defining-keys.js';
import {
  nanNote,
  noteNotMeasured,
  optionalNonNegative,
  requireNonNegative,
  requireObject,
  type JsonObject,
  type NotMeasured,
} from './fields.js';
import { msDefinition, rateDefinition, type MetricDefinition } from './metrics.js';
import type { ResultFormat } from './types.js';

/** A figure of the file the gate judges: its key, its metric, and what it counts. */
interface Figure {
  key: string;
  definition: MetricDefinition;
  what: string;
  percentile?: number;
}

const FIGURES: readonly Figure[] = [
  {
    key: 'requests_per_second',
    definition: rateDefinition('throughput', 'requests/s'),
    what: 'successful requests per second',
  },
  {
    // Prompt tokens: an embedding generates none.
    key: 'tokens_per_second',
    definition: rateDefinition('tokens_per_second', 'tokens/s'),
    what: 'prompt tokens per second',
  },
  latencyPercentile(50),
  latencyPercentile(90),
  latencyPercentile(99),
  { key: 'latency_mean_ms', definition: msDefinition('latency_mean'), what: 'ms' },
];

function latencyPercentile(p: number): Figure {
  return {
    key: `latency_p${p}_ms`,
    definition: msDefinition(`latency_p${p}`),
    what: 'ms',
    percentile: p,
  };
}

/**
 * Settings and counts the script writes beside the figures, kept as info. The slowest and
 * fastest request are shown, not gated: one request each, and with 200 requests the P99
 * is the second slowest already.
 */
const ECHOED = [
  'model',
  'concurrent_users',
  'total_requests',
  'target_prompt_tokens',
  'successful',
  'failed',
  'wall_time_s',
  'total_prompt_tokens',
  'latency_min_ms',
  'latency_max_ms',
] as const;

export const optimumNeuronBenchmarkFormat: ResultFormat = {
  id: 'optimum-neuron-benchmark',
  serving: true,
  description:
    "optimum-neuron's embedding benchmark output (embedding_perf.py: requests_per_second, latency_p50_ms … latency_p99_ms)",
  // Every key it gates, and those that say the run measured something and under what load.
  ...definedByKeys([...FIGURES.map((figure) => figure.key), 'concurrent_users', 'successful']),
  parse: parseOptimumNeuronBenchmark,
  // One file per run: files of other settings on one side are other benchmarks.
  runSettings: ['concurrent_users', 'total_requests', 'target_prompt_tokens', 'model'],
};

function parseOptimumNeuronBenchmark(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(
    data,
    file,
    '',
    'an object with requests_per_second and latency_p50_ms',
  );
  const successful = optionalNonNegative(
    root.successful,
    file,
    'successful',
    'successful requests',
  );
  if (successful === 0) {
    throw inputError(
      file,
      'successful is 0: no request succeeded, so there is nothing to measure. ' +
        'Look for the failures in the benchmark output and the vLLM server log.',
    );
  }
  const notes: NotMeasured = {};
  const metrics = FIGURES.flatMap((figure) => {
    const value = figureValue(root, figure, file, notes);
    return value === undefined ? [] : [metricOf(figure, value)];
  });
  const benchmark: ParsedBenchmark = { metrics };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  const info = echoed(root);
  if (Object.keys(info).length > 0) benchmark.info = info;
  return [benchmark];
}

/** The figure's value; undefined, with a note, when the file has NaN or null for it. */
function figureValue(
  root: JsonObject,
  figure: Figure,
  file: string,
  notes: NotMeasured,
): number | undefined {
  if (root[figure.key] !== null) {
    return requireNonNegative(root[figure.key], file, figure.key, figure.what);
  }
  noteNotMeasured(notes, figure.definition, nanNote(figure.key));
  return undefined;
}

function metricOf(figure: Figure, value: number): ParsedMetric {
  const metric: ParsedMetric = { ...figure.definition, value };
  if (figure.percentile !== undefined) metric.percentile = figure.percentile;
  return metric;
}

function echoed(root: JsonObject): Record<string, unknown> {
  const info: Record<string, unknown> = {};
  for (const key of ECHOED) {
    const value = root[key];
    if (typeof value === 'number' || typeof value === 'string') info[key] = value;
  }
  return info;
}
