// pytest-benchmark's `--benchmark-json` output: one `benchmarks[]` entry per benchmarked
// test (and per parameter set), `stats` in seconds per iteration.

import { inputError } from '../errors.js';
import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import { mean } from '../stats/percentile.js';
import {
  fieldError,
  isObject,
  measuredOrNoted,
  nanInArray,
  nanNote,
  noteNotMeasured,
  requireNonNegative,
  requireObject,
  requireSecondsSamplesAsMs,
  secondsAsMsOrNoted,
  type JsonObject,
  type NotMeasured,
} from './fields.js';
import {
  latencyMeanMetric,
  latencyPercentileMetric,
  latencyPercentilesFromSamples,
  msDefinition,
  rateDefinition,
  throughputMetric,
} from './metrics.js';
import type { ResultFormat } from './types.js';

/** The throughput this format gives, measured or not. */
const THROUGHPUT = rateDefinition('throughput', 'ops/s');

/** Every pytest-benchmark entry has a name: the test's. */
type NamedBenchmark = ParsedBenchmark & { name: string };

export const pytestBenchmarkFormat: ResultFormat = {
  id: 'pytest-benchmark',
  description: 'pytest --benchmark-json output (benchmarks[].stats, seconds per iteration)',
  detect: looksLikePytestBenchmark,
  parse: parsePytestBenchmark,
};

function looksLikePytestBenchmark(data: unknown): string | undefined {
  if (!isObject(data) || !Array.isArray(data.benchmarks)) return undefined;
  const entries: unknown[] = data.benchmarks;
  const hasStats = (entry: unknown) => isObject(entry) && isObject(entry.stats);
  // machine_info / version are what pytest-benchmark writes around its benchmarks; other
  // tools with a `benchmarks` array (guidellm) have neither at the top level.
  if ('machine_info' in data || 'version' in data) {
    return entries.every(hasStats)
      ? `benchmarks[].stats beside a top-level ${'machine_info' in data ? 'machine_info' : 'version'}`
      : undefined;
  }
  const named = entries.every(
    (entry) => hasStats(entry) && typeof (entry as JsonObject).fullname === 'string',
  );
  return entries.length > 0 && named ? 'benchmarks[].fullname and benchmarks[].stats' : undefined;
}

function parsePytestBenchmark(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(data, file, '', 'an object with a benchmarks array');
  if (!Array.isArray(root.benchmarks)) {
    throw fieldError(file, 'benchmarks', root.benchmarks, 'an array of benchmark results');
  }
  if (root.benchmarks.length === 0) {
    throw inputError(
      file,
      'benchmarks is empty: no benchmark ran. pytest-benchmark leaves out benchmarks whose ' +
        'test errored, so look for failures in the pytest output.',
    );
  }
  const firstIndexByName = new Map<string, number>();
  return root.benchmarks.map((entry: unknown, index) => {
    const path = `benchmarks[${index}]`;
    const benchmark = parseEntry(entry, file, path);
    const earlier = firstIndexByName.get(benchmark.name);
    // Results are matched to the baseline by name, so two entries must not share one.
    if (earlier !== undefined) {
      throw inputError(
        file,
        `${path}.fullname ${JSON.stringify(benchmark.name)} is the same as benchmarks[${earlier}]; ` +
          'expected one entry per benchmark',
      );
    }
    firstIndexByName.set(benchmark.name, index);
    return benchmark;
  });
}

function parseEntry(entry: unknown, file: string, path: string): NamedBenchmark {
  const object = requireObject(entry, file, path, 'an object with fullname and stats');
  const statsPath = `${path}.stats`;
  const stats = requireObject(object.stats, file, statsPath, 'an object of timings in seconds');

  // `data` holds one value per round, already divided by `iterations` by pytest-benchmark
  // (Metadata.update), so it is seconds per call like min/median/mean: no scaling here.
  // A NaN round makes the rounds unusable: the figures pytest-benchmark computed are used.
  const dataNaN = nanInArray(stats.data, `${statsPath}.data`);
  const dataMs =
    stats.data === undefined || dataNaN !== undefined
      ? undefined
      : requireSecondsSamplesAsMs(stats.data, file, `${statsPath}.data`, 'seconds per iteration');

  const notes: NotMeasured = {};
  const metrics: ParsedMetric[] = [];
  const ops = operationsPerSecond(stats, file, statsPath, notes);
  if (ops !== undefined) metrics.push(throughputMetric(ops, THROUGHPUT.unit));
  metrics.push(...latencyPercentiles(stats, dataMs, dataNaN, file, statsPath, notes));

  if (stats.mean === undefined && !dataMs && dataNaN === undefined) {
    throw fieldError(file, `${statsPath}.mean`, undefined, 'a number of seconds');
  }
  const meanMs = secondsAsMsOrNoted(stats.mean, file, `${statsPath}.mean`, 'latency_mean', notes);
  if (meanMs !== undefined) metrics.push(latencyMeanMetric(meanMs));
  else if (dataMs) {
    delete notes.latency_mean;
    metrics.push(latencyMeanMetric(mean(dataMs)));
  } else if (stats.mean === undefined) {
    noteNotMeasured(notes, msDefinition('latency_mean'), dataNaN!);
  }
  // pytest-benchmark's own compare leads with min: the least disturbed round.
  const minMs = secondsAsMsOrNoted(stats.min, file, `${statsPath}.min`, 'latency_min', notes);
  if (minMs !== undefined) metrics.push({ ...latencyMeanMetric(minMs), id: 'latency_min' });

  const benchmark: NamedBenchmark = { name: benchmarkName(object, file, path), metrics };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  const info = echoedSettings(object);
  if (info) benchmark.info = info;
  return benchmark;
}

