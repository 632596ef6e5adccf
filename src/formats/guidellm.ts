// guidellm `--output kind=json` (or benchmarks.json): one entry per benchmark in
// `benchmarks[]`, each with `metrics.<name>.successful` distributions {mean, median,
// percentiles.{p50, p95, p99, ...}}. request_latency is in seconds, the *_ms ones in ms.
// guidellm 0.1.x reports (benchmarks[].benchmarks[] of per-request results) are read by
// guidellm-v01.ts.

import { inputError } from '../errors.js';
import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import {
  fieldError,
  isObject,
  measuredOrNoted,
  requireObject,
  type JsonObject,
  type NotMeasured,
} from './fields.js';
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
import { nameOf, strategyOf, uniqueNames, type SweepPlace } from './guidellm-names.js';
import { GUIDELLM_V01_SHAPE, isGuidellmV01Report, parseGuidellmV01 } from './guidellm-v01.js';
import type { ResultFormat } from './types.js';

/** guidellm metric → our id prefix and its factor to ms. */
const LATENCIES: { key: string; base: string; toMs: number }[] = [
  { key: 'request_latency', base: 'latency', toMs: 1000 },
  { key: 'time_to_first_token_ms', base: 'ttft', toMs: 1 },
  { key: 'time_per_output_token_ms', base: 'tpot', toMs: 1 },
  { key: 'inter_token_latency_ms', base: 'itl', toMs: 1 },
];

const RATES: { key: string; id: string; unit: string }[] = [
  { key: 'requests_per_second', id: 'throughput', unit: 'requests/s' },
  { key: 'output_tokens_per_second', id: 'tokens_per_second', unit: 'tokens/s' },
  { key: 'tokens_per_second', id: 'total_tokens_per_second', unit: 'tokens/s' },
];

export const guidellmFormat: ResultFormat = {
  id: 'guidellm',
  serving: true,
  description: 'guidellm JSON report (benchmarks[].metrics.<metric>.successful)',
  detect: (data) => {
    if (!isObject(data) || !Array.isArray(data.benchmarks)) return undefined;
    if (isGuidellmV01Report(data)) return GUIDELLM_V01_SHAPE;
    if (isObject(data.metadata) && 'guidellm_version' in data.metadata) {
      return 'benchmarks beside metadata.guidellm_version';
    }
    const entries: unknown[] = data.benchmarks;
    const generative = entries.every(
      (entry) =>
        isObject(entry) &&
        isObject(entry.metrics) &&
        !('stats' in entry) &&
        typeof entry.type_ === 'string' &&
        entry.type_.endsWith('benchmark'),
    );
    return entries.length > 0 && generative
      ? 'benchmarks[].type_ and benchmarks[].metrics'
      : undefined;
  },
  parse: parseGuidellm,
};

function parseGuidellm(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(data, file, '', 'an object with a benchmarks array');
  if (!Array.isArray(root.benchmarks)) {
    throw fieldError(file, 'benchmarks', root.benchmarks, 'an array of benchmark results');
  }
  if (root.benchmarks.length === 0) {
    throw inputError(
      file,
      'benchmarks is empty: guidellm ran no benchmark; see its output for why.',
    );
  }
  const entries: unknown[] = root.benchmarks;
  if (entries.some(isV01Entry)) return parseGuidellmV01(entries, file);
  const range = sweepRange(entries);
  // Position of each entry among the entries of its strategy type (for sweep points).
  const seen = new Map<string, number>();
  const parsed = entries.map((entry, index) => {
    const type = isObject(entry) ? strategyOf(entry)?.type_ : undefined;
    const key = typeof type === 'string' ? type : '';
    seen.set(key, (seen.get(key) ?? 0) + 1);
    return parseEntry(entry, file, `benchmarks[${index}]`, { position: seen.get(key)!, range });
  });
  return uniqueNames(parsed);
}

/** A 0.1.x TextGenerationBenchmarkReport: benchmarks of its own, no metrics. */
function isV01Entry(entry: unknown): boolean {
  return isObject(entry) && Array.isArray(entry.benchmarks) && !('metrics' in entry);
}

/**
 * A sweep runs synchronous, then throughput, then points at rates evenly between the two
 * rates they measured (guidellm's SweepProfile: np.linspace(synchronous_rate,
 * throughput_rate, sweep_size - 1)[1:]). Those two rates, read from the file's own
 * synchronous and throughput benchmarks; undefined when the file lacks either.
 */
function sweepRange(entries: unknown[]): [number, number] | undefined {
  const rateOf = (type: string) => {
    const entry = entries.find((e) => isObject(e) && strategyOf(e)?.type_ === type);
    if (!isObject(entry) || !isObject(entry.metrics)) return undefined;
    const rps = entry.metrics.requests_per_second;
    const mean = isObject(rps) && isObject(rps.successful) ? rps.successful.mean : undefined;
    return typeof mean === 'number' && Number.isFinite(mean) ? mean : undefined;
  };
  const [low, high] = [rateOf('synchronous'), rateOf('throughput')];
  return low !== undefined && high !== undefined && high > low ? [low, high] : undefined;
}

