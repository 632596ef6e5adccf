// guidellm 0.1.x reports (`guidellm --output-path report.json`, August 2024 to April 2025):
// {benchmarks: [{benchmarks: [{mode, rate, results, errors, ...}], args}]}, a GuidanceReport
// of TextGenerationBenchmarkReports. A benchmark holds its successful requests one by one in
// `results` (the failed ones in `errors`) and no summary figures, so every metric is
// computed from the requests the way guidellm 0.1 computed it (core/result.py).
//
// Requests come in two shapes. v0.1.0 (PyPI): first_token_time is the seconds from the start
// to the first token, decode_times.data each gap between two tokens after it. guidellm main
// from 3b346b5 (March 2025, still 0.1.0): first_token_time and last_token_time are times
// since the epoch, as start_time and end_time always are.

import { inputError, type GateError } from '../errors.js';
import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import {
  describeValue,
  fieldError,
  isObject,
  noteNotMeasured,
  requireNonNegative,
  requireNumberArray,
  requireObject,
  type JsonObject,
  type NotMeasured,
} from './fields.js';
import { nameOf, uniqueNames } from './guidellm-names.js';
import {
  LATENCY_PERCENTILES,
  msDefinition,
  msMeanMetric,
  msPercentileMetric,
  percentileSuffix,
  rateDefinition,
  rateMetric,
  throughputMetric,
} from './metrics.js';
import {
  addWeighted,
  emptyWeighted,
  totalWeight,
  weightedMean,
  weightedPercentiles,
  type Weighted,
} from './token-weighted.js';

/** What auto-detection says decided. */
export const GUIDELLM_V01_SHAPE =
  'benchmarks[].benchmarks[].mode and .results (a guidellm 0.1.x report)';

/** Per-request times in ms, each counted as often as guidellm 0.1 counts it. */
interface Pools {
  latency: Weighted;
  ttft: Weighted;
  tpot: Weighted;
  itl: Weighted;
}

/** A 0.1 benchmark's requests, read. */
interface Measured {
  path: string;
  mode: string;
  rate: number | undefined;
  succeeded: number;
  errored: number;
  /** Seconds from the first result's start_time to the last one's end_time. */
  durationSeconds: number;
  outputTokens: number;
  pools: Pools;
}

type Named = ParsedBenchmark & { name: string };

/** Times in the order the reader of the current report gives them, and what each needs. */
const TIMES: { pool: keyof Pools; needs: string }[] = [
  { pool: 'latency', needs: 'a start_time and an end_time' },
  { pool: 'ttft', needs: 'a first_token_time' },
  { pool: 'tpot', needs: 'token times and an output_token_count above 0' },
  { pool: 'itl', needs: 'two output tokens or more with their times' },
];

/** Every report holds benchmarks that each have a mode and a list of results. */
export function isGuidellmV01Report(data: JsonObject): boolean {
  const reports = data.benchmarks;
  if (!Array.isArray(reports) || reports.length === 0) return false;
  let benchmarks = 0;
  for (const report of reports) {
    if (!isObject(report) || !Array.isArray(report.benchmarks)) return false;
    for (const entry of report.benchmarks) {
      if (!isObject(entry) || typeof entry.mode !== 'string' || !Array.isArray(entry.results)) {
        return false;
      }
      benchmarks += 1;
    }
  }
  return benchmarks > 0;
}

/** One benchmark per 0.1 benchmark of every report in `reports` (the file's benchmarks[]). */
export function parseGuidellmV01(reports: unknown[], file: string): ParsedBenchmark[] {
  return uniqueNames(
    reports.flatMap((report, index) => parseReport(report, file, `benchmarks[${index}]`)),
  );
}