function latencyPercentiles(
  stats: JsonObject,
  dataMs: number[] | undefined,
  dataNaN: string | undefined,
  file: string,
  statsPath: string,
  notes: NotMeasured,
): ParsedMetric[] {
  // Rounds of a micro-benchmark are not independent requests (one warm process, the same
  // call in a loop): their percentiles are figures of this run, without per-request samples,
  // so intervals come from runs, not from a bootstrap of rounds that understates the noise.
  // P95/P99 of rounds are timer and GC noise: shown, not gated by default (default-thresholds.ts).
  if (dataMs) {
    return latencyPercentilesFromSamples(dataMs).map(({ samples: _rounds, ...metric }) => metric);
  }
  // Without `data` (a --benchmark-save file without --benchmark-save-data) only the median
  // is known; P95/P99 are left out rather than guessed.
  if (dataNaN !== undefined) {
    noteNotMeasured(notes, msDefinition('latency_p95'), dataNaN);
    noteNotMeasured(notes, msDefinition('latency_p99'), dataNaN);
  }
  if (stats.median === undefined) {
    if (dataNaN !== undefined) {
      noteNotMeasured(notes, msDefinition('latency_p50'), dataNaN);
      return [];
    }
    requireSeconds(stats, 'median', file, statsPath, 'since data is missing');
  }
  const ms = secondsAsMsOrNoted(stats.median, file, `${statsPath}.median`, 'latency_p50', notes);
  return ms === undefined ? [] : [latencyPercentileMetric(50, ms)];
}

function benchmarkName(entry: JsonObject, file: string, path: string): string {
  for (const key of ['fullname', 'name']) {
    const value = entry[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  throw fieldError(
    file,
    `${path}.fullname`,
    entry.fullname,
    'the test name pytest-benchmark writes (fullname, or at least name)',
  );
}

function operationsPerSecond(
  stats: JsonObject,
  file: string,
  statsPath: string,
  notes: NotMeasured,
): number | undefined {
  if (stats.ops !== undefined) {
    const path = `${statsPath}.ops`;
    return measuredOrNoted(stats.ops, file, path, 'operations per second', THROUGHPUT, notes);
  }
  // Files from before pytest-benchmark 3.1 lack ops; it fills it in itself as 1 / mean.
  if (stats.mean === null) {
    noteNotMeasured(notes, THROUGHPUT, nanNote(`${statsPath}.mean`));
    return undefined;
  }
  const meanSeconds = requireSeconds(stats, 'mean', file, statsPath, 'since ops is missing');
  if (meanSeconds === 0) throw fieldError(file, `${statsPath}.mean`, 0, 'a number of seconds > 0');
  return 1 / meanSeconds;
}

function requireSeconds(
  stats: JsonObject,
  key: string,
  file: string,
  statsPath: string,
  why = '',
): number {
  return requireNonNegative(
    stats[key],
    file,
    `${statsPath}.${key}`,
    why ? `seconds, ${why}` : 'seconds',
  );
}

/** group, params and extra_info, when the file has them: shown in the report. */
function echoedSettings(entry: JsonObject): Record<string, unknown> | undefined {
  const info: Record<string, unknown> = {};
  for (const key of ['group', 'params', 'extra_info']) {
    const value = entry[key];
    const empty =
      value === null || value === undefined || (isObject(value) && Object.keys(value).length === 0);
    if (!empty) info[key] = value;
  }
  return Object.keys(info).length > 0 ? info : undefined;
}
