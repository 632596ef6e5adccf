// `vllm bench serve --save-result`: request and token throughput, and for each metric of
// --percentile-metrics (ttft, tpot, itl, e2el) the keys mean_/median_/std_/p<P>_<m>_ms.
// `--save-detailed` adds per-request arrays in seconds (ttfts, itls, latencies, ...), from
// which the percentiles are computed the way vLLM does; `--append-result` appends one
// JSON document per line, one run each.

import { inputError } from '../errors.js';
import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import {
  fieldError,
  isObject,
  measuredOrNoted,
  optionalNonNegative,
  requireNonNegative,
  type NotMeasured,
  requireNumberArray,
  requireObject,
  type JsonObject,
} from './fields.js';
import {
  LATENCY_PERCENTILES,
  finiteMean,
  msMeanMetric,
  msPercentileMetric,
  msPercentilesFromSamples,
  percentileSuffix,
  rateMetric,
  throughputMetric,
} from './metrics.js';
import type { ResultFormat } from './types.js';

/** The per-request metrics vLLM reports, in the order of --percentile-metrics. */
const SERVE_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
type ServeMetric = (typeof SERVE_METRICS)[number];

/** Settings and counts the tool echoes; kept as info for the report. */
const ECHOED = [
  'backend',
  'endpoint_type',
  'label',
  'model_id',
  'tokenizer_id',
  'num_prompts',
  'request_rate',
  'burstiness',
  'max_concurrency',
  'completed',
  'failed',
  'date',
] as const;

/** Echoed settings that make a different workload: --append-result lines that differ in them are different benchmarks. */
const RUN_SETTINGS = [
  'model_id',
  'tokenizer_id',
  'backend',
  'endpoint_type',
  'label',
  'num_prompts',
  'request_rate',
  'burstiness',
  'max_concurrency',
] as const;

/** Older vLLM wrote this key with a trailing colon. */
const GOODPUT_KEYS = ['request_goodput', 'request_goodput:'] as const;

export const vllmBenchServeFormat: ResultFormat = {
  id: 'vllm-bench-serve',
  description:
    'vllm bench serve --save-result output (request_throughput, <stat>_<metric>_ms; one JSON per line with --append-result)',
  detect: (data) => {
    if (!isObject(data) || !('request_throughput' in data)) return undefined;
    const other = ['output_throughput', 'total_token_throughput', 'completed'].find(
      (key) => key in data,
    );
    return other ? `top-level request_throughput and ${other}` : undefined;
  },
  parse: parseVllmBenchServe,
  jsonLines: true,
  runSettings: RUN_SETTINGS,
};

function parseVllmBenchServe(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(data, file, '', 'an object with request_throughput');
  const completed = optionalNonNegative(root.completed, file, 'completed', 'successful requests');
  if (completed === 0) {
    throw inputError(
      file,
      'completed is 0: no request succeeded, so there is nothing to measure. ' +
        'Look for the failures in the benchmark output and the server log.',
    );
  }
  const notes: NotMeasured = {};
  const metrics: ParsedMetric[] = [];
  const measured = (key: string, id: string, what: string) =>
    measuredOrNoted(root[key], file, key, what, id, notes);
  const requests = measured('request_throughput', 'throughput', 'requests per second');
  if (requests === undefined && notes.throughput === undefined) {
    requireNonNegative(root.request_throughput, file, 'request_throughput', 'requests per second');
  }
  if (requests !== undefined) metrics.push(throughputMetric(requests, 'requests/s'));
  const tokens = measured('output_throughput', 'tokens_per_second', 'tokens per second');
  if (tokens !== undefined) metrics.push(rateMetric('tokens_per_second', tokens, 'tokens/s'));
  const total = measured('total_token_throughput', 'total_tokens_per_second', 'tokens per second');
  if (total !== undefined) metrics.push(rateMetric('total_tokens_per_second', total, 'tokens/s'));
  const goodput = goodputOf(root, file);
  if (goodput !== undefined) metrics.push(rateMetric('goodput', goodput, 'requests/s'));

  const samples = detailedSamples(root, file);
  const e2el = metricsOf('e2el', samples.e2el, root, file, notes);
  // latency_* is the end-to-end latency under the name every format shares.
  const asLatency = (id: string) => id.replace(/^e2el_/, 'latency_');
  metrics.push(...e2el.map((metric) => ({ ...metric, id: asLatency(metric.id) })));
  for (const [id, note] of Object.entries(notes)) {
    if (id.startsWith('e2el_')) notes[asLatency(id)] = note;
  }
  for (const name of SERVE_METRICS) {
    metrics.push(...(name === 'e2el' ? e2el : metricsOf(name, samples[name], root, file, notes)));
  }

  const benchmark: ParsedBenchmark = { metrics };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  const info: Record<string, unknown> = {};
  for (const key of ECHOED) {
    if (root[key] !== undefined && root[key] !== null) info[key] = root[key];
  }
  if (Object.keys(info).length > 0) benchmark.info = info;
  return [benchmark];
}

/** request_goodput when --goodput was given; null (not asked for) and missing are absent. */
function goodputOf(root: JsonObject, file: string): number | undefined {
  for (const key of GOODPUT_KEYS) {
    const value = root[key];
    if (value !== undefined && value !== null) {
      return requireNonNegative(value, file, key, 'requests per second');
    }
  }
  return undefined;
}