function parseReport(report: unknown, file: string, path: string): Named[] {
  const object = requireObject(report, file, path, 'a guidellm 0.1 report {benchmarks, args}');
  const entries = object.benchmarks;
  if (!Array.isArray(entries)) {
    throw fieldError(file, `${path}.benchmarks`, entries, 'an array of guidellm 0.1 benchmarks');
  }
  if (entries.length === 0) {
    throw inputError(
      file,
      `${path}.benchmarks is empty: guidellm ran no benchmark; see its output for why.`,
    );
  }
  const args = isObject(object.args) ? object.args : {};
  const measured = entries.map((entry, index) =>
    measure(entry, file, `${path}.benchmarks[${index}]`),
  );
  const range = sweepRange(measured);
  const seen = new Map<string, number>();
  return measured.map((benchmark) => {
    const type = strategyType(benchmark.mode, args);
    seen.set(type, (seen.get(type) ?? 0) + 1);
    const entry = { args: { strategy: { type_: type, rate: benchmark.rate }, ...profileOf(args) } };
    const name = nameOf(entry, benchmark.path, { position: seen.get(type)!, range });
    return toBenchmark(benchmark, name);
  });
}

/**
 * The strategy guidellm ≥ 0.3 names such a benchmark by: 0.1 writes `asynchronous` for
 * constant and poisson rates alike and keeps the rate type in args.mode; its sweep runs
 * constant rates between the synchronous and throughput ones.
 */
function strategyType(mode: string, args: JsonObject): string {
  if (mode !== 'asynchronous') return mode;
  if (args.mode === 'constant' || args.mode === 'poisson') return args.mode;
  return args.mode === 'sweep' ? 'constant' : mode;
}

/** args.mode and args.rate as the profile the shared naming reads (a sweep, rates given). */
function profileOf(args: JsonObject): { profile?: JsonObject } {
  return typeof args.mode === 'string' ? { profile: { type_: args.mode, rate: args.rate } } : {};
}

/** The rates of the report's synchronous and throughput benchmarks, as a 0.1 sweep takes them. */
function sweepRange(measured: Measured[]): [number, number] | undefined {
  const rateOf = (mode: string) => {
    const benchmark = measured.find((m) => m.mode === mode);
    return benchmark && benchmark.durationSeconds > 0
      ? benchmark.succeeded / benchmark.durationSeconds
      : undefined;
  };
  const [low, high] = [rateOf('synchronous'), rateOf('throughput')];
  return low !== undefined && high !== undefined && high > low ? [low, high] : undefined;
}

function measure(entry: unknown, file: string, path: string): Measured {
  const object = requireObject(entry, file, path, 'a guidellm 0.1 benchmark {mode, rate, results}');
  if (typeof object.mode !== 'string' || object.mode === '') {
    throw fieldError(file, `${path}.mode`, object.mode, 'synchronous, throughput or asynchronous');
  }
  const results = object.results;
  if (results === undefined || results === null) throw unreadable(file, `${path}.results`, results);
  if (!Array.isArray(results)) {
    throw fieldError(file, `${path}.results`, results, 'an array of request results');
  }
  const errored = erroredCount(object.errors, file, `${path}.errors`);
  if (results.length === 0) {
    throw inputError(
      file,
      `${path}.results is empty: no request of this benchmark succeeded (${errored} errored); ` +
        `see ${path}.errors[].message and the server log.`,
    );
  }
  const pools = {
    latency: emptyWeighted(),
    ttft: emptyWeighted(),
    tpot: emptyWeighted(),
    itl: emptyWeighted(),
  };
  const spans = results.map((result, index) =>
    readRequest(result, file, `${path}.results[${index}]`, pools),
  );
  return {
    path,
    mode: object.mode,
    rate: optionalRate(object.rate, file, `${path}.rate`),
    succeeded: results.length,
    errored,
    // guidellm 0.1's duration: results are in the order requests completed.
    durationSeconds: spans[spans.length - 1]!.end - spans[0]!.start,
    outputTokens: spans.reduce((sum, span) => sum + span.outputTokens, 0),
    pools,
  };
}

function erroredCount(errors: unknown, file: string, path: string): number {
  if (errors === undefined || errors === null) return 0;
  if (!Array.isArray(errors)) throw fieldError(file, path, errors, 'an array of failed requests');
  return errors.length;
}

function optionalRate(rate: unknown, file: string, path: string): number | undefined {
  if (rate === undefined || rate === null) return undefined;
  return requireNonNegative(rate, file, path, 'requests per second');
}

