// `vllm bench serve --save-result`: request and token throughput, and for each metric of
// --percentile-metrics (ttft, tpot, itl, e2el) the keys mean_/median_/std_/p<P>_<m>_ms.
// `--save-detailed` adds per-request arrays in seconds (ttfts, itls, latencies, ...), from
// which the percentiles are computed the way vLLM does; `--append-result` appends one
// JSON document per line, one run each.

import { inputError } from '../errors.js';
import type { ParsedBenchmark, ParsedMetric, RequestTable } from '../model.js';
import {
  fieldError,
  isObject,
  measuredOrNoted,
  optionalNonNegative,
  type NotMeasured,
  requireNumberArray,
  requireObject,
  type JsonObject,
} from './fields.js';
import {
  finiteMean,
  LATENCY_PERCENTILES,
  msDefinition,
  msMeanMetric,
  msPercentileMetric,
  msPercentilesFromSamples,
  percentileSuffix,
} from './metrics.js';
import { markSorted } from '../stats/sorted.js';
import { serveRates, type FileKeyName } from './serve-rates.js';
import { withoutWarmup } from './serve-warmup.js';
import { sglangMarker } from './sglang-keys.js';
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

/**
 * The text keys vLLM writes itself (vllm/benchmarks/serve.py); any other top-level text
 * is `--metadata KEY=VALUE`, which serve.py adds to the result as `result[KEY] = VALUE`.
 */
const TEXT_KEYS = new Set([
  'date',
  'endpoint_type',
  'backend',
  'label',
  'model_id',
  'tokenizer_id',
  'request_rate',
  'ramp_up_strategy',
]);

/** `--metadata` tags (`config=tp2`): text keys vLLM does not write itself. */
function metadataOf(root: JsonObject): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(root)) {
    if (typeof value === 'string' && !TEXT_KEYS.has(key)) metadata[key] = value;
  }
  return metadata;
}

const SERVING_KEYS_EXPECTED =
  'a finite number ≥ 0 (requests per second), or latency keys such as mean_ttft_ms and p99_itl_ms';