function parseEntry(
  entry: unknown,
  file: string,
  path: string,
  place: SweepPlace,
): ParsedBenchmark & { name: string } {
  const object = requireObject(entry, file, path, 'an object with metrics');
  const metricsPath = `${path}.metrics`;
  const source = requireObject(object.metrics, file, metricsPath, 'an object of distributions');
  const totals = source.request_totals;
  if (isObject(totals) && totals.successful === 0) {
    throw inputError(
      file,
      `${metricsPath}.request_totals.successful is 0: no request of this benchmark succeeded; ` +
        'see the errored requests in the report and the server log.',
    );
  }
  const metrics: ParsedMetric[] = [];
  // guidellm's statistics of no values (TPOT of one-token outputs) are NaN: not measured.
  const notes: NotMeasured = {};
  for (const { key, id, unit } of RATES) {
    const successful = successfulOf(source, key, file, metricsPath);
    if (!successful) continue;
    const path = `${metricsPath}.${key}.successful.mean`;
    const mean = measuredOrNoted(
      successful.mean,
      file,
      path,
      unit,
      rateDefinition(id, unit),
      notes,
    );
    if (mean === undefined) continue;
    metrics.push(id === 'throughput' ? throughputMetric(mean, unit) : rateMetric(id, mean, unit));
  }
  for (const latency of LATENCIES)
    metrics.push(...latencyMetrics(source, latency, file, metricsPath, notes));
  if (metrics.length === 0 && Object.keys(notes).length === 0) {
    throw fieldError(
      file,
      `${metricsPath}.requests_per_second.successful`,
      undefined,
      'the successful distribution of requests_per_second, request_latency, ... (guidellm writes them for every benchmark)',
    );
  }
  const benchmark: ParsedBenchmark & { name: string } = {
    name: nameOf(object, path, place),
    metrics,
  };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  const strategy = strategyOf(object);
  if (strategy) benchmark.info = { strategy };
  return benchmark;
}

/** metrics.<key>.successful, or undefined when guidellm left it out (or it is empty). */
function successfulOf(
  source: JsonObject,
  key: string,
  file: string,
  metricsPath: string,
): JsonObject | undefined {
  const distribution = source[key];
  if (
    distribution === undefined ||
    (isObject(distribution) && distribution.successful === undefined)
  ) {
    return undefined;
  }
  const path = `${metricsPath}.${key}`;
  const object = requireObject(
    distribution,
    file,
    path,
    'an object with a successful distribution',
  );
  const successful = requireObject(
    object.successful,
    file,
    `${path}.successful`,
    'a distribution object',
  );
  return Object.keys(successful).length === 0 ? undefined : successful;
}

function latencyMetrics(
  source: JsonObject,
  { key, base, toMs }: (typeof LATENCIES)[number],
  file: string,
  metricsPath: string,
  notes: NotMeasured,
): ParsedMetric[] {
  const successful = successfulOf(source, key, file, metricsPath);
  if (!successful) return [];
  const path = `${metricsPath}.${key}.successful`;
  const unit = toMs === 1 ? 'ms' : 'seconds';
  const metrics: ParsedMetric[] = [];
  const percentiles =
    successful.percentiles === undefined
      ? {}
      : requireObject(
          successful.percentiles,
          file,
          `${path}.percentiles`,
          'an object like {p50, p95, p99}',
        );
  for (const p of LATENCY_PERCENTILES) {
    const keys: [JsonObject, string, string][] = [
      [percentiles, `p${p}`, `${path}.percentiles.p${p}`],
    ];
    if (p === 50) keys.push([successful, 'median', `${path}.median`]);
    const found = keys.find(([object, name]) => object[name] !== undefined);
    if (!found) continue;
    const [object, name, at] = found;
    const id = `${base}_${percentileSuffix(p)}`;
    const ms = toMsValue(object[name], toMs, file, at, unit, id, notes);
    if (ms !== undefined) metrics.push(msPercentileMetric(base, p, ms));
  }
  if (successful.mean !== undefined) {
    const ms = toMsValue(successful.mean, toMs, file, `${path}.mean`, unit, `${base}_mean`, notes);
    if (ms !== undefined) metrics.push(msMeanMetric(base, ms));
  }
  return metrics;
}

function toMsValue(
  value: unknown,
  factor: number,
  file: string,
  path: string,
  unit: string,
  id: string,
  notes: NotMeasured,
): number | undefined {
  // Read in `unit` (seconds or ms), kept in ms.
  const number = measuredOrNoted(value, file, path, unit, msDefinition(id), notes);
  if (number === undefined) return undefined;
  const ms = number * factor;
  if (!Number.isFinite(ms)) throw fieldError(file, path, value, `a plausible number of ${unit}`);
  return ms;
}