/** Reads one successful request into `pools`; its span and output tokens for the rates. */
function readRequest(
  value: unknown,
  file: string,
  path: string,
  pools: Pools,
): { start: number; end: number; outputTokens: number } {
  const result = requireObject(value, file, path, 'a request result {start_time, end_time, ...}');
  const start = timestamp(result, 'start_time', file, path);
  const end = timestamp(result, 'end_time', file, path);
  if (end < start) {
    throw fieldError(file, `${path}.end_time`, end, `a time at or after start_time (${start})`);
  }
  const outputTokens = tokenCount(result.output_token_count, file, `${path}.output_token_count`);
  addWeighted(pools.latency, ms(end - start, file, `${path}.end_time`));
  if ('last_token_time' in result) addTokenTimes(result, file, path, start, outputTokens, pools);
  else addDecodeTimes(result, file, path, end - start, outputTokens, pools);
  return { start, end, outputTokens };
}

/** A time since the epoch; without it the report cannot be read at all. */
function timestamp(result: JsonObject, key: string, file: string, path: string): number {
  const value = result[key];
  if (value === undefined || value === null) throw unreadable(file, `${path}.${key}`, value);
  return requireNonNegative(value, file, `${path}.${key}`, 'seconds since the epoch');
}

/** output_token_count: 0 when missing (0.1 counts such a request as no tokens). */
function tokenCount(value: unknown, file: string, path: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw fieldError(file, path, value, 'a whole number of tokens ≥ 0');
  }
  return value;
}

/**
 * v0.1.0: TTFT is first_token_time itself; ITL is every gap of decode_times.data, pooled
 * (0.1.0's itl_distribution); TPOT is the gaps' sum over the output tokens, counted once
 * per token, as guidellm ≥ 0.3 defines it ((last − first token) / output tokens).
 */
function addDecodeTimes(
  result: JsonObject,
  file: string,
  path: string,
  latencySeconds: number,
  outputTokens: number,
  pools: Pools,
): void {
  const first = result.first_token_time;
  if (first !== undefined && first !== null) {
    const at = `${path}.first_token_time`;
    const seconds = requireNonNegative(first, file, at, 'seconds from start_time');
    if (seconds > latencySeconds) {
      throw fieldError(
        file,
        at,
        first,
        `at most end_time − start_time (${latencySeconds} s): guidellm 0.1.0 writes the seconds from start_time to the first token here`,
      );
    }
    addWeighted(pools.ttft, ms(seconds, file, at));
  }
  if (result.decode_times === undefined || result.decode_times === null) return;
  const at = `${path}.decode_times`;
  const decode = requireObject(result.decode_times, file, at, 'a distribution {data: [...]}');
  const gaps = requireNumberArray(decode.data, file, `${at}.data`, 'seconds between two tokens');
  gaps.forEach((gap, index) => addWeighted(pools.itl, ms(gap, file, `${at}.data[${index}]`)));
  if (outputTokens === 0) return;
  const decoding = gaps.reduce((sum, gap) => sum + gap, 0);
  addWeighted(pools.tpot, ms(decoding / outputTokens, file, `${at}.data`), outputTokens);
}

/**
 * main from 3b346b5: TTFT is first_token_time − start_time; ITL is (last − first token) /
 * (output tokens − 1), counted once per gap (that version's itl_distribution); TPOT is
 * (last − first token) / output tokens, counted once per token. A request without a first
 * or last token time has none of them, as guidellm 0.1 leaves it out.
 */
function addTokenTimes(
  result: JsonObject,
  file: string,
  path: string,
  start: number,
  outputTokens: number,
  pools: Pools,
): void {
  const first = tokenTime(result, 'first_token_time', start, 'start_time', file, path);
  if (first === undefined) return;
  addWeighted(pools.ttft, ms(first - start, file, `${path}.first_token_time`));
  const last = tokenTime(result, 'last_token_time', first, 'first_token_time', file, path);
  if (last === undefined) return;
  const at = `${path}.last_token_time`;
  if (outputTokens >= 2) {
    addWeighted(pools.itl, ms((last - first) / (outputTokens - 1), file, at), outputTokens - 1);
  }
  if (outputTokens >= 1) {
    addWeighted(pools.tpot, ms((last - first) / outputTokens, file, at), outputTokens);
  }
}