/** request_throughput, a latency key (`p99_ttft_ms`) or a --save-detailed array. */
function hasServingKeys(root: JsonObject): boolean {
  const latency = /^(mean|median|std|p\d{1,3}(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$/;
  return (
    ['request_throughput', 'ttfts', 'itls', 'latencies'].some((key) => key in root) ||
    Object.keys(root).some((key) => latency.test(key))
  );
}

/** `mean_<metric>_ms`: vLLM writes one for each metric of --percentile-metrics. */
const MEAN_KEYS = SERVE_METRICS.map((name) => `mean_${name}_ms`);

/**
 * A serving result without request_throughput (vllm-ascend's serving files) is known by
 * vLLM's latency keys: the means of two of its metrics (the default --percentile-metrics
 * has three), or a TTFT mean beside the keys the request rate is computed from.
 */
function latencyKeysReason(data: JsonObject): string | undefined {
  const means = MEAN_KEYS.filter((key) => key in data);
  if (means.length >= 2) {
    return `top-level ${means.slice(0, 2).join(' and ')} (vLLM's latency keys; no request_throughput)`;
  }
  const derived = ['completed', 'duration', 'output_throughput', 'mean_ttft_ms'];
  return derived.every((key) => key in data)
    ? `top-level ${derived.join(', ')} (request_throughput is derived)`
    : undefined;
}

export const vllmBenchServeFormat: ResultFormat = {
  id: 'vllm-bench-serve',
  serving: true,
  description:
    'vllm bench serve --save-result output (request_throughput, <stat>_<metric>_ms; one JSON per line with --append-result)',
  detect: (data) => {
    if (!isObject(data)) return undefined;
    // SGLang's bench_serving writes these keys too, and E2E latency under its own names.
    if (sglangMarker(data) !== undefined) return undefined;
    if (!('request_throughput' in data)) return latencyKeysReason(data);
    const other = ['output_throughput', 'total_token_throughput', 'completed'].find(
      (key) => key in data,
    );
    return other ? `top-level request_throughput and ${other}` : undefined;
  },
  parse: (data, file) => {
    const marker = sglangMarker(data);
    if (marker !== undefined) {
      throw inputError(
        file,
        `is SGLang bench_serving output (${marker}), not vLLM's: read as vllm-bench-serve, its E2E latencies would be lost. Set the format to sglang-bench-serving, or auto.`,
      );
    }
    return parseServeResult(data, file);
  },
  jsonLines: true,
  runSettings: RUN_SETTINGS,
  // --save-detailed: one text per request, often most of the file; nothing to measure.
  unusedKeys: ['generated_texts'],
  excludeWarmup: withoutWarmup,
};

/**
 * A serving result in vLLM's keys (SGLang's, once renamed, too); `keyName` gives a key's
 * name in the file for the notes of rates it lacks.
 */
export function parseServeResult(
  data: unknown,
  file: string,
  keyName?: FileKeyName,
): ParsedBenchmark[] {
  const root = requireObject(
    data,
    file,
    '',
    'an object with request_throughput or <stat>_ttft_ms keys',
  );
  const completed = optionalNonNegative(root.completed, file, 'completed', 'successful requests');
  if (completed === 0) {
    throw inputError(
      file,
      'completed is 0: no request succeeded, so there is nothing to measure. ' +
        'Look for the failures in the benchmark output and the server log.',
    );
  }
  const notes: NotMeasured = {};
  const metrics: ParsedMetric[] = serveRates(root, file, notes, keyName);

  const { samples, requests: table } = detailedSamples(root, file);
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
  // Neither a rate nor a latency key: another tool's output, named by what a serving file has.
  if (metrics.length === 0 && !hasServingKeys(root)) {
    throw fieldError(file, 'request_throughput', undefined, SERVING_KEYS_EXPECTED);
  }

  const benchmark: ParsedBenchmark = { metrics };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  if (table) benchmark.requests = withDuration(table, root, file);
  const info: Record<string, unknown> = {};
  for (const key of ECHOED) {
    if (root[key] !== undefined && root[key] !== null) info[key] = root[key];
  }
  const metadata = metadataOf(root);
  if (Object.keys(metadata).length > 0) info.metadata = metadata;
  const derived = metrics.some((metric) => metric.id === 'throughput');
  if (root.request_throughput === undefined && derived) {
    info.request_throughput = 'not in the file: completed ÷ duration';
  }
  if (Object.keys(info).length > 0) benchmark.info = info;
  return [benchmark];
}

/** From the per-request samples when there are any, else from the keys the file has. */
function metricsOf(
  name: ServeMetric,
  samplesMs: Float64Array | undefined,
  root: JsonObject,
  file: string,
  notes: NotMeasured,
): ParsedMetric[] {
  const ps = percentilesOf(root, name);
  if (samplesMs && samplesMs.length > 0) {
    return [
      ...msPercentilesFromSamples(name, samplesMs, ps),
      msMeanMetric(name, finiteMean(samplesMs)),
    ];
  }
  const metrics: ParsedMetric[] = [];
  for (const p of ps) {
    // A percentile that was not in --metric-percentiles is missing: leave it out.
    const keys = p === 50 ? [`p50_${name}_ms`, `median_${name}_ms`] : [`p${p}_${name}_ms`];
    const key = keys.find((candidate) => root[candidate] !== undefined);
    if (key === undefined) continue;
    const id = `${name}_${percentileSuffix(p)}`;
    const value = measuredOrNoted(root[key], file, key, 'ms', msDefinition(id), notes);
    if (value !== undefined) metrics.push(msPercentileMetric(name, p, value));
  }
  const meanKey = `mean_${name}_ms`;
  const mean = measuredOrNoted(
    root[meanKey],
    file,
    meanKey,
    'ms',
    msDefinition(`${name}_mean`),
    notes,
  );
  if (mean !== undefined) metrics.push(msMeanMetric(name, mean));
  return metrics;
}

/**
 * P50, P95 and P99, and every other percentile the file has keys for: vLLM writes
 * `p<P>_<metric>_ms` for each of --metric-percentiles (`90` → p90_ttft_ms, `99.9` →
 * p99.9_ttft_ms; vllm/benchmarks/serve.py, process_one_metric), so a P90 asked for is
 * gated like the others.
 */
function percentilesOf(root: JsonObject, name: ServeMetric): number[] {
  const listed = new Set<number>(LATENCY_PERCENTILES);
  const key = new RegExp(`^p(\\d{1,3}(?:\\.\\d{1,4})?)_${name}_ms$`);
  for (const candidate of Object.keys(root)) {
    const p = Number(key.exec(candidate)?.[1]);
    if (Number.isFinite(p) && p >= 0 && p <= 100) listed.add(p);
  }
  return [...listed].sort((a, b) => a - b);
}

type Samples = Partial<Record<ServeMetric, Float64Array>>;

/** vLLM's `duration` (seconds), the denominator of its rates, when the file has it. */
function withDuration(requests: RequestTable, root: JsonObject, file: string): RequestTable {
  const duration = optionalNonNegative(root.duration, file, 'duration', 'seconds');
  return duration !== undefined && duration > 0
    ? { ...requests, durationSeconds: duration }
    : requests;
}

/**
 * Per-request values in ms of the successful requests, from the --save-detailed arrays
 * (one entry per request, failed ones included with an error and zeros). Like vLLM's
 * calculate_metrics: ITLs of all requests pooled, TPOT = (latency − ttft) / (output − 1)
 * for requests with more than one output token. Each set is one sorted typed array: a
 * 250 MB file holds 6.4 M ITLs, read once, never copied per metric.
 */
function detailedSamples(
  root: JsonObject,
  file: string,
): { samples: Samples; requests?: RequestTable } {
  const ttfts = optionalSeconds(root, 'ttfts', file);
  const latencies = optionalSeconds(root, 'latencies', file);
  const itls = optionalNested(root, 'itls', file);
  const outputLens = optionalCounts(root, 'output_lens', file);
  const errors = Array.isArray(root.errors) ? (root.errors as unknown[]) : undefined;

  const perRequest: [string, { length: number } | undefined][] = [
    ['ttfts', ttfts],
    ['latencies', latencies],
    ['itls', itls],
    ['output_lens', outputLens],
    ['errors', errors],
  ];
  const present = perRequest.filter((entry): entry is [string, { length: number }] => !!entry[1]);
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
  const requests = first?.[1].length ?? 0;
  // A failed request has a non-empty error text (and zeros in the other arrays).
  const ok = new Uint8Array(requests);
  for (let index = 0; index < requests; index += 1) {
    const error = errors?.[index];
    ok[index] = typeof error === 'string' && error !== '' ? 0 : 1;
  }

  const samples: Samples = {};
  if (ttfts) samples.ttft = msOfSuccessful(ttfts, ok, 'ttfts', file);
  if (latencies) samples.e2el = msOfSuccessful(latencies, ok, 'latencies', file);
  if (itls) samples.itl = itlSamples(itls, ok, file);
  if (ttfts && latencies && outputLens) {
    samples.tpot = tpotSamples(ttfts, latencies, outputLens, ok, file);
  }
  if (requests === 0 || (!ttfts && !latencies && !itls)) return { samples };
  return { samples, requests: requestTable({ ttfts, latencies, itls, outputLens }, ok) };
}

/**
 * The successful requests one by one, in the file's order (src/derive/ checks per-request
 * objectives on them). TPOT as vLLM's goodput counts it (calculate_metrics: `all_tpots`,
 * 0 for a request of at most one output token); the arrays were checked by the caller.
 */
function requestTable(
  detail: {
    ttfts: readonly number[] | undefined;
    latencies: readonly number[] | undefined;
    itls: readonly (readonly number[])[] | undefined;
    outputLens: readonly number[] | undefined;
  },
  ok: Uint8Array,
): RequestTable {
  const { ttfts, latencies, itls, outputLens } = detail;
  const succeeded = countOk(ok);
  const column = (value: (index: number) => number) => {
    const values = new Float64Array(succeeded);
    let at = 0;
    for (let index = 0; index < ok.length; index += 1) if (ok[index]) values[at++] = value(index);
    return values;
  };
  const table: RequestTable = { sent: ok.length, succeeded };
  if (ttfts) table.ttft = column((i) => ttfts[i]! * 1000);
  if (latencies) table.e2el = column((i) => latencies[i]! * 1000);
  if (itls)
    table.itlMax = column((i) => itls[i]!.reduce((max, gap) => Math.max(max, gap), 0) * 1000);
  if (ttfts && latencies && outputLens) {
    table.tpot = column((i) =>
      outputLens[i]! > 1 ? (latencies[i]! * 1000 - ttfts[i]! * 1000) / (outputLens[i]! - 1) : 0,
    );
  }
  return table;
}

/** The values of the successful requests in ms, sorted. */
function msOfSuccessful(
  seconds: readonly number[],
  ok: Uint8Array,
  key: string,
  file: string,
): Float64Array {
  const ms = new Float64Array(countOk(ok));
  let at = 0;
  for (let index = 0; index < seconds.length; index += 1) {
    const value = toMs(seconds[index]!, file, `${key}[${index}]`);
    if (ok[index]) ms[at++] = value;
  }
  return markSorted(ms.sort());
}

/** The ITLs of all successful requests, pooled, in ms, sorted. */
function itlSamples(
  itls: readonly (readonly number[])[],
  ok: Uint8Array,
  file: string,
): Float64Array {
  let count = 0;
  for (let index = 0; index < itls.length; index += 1) if (ok[index]) count += itls[index]!.length;
  const ms = new Float64Array(count);
  let at = 0;
  for (let index = 0; index < itls.length; index += 1) {
    const inner = itls[index]!;
    for (let k = 0; k < inner.length; k += 1) {
      const value = toMs(inner[k]!, file, `itls[${index}][${k}]`);
      if (ok[index]) ms[at++] = value;
    }
  }
  return markSorted(ms.sort());
}

function tpotSamples(
  ttfts: readonly number[],
  latencies: readonly number[],
  outputLens: readonly number[],
  ok: Uint8Array,
  file: string,
): Float64Array {
  const tpots: number[] = [];
  outputLens.forEach((tokens, index) => {
    if (!ok[index] || tokens <= 1) return;
    // In ms, as the other sets are, so that TPOT is computed from the same figures.
    const decode = latencies[index]! * 1000 - ttfts[index]! * 1000;
    if (decode < 0) {
      throw fieldError(
        file,
        `latencies[${index}]`,
        latencies[index]!,
        `seconds ≥ ttfts[${index}] (${ttfts[index]!}): a request ends after its first token`,
      );
    }
    tpots.push(decode / (tokens - 1));
  });
  return markSorted(Float64Array.from(tpots).sort());
}

function countOk(ok: Uint8Array): number {
  let count = 0;
  for (const flag of ok) count += flag;
  return count;
}

/** A per-request array in seconds (checked, not yet converted), or undefined when absent. */
function optionalSeconds(root: JsonObject, key: string, file: string): number[] | undefined {
  if (root[key] === undefined) return undefined;
  return requireNumberArray(root[key], file, key, 'seconds per request');
}

/** itls: per request, the inter-token latencies in seconds (checked, not yet converted). */
function optionalNested(root: JsonObject, key: string, file: string): number[][] | undefined {
  const value = root[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    throw fieldError(file, key, value, 'an array with one array of seconds per request');
  }
  value.forEach((inner: unknown, index) =>
    requireNumberArray(inner, file, `${key}[${index}]`, 'seconds between tokens'),
  );
  return value as number[][];
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

/**
 * The runs of a `vllm bench sweep serve` combination's summary.json (a list of vllm bench
 * serve results, each with the run_number and the combination's parameters that
 * vllm/benchmarks/sweep/serve.py adds), each without its run_number, which would otherwise
 * read as a setting of its own, and with the combination's parameters as text, so that
 * lists of several combinations joined into one are told apart by them (run-settings.ts)
 * whatever their type (max_num_seqs 128, enable_prefix_caching true); undefined for any
 * other document.
 */
export function sweepSummaryRuns(data: unknown): JsonObject[] | undefined {
  if (!Array.isArray(data) || data.length === 0) return undefined;
  const entries: JsonObject[] = [];
  for (const entry of data) {
    if (!isObject(entry) || typeof entry.run_number !== 'number') return undefined;
    if (vllmBenchServeFormat.detect(entry) === undefined) return undefined;
    entries.push(entry);
  }
  const parameters = sweepParameters(entries);
  return entries.map((entry) => {
    const result: JsonObject = { ...entry };
    delete result.run_number;
    for (const key of parameters) {
      const value = entry[key];
      if (value !== undefined && typeof value !== 'string') result[key] = JSON.stringify(value);
    }
    return result;
  });
}

/** Keys vLLM's own serving results have (vllm/benchmarks/serve.py), measured or echoed. */
const VLLM_RESULT_KEY =
  /^(date|endpoint_type|backend|label|model_id|tokenizer_id|num_prompts|request_rate|burstiness|max_concurrency|duration|completed|failed|total_input_tokens|total_output_tokens|request_throughput|request_goodput:?|output_throughput|total_token_throughput|max_output_tokens_per_s|max_concurrent_requests|rtfx|input_lens|output_lens|ttfts|itls|generated_texts|errors|start_times|ramp_up_\w+|(mean|median|std|p\d+(\.\d+)?)_\w+_ms|percentiles_\w+)$/;

/**
 * The keys serve.py added as the combination's parameters: not vLLM's own, and the same in
 * every run of a combination (the runs of one combination follow each other, run_number
 * 0, 1, …), so a measured figure a newer vLLM adds is never taken for one.
 */
function sweepParameters(entries: readonly JsonObject[]): string[] {
  const combinations: JsonObject[][] = [];
  entries.forEach((entry, index) => {
    const previous = entries[index - 1];
    const next = !previous || (entry.run_number as number) <= (previous.run_number as number);
    if (next) combinations.push([]);
    combinations.at(-1)!.push(entry);
  });
  const keys = new Set(entries.flatMap((entry) => Object.keys(entry)));
  return [...keys].filter(
    (key) =>
      key !== 'run_number' &&
      !VLLM_RESULT_KEY.test(key) &&
      combinations.every(
        (runs) => new Set(runs.map((run) => JSON.stringify(run[key] ?? null))).size === 1,
      ),
  );
}
