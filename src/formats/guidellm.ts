// guidellm `--output kind=json` (or benchmarks.json): one entry per benchmark in
// `benchmarks[]`, each with `metrics.<name>.successful` distributions {mean, median,
// percentiles.{p50, p95, p99, ...}}. request_latency is in seconds, the *_ms ones in ms.

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

/** Where a sweep point ran: its place among its type's points, and the sweep's rates. */
interface SweepPlace {
  position: number;
  /** The request rates the sweep's synchronous and throughput benchmarks measured. */
  range: [number, number] | undefined;
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

function strategyOf(entry: JsonObject): JsonObject | undefined {
  for (const holder of [entry.config, entry.args]) {
    if (isObject(holder) && isObject(holder.strategy)) return holder.strategy;
  }
  return undefined;
}

/**
 * synchronous, throughput, concurrent-4, constant@2.5, poisson@1; else benchmark-<index>.
 * The rates of a sweep are computed from the measured throughput, so they change every
 * run and would never match a baseline: points of a sweep (or rates that look measured,
 * when the file does not say) are named by their share of the sweep's range, constant@25%,
 * constant@50%, ... (sweepPercent), or, when the file lacks the synchronous or throughput
 * benchmark that sets the range, by their position among points of that type, constant#1,
 * constant#2, ...; `position` counts from 1.
 */
function nameOf(entry: JsonObject, path: string, place: SweepPlace): string {
  const strategy = strategyOf(entry);
  const type = strategy?.type_;
  if (strategy && typeof type === 'string' && type !== '') {
    if (typeof strategy.streams === 'number') return `${type}-${strategy.streams}`;
    if (typeof strategy.rate === 'number') {
      if (rateIsConfigured(entry, strategy.rate)) return `${type}@${strategy.rate}`;
      return place.range
        ? `${type}@${sweepPercent(strategy.rate, place.range)}%`
        : `${type}#${place.position}`;
    }
    return type;
  }
  return `benchmark-${/\[(\d+)\]$/.exec(path)?.[1] ?? '0'}`;
}

/**
 * A sweep point's rate as a share of the way from the synchronous rate to the throughput
 * rate, in percent: the same point of every run of the sweep (the rates themselves
 * change with what each run measured), and a point missing on one side shifts no other.
 */
function sweepPercent(rate: number, [low, high]: [number, number]): number {
  // Four decimals, not whole percent: a sweep of 10 puts points at k/8 of the range, and
  // 12.5% computed from two measured rates lands on either side of .5 by rounding error.
  return Number((((rate - low) / (high - low)) * 100).toFixed(4));
}

/** Whether a strategy's rate was given by the user rather than derived from a measurement. */
function rateIsConfigured(entry: JsonObject, rate: number): boolean {
  for (const holder of [entry.config, entry.args]) {
    if (!isObject(holder) || !isObject(holder.profile)) continue;
    const profile = holder.profile;
    if (profile.type_ === 'sweep') return false;
    const given = Array.isArray(profile.rate) ? profile.rate : [profile.rate];
    if (given.some((value) => typeof value === 'number')) return given.includes(rate);
    return typeof profile.type_ === 'string';
  }
  // No profile in the file: a user writes a rate like 2.5, a sweep computes 3.1127449.
  return Number(rate.toFixed(3)) === rate;
}

/** Results are matched to the baseline by name: same-named benchmarks get their index. */
function uniqueNames(benchmarks: (ParsedBenchmark & { name: string })[]): ParsedBenchmark[] {
  const counts = new Map<string, number>();
  for (const { name } of benchmarks) counts.set(name, (counts.get(name) ?? 0) + 1);
  const taken = new Set(benchmarks.filter(({ name }) => counts.get(name) === 1).map((b) => b.name));
  return benchmarks.map((benchmark, index) => {
    if (counts.get(benchmark.name) === 1) return benchmark;
    let name = `${benchmark.name}-${index}`;
    while (taken.has(name)) name = `${name}-${index}`;
    taken.add(name);
    return { ...benchmark, name };
  });
}