/** A token's time since the epoch, not before `after`; undefined when 0.1 left it unset. */
function tokenTime(
  result: JsonObject,
  key: string,
  after: number,
  afterKey: string,
  file: string,
  path: string,
): number | undefined {
  const value = result[key];
  if (value === undefined || value === null || value === 0) return undefined;
  const time = requireNonNegative(value, file, `${path}.${key}`, 'seconds since the epoch');
  if (time < after) {
    throw fieldError(file, `${path}.${key}`, value, `a time at or after ${afterKey} (${after})`);
  }
  return time;
}

/** Seconds as ms, refusing what overflows. */
function ms(seconds: number, file: string, path: string): number {
  const value = seconds * 1000;
  if (!Number.isFinite(value))
    throw fieldError(file, path, seconds, 'a plausible number of seconds');
  return value;
}

function toBenchmark(measured: Measured, name: string): Named {
  const notes: NotMeasured = {};
  const metrics = [
    ...rateMetrics(measured, notes),
    ...TIMES.flatMap(({ pool, needs }) =>
      timeMetrics(
        pool,
        measured.pools[pool],
        notes,
        `no request of ${measured.path}.results has ${needs}`,
      ),
    ),
  ];
  const benchmark: Named = { name, metrics, info: infoOf(measured) };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  return benchmark;
}

/** Requests and output tokens per second over guidellm 0.1's duration. */
function rateMetrics(measured: Measured, notes: NotMeasured): ParsedMetric[] {
  const seconds = measured.durationSeconds;
  if (!(seconds > 0)) {
    const reason = `the last result's end_time − the first one's start_time in ${measured.path}.results is ${seconds} s: no time to divide by`;
    noteNotMeasured(notes, rateDefinition('throughput', 'requests/s'), reason);
    noteNotMeasured(notes, rateDefinition('tokens_per_second', 'tokens/s'), reason);
    return [];
  }
  const metrics = [throughputMetric(measured.succeeded / seconds, 'requests/s')];
  if (measured.outputTokens > 0) {
    metrics.push(rateMetric('tokens_per_second', measured.outputTokens / seconds, 'tokens/s'));
  } else {
    noteNotMeasured(
      notes,
      rateDefinition('tokens_per_second', 'tokens/s'),
      `no request of ${measured.path}.results has an output_token_count above 0`,
    );
  }
  return metrics;
}

/** <base>_p50/p95/p99 and <base>_mean of a pool; not measured when it is empty. */
function timeMetrics(
  base: string,
  pool: Weighted,
  notes: NotMeasured,
  reason: string,
): ParsedMetric[] {
  if (totalWeight(pool) === 0) {
    for (const id of [
      ...LATENCY_PERCENTILES.map((p) => `${base}_${percentileSuffix(p)}`),
      `${base}_mean`,
    ]) {
      noteNotMeasured(notes, msDefinition(id), reason);
    }
    return [];
  }
  const values = weightedPercentiles(pool, LATENCY_PERCENTILES);
  return [
    ...LATENCY_PERCENTILES.map((p, index) => msPercentileMetric(base, p, values[index]!)),
    msMeanMetric(base, weightedMean(pool)),
  ];
}

function infoOf(measured: Measured): Record<string, unknown> {
  const info: Record<string, unknown> = { guidellm: '0.1.x', mode: measured.mode };
  if (measured.rate !== undefined) info.rate = measured.rate;
  if (measured.errored > 0) info.errored_requests = measured.errored;
  return info;
}

/** A 0.1 report whose requests carry no timings: nothing in it can be gated. */
function unreadable(file: string, path: string, found: unknown): GateError {
  return inputError(
    file,
    `${path} is ${describeValue(found)}: this guidellm 0.1.x report (benchmarks[].benchmarks[] ` +
      'with mode and results) has no per-request timings, and guidellm 0.1 writes no summary ' +
      'figures, so there is no latency or rate to gate. Re-run the benchmark with guidellm ≥ 0.3 ' +
      '(its --output-path JSON is read as format guidellm), or write the figures to gate as ' +
      'github-action-benchmark custom JSON (--format custom-smaller-is-better).',
  );
}