/** From the per-request samples when there are any, else from the keys the file has. */
function metricsOf(
  name: ServeMetric,
  samplesMs: number[] | undefined,
  root: JsonObject,
  file: string,
  notes: NotMeasured,
): ParsedMetric[] {
  if (samplesMs && samplesMs.length > 0) {
    return [
      ...msPercentilesFromSamples(name, samplesMs),
      msMeanMetric(name, finiteMean(samplesMs)),
    ];
  }
  const metrics: ParsedMetric[] = [];
  for (const p of LATENCY_PERCENTILES) {
    // A percentile that was not in --metric-percentiles is missing: leave it out.
    const keys = p === 50 ? [`p50_${name}_ms`, `median_${name}_ms`] : [`p${p}_${name}_ms`];
    const key = keys.find((candidate) => root[candidate] !== undefined);
    if (key === undefined) continue;
    const id = `${name}_${percentileSuffix(p)}`;
    const value = measuredOrNoted(root[key], file, key, 'ms', id, notes);
    if (value !== undefined) metrics.push(msPercentileMetric(name, p, value));
  }
  const meanKey = `mean_${name}_ms`;
  const mean = measuredOrNoted(root[meanKey], file, meanKey, 'ms', `${name}_mean`, notes);
  if (mean !== undefined) metrics.push(msMeanMetric(name, mean));
  return metrics;
}

type Samples = Partial<Record<ServeMetric, number[]>>;

/**
 * Per-request values in ms of the successful requests, from the --save-detailed arrays
 * (one entry per request, failed ones included with an error and zeros). Like vLLM's
 * calculate_metrics: ITLs of all requests pooled, TPOT = (latency − ttft) / (output − 1)
 * for requests with more than one output token.
 */
function detailedSamples(root: JsonObject, file: string): Samples {
  const ttfts = secondsArray(root, 'ttfts', file);
  const latencies = secondsArray(root, 'latencies', file);
  const itls = nestedSecondsArray(root, 'itls', file);
  const outputLens = optionalCounts(root, 'output_lens', file);
  const errors = Array.isArray(root.errors) ? (root.errors as unknown[]) : undefined;

  const perRequest: [string, readonly unknown[] | undefined][] = [
    ['ttfts', ttfts],
    ['latencies', latencies],
    ['itls', itls],
    ['output_lens', outputLens],
    ['errors', errors],
  ];
  const present = perRequest.filter((entry): entry is [string, readonly unknown[]] => !!entry[1]);
  const first = present[0];
  for (const [key, values] of present) {
    if (first && values.length !== first[1].length) {
      throw inputError(
        file,
        `${key} has ${values.length} item(s) but ${first[0]} has ${first[1].length}; ` +
          'expected one entry per request in every --save-detailed array',
      );
    }
  }
  // A failed request has a non-empty error text (and zeros in the other arrays).
  const ok = (index: number) => {
    const error = errors?.[index];
    return !(typeof error === 'string' && error !== '');
  };
  const pick = (values: number[] | undefined) => values?.filter((_, index) => ok(index));

  const samples: Samples = { ttft: pick(ttfts), e2el: pick(latencies) };
  if (itls) samples.itl = itls.filter((_, index) => ok(index)).flat();
  if (ttfts && latencies && outputLens) {
    samples.tpot = tpotSamples(ttfts, latencies, outputLens, ok, file);
  }
  return samples;
}

function tpotSamples(
  ttfts: number[],
  latencies: number[],
  outputLens: number[],
  ok: (index: number) => boolean,
  file: string,
): number[] {
  const tpots: number[] = [];
  outputLens.forEach((tokens, index) => {
    if (!ok(index) || tokens <= 1) return;
    const decode = latencies[index]! - ttfts[index]!;
    if (decode < 0) {
      throw fieldError(
        file,
        `latencies[${index}]`,
        latencies[index]! / 1000,
        `seconds ≥ ttfts[${index}] (${ttfts[index]! / 1000}): a request ends after its first token`,
      );
    }
    tpots.push(decode / (tokens - 1));
  });
  return tpots;
}

/** A per-request array in seconds as ms, or undefined when the file does not have it. */
function secondsArray(root: JsonObject, key: string, file: string): number[] | undefined {
  if (root[key] === undefined) return undefined;
  const seconds = requireNumberArray(root[key], file, key, 'seconds per request');
  return seconds.map((value, index) => toMs(value, file, `${key}[${index}]`));
}

/** itls: per request, the inter-token latencies in seconds; as ms. */
function nestedSecondsArray(root: JsonObject, key: string, file: string): number[][] | undefined {
  const value = root[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    throw fieldError(file, key, value, 'an array with one array of seconds per request');
  }
  return value.map((inner: unknown, index) => {
    const path = `${key}[${index}]`;
    const seconds = requireNumberArray(inner, file, path, 'seconds between tokens');
    return seconds.map((item, at) => toMs(item, file, `${path}[${at}]`));
  });
}

function optionalCounts(root: JsonObject, key: string, file: string): number[] | undefined {
  if (root[key] === undefined) return undefined;
  const counts = requireNumberArray(root[key], file, key, 'tokens per request');
  const fraction = counts.findIndex((count) => !Number.isInteger(count));
  if (fraction !== -1) {
    throw fieldError(file, `${key}[${fraction}]`, counts[fraction], 'a whole number of tokens');
  }
  return counts;
}

function toMs(seconds: number, file: string, path: string): number {
  const ms = seconds * 1000;
  if (!Number.isFinite(ms)) throw fieldError(file, path, seconds, 'a plausible number of seconds');
  return ms;
}
