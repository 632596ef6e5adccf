import type { z } from 'zod';
import { inputError } from '../errors.js';
import { aggregateRuns, type ParsedRun } from '../formats/aggregate.js';
import {
  findFormat,
  parseResultDocuments,
  readResultDocuments,
  resolveFormat,
} from '../formats/index.js';
import { nameRunsBySettings } from '../formats/run-settings.js';
import type { BenchmarkResult, Metric } from '../model.js';
import {
  BASELINE_FILE_KIND,
  baselineFileSchema,
  benchmarkResultSchema,
  reportFileSchema,
} from './result-schema.js';
import { expandSampleRefs } from './stored-samples.js';
import { recordSizes } from '../stats/records.js';
import { gateRunLoad } from './record-load.js';

type StoredResult = z.infer<typeof benchmarkResultSchema>;

export interface ReadOptions {
  /** Format of benchmark result files: an id or 'auto'. Files the gate wrote are always known. */
  format: string;
  /** Name for results whose file names none (the offline-benchmark script's). */
  fallbackName: string;
  /**
   * Of the records in files the gate wrote (each baseline file or report.json is one
   * record), pool only the newest this many per benchmark.
   */
  window?: number;
  /** What a missing file means here (default: a wrong path); see readTextFile. */
  missing?: string;
}

/** Results from one file the gate wrote, and when it was written. */
interface StoredRecord {
  createdAt: string;
  results: BenchmarkResult[];
}

/**
 * Reads one side of a comparison from files: baseline files and report.json files the
 * gate wrote, or benchmark result files of any supported format, where several files
 * are several runs of the same benchmarks.
 */
export async function readResultFiles(
  paths: string[],
  options: ReadOptions,
): Promise<BenchmarkResult[]> {
  // A typo in the format is reported before any file is read.
  resolveFormat(options.format);
  const records: StoredRecord[] = [];
  const runs: ParsedRun[] = [];
  let runFormat = '';
  for (const path of paths) {
    // Each file is read once, in chunks: result files can be hundreds of MB.
    const read = await readResultDocuments(path, options.format, options.missing);
    const own = read.lines === undefined ? readOwnFile(read.documents[0], path) : undefined;
    if (own) {
      records.push(own);
      continue;
    }
    // Named by their settings below, over the runs of every file of the side.
    const parsed = parseResultDocuments(read, path, options.format, { nameBySettings: false });
    if (runFormat && parsed.format !== runFormat) {
      throw inputError(
        path,
        `is ${parsed.format} but the files before it are ${runFormat}; files on one side are runs of the same benchmark and must share a format`,
      );
    }
    runFormat = parsed.format;
    // A JSON Lines file (vllm bench serve --append-result) holds several runs.
    for (const run of parsed.runs) runs.push({ file: path, benchmarks: run });
  }
  // Files (or lines) of other settings are other benchmarks: one file per request rate is
  // a sweep, not runs of one benchmark.
  const settings = findFormat(runFormat)?.runSettings;
  if (settings) {
    const named = nameRunsBySettings(
      runs.map((run) => run.benchmarks),
      settings,
    );
    named.forEach((benchmarks, index) => (runs[index]!.benchmarks = benchmarks));
    // A warm-up line (`--metadata type=warmup`) is no run of any benchmark.
    runs.splice(0, runs.length, ...runs.filter((run) => run.benchmarks.length > 0));
  }
  const fromRuns = aggregateRuns(runs, options.fallbackName).map((benchmark): BenchmarkResult => ({
    name: benchmark.name,
    format: runFormat,
    metrics: benchmark.metrics,
    runs: runs.map((run, index) => ({
      index: index + 1,
      kind: 'clean',
      ok: true,
      durationMs: 0,
      exitCode: 0,
      timedOut: false,
      resultFile: run.file,
    })),
    ...(benchmark.info ? { info: benchmark.info } : {}),
    ...(benchmark.notMeasured ? { notMeasured: benchmark.notMeasured } : {}),
  }));
  return mergeByName([...newestRecords(records, options.window), ...fromRuns]);
}

/** Per benchmark, the results of the newest `window` records, newest first. */
function newestRecords(
  records: StoredRecord[],
  window = Number.POSITIVE_INFINITY,
): BenchmarkResult[] {
  const newestFirst = [...records].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const taken = new Map<string, number>();
  const kept: BenchmarkResult[] = [];
  for (const record of newestFirst) {
    for (const result of record.results) {
      const count = taken.get(result.name) ?? 0;
      if (count >= window) continue;
      taken.set(result.name, count + 1);
      kept.push(result);
    }
  }
  return kept;
}

/** Results from a baseline file or report.json the gate wrote; undefined for other files. */
function readOwnFile(data: unknown, path: string): StoredRecord | undefined {
  if (!isObject(data)) return undefined;
  const own =
    data.kind === BASELINE_FILE_KIND ||
    (isObject(data.tool) && data.tool.name === 'neuron-perf-gate');
  if (own) expandOwnSamples(data, path);
  if (data.kind === BASELINE_FILE_KIND) {
    const parsed = baselineFileSchema.safeParse(data);
    if (!parsed.success) throw invalidOwnFile(path, 'baseline file', parsed.error);
    return { createdAt: parsed.data.createdAt, results: parsed.data.benchmarks.map(toResult) };
  }
  if (isObject(data.tool) && data.tool.name === 'neuron-perf-gate') {
    const parsed = reportFileSchema.safeParse(data);
    if (!parsed.success) throw invalidOwnFile(path, 'report.json', parsed.error);
    const results = parsed.data.benchmarks.flatMap((b) =>
      b.result && b.result.metrics.length > 0 ? [toResult(b.result)] : [],
    );
    if (results.length === 0) {
      throw inputError(
        path,
        'is a report.json without measured results (every benchmark failed); use the report of a run that measured something',
      );
    }
    return { createdAt: typeof data.createdAt === 'string' ? data.createdAt : '', results };
  }
  return undefined;
}

/**
 * The samples of each result as the gate wrote them (a set written once, `samplesOf`
 * for the metrics sharing it) back on every metric. Changes `data`, which only we hold.
 */
function expandOwnSamples(data: Record<string, unknown>, path: string): void {
  if (!Array.isArray(data.benchmarks)) return;
  data.benchmarks.forEach((benchmark: unknown, index) => {
    if (!isObject(benchmark)) return;
    const result = isObject(benchmark.result) ? benchmark.result : benchmark;
    if (!Array.isArray(result.metrics)) return;
    try {
      expandSampleRefs(result.metrics);
    } catch (error) {
      throw inputError(
        path,
        `benchmarks[${index}]: ${(error as Error).message}. Was it edited by hand? Write it again with --save-baseline.`,
      );
    }
  });
}

function toResult(stored: StoredResult): BenchmarkResult {
  const result = stored as unknown as BenchmarkResult;
  if (!isObject(result.notMeasured)) return result;
  // Files of earlier versions hold a bare reason, without the unit and direction a "not
  // measured" row needs: such a metric is left to show as missing, not guessed.
  const notes = Object.entries(result.notMeasured).filter(([, note]) => isNote(note));
  if (notes.length > 0) return { ...result, notMeasured: Object.fromEntries(notes) };
  const kept = { ...result };
  delete kept.notMeasured;
  return kept;
}

function isNote(note: unknown): boolean {
  return (
    isObject(note) &&
    typeof note.reason === 'string' &&
    typeof note.unit === 'string' &&
    (note.direction === 'higher-is-better' || note.direction === 'lower-is-better')
  );
}

function invalidOwnFile(path: string, what: string, error: z.ZodError) {
  const issue = error.issues[0];
  const where = issue ? issue.path.join('.') || '(top level)' : '(top level)';
  return inputError(
    path,
    `is a neuron-perf-gate ${what} but field '${where}' is invalid: ${issue?.message ?? 'unknown problem'}. Was it edited by hand? Write it again with --save-baseline.`,
  );
}

/** Several sources naming the same benchmark are more runs of it. */
export function mergeByName(results: BenchmarkResult[]): BenchmarkResult[] {
  const byName = new Map<string, BenchmarkResult>();
  for (const result of results) {
    const load = gateRunLoad(result.runs);
    const existing = byName.get(result.name);
    if (!existing) {
      byName.set(result.name, {
        ...structuredClone({ ...result, metrics: [] }),
        metrics: result.metrics.map((metric) => ({ ...copyMetric(metric), hostLoads: [load] })),
      });
      continue;
    }
    for (const metric of result.metrics) {
      const same = existing.metrics.find((m) => m.id === metric.id);
      if (!same) {
        existing.metrics.push({ ...copyMetric(metric), hostLoads: [load] });
        continue;
      }
      // Record boundaries are kept: the spread between records is the day-to-day drift.
      same.records = [...recordSizes(same), ...recordSizes(metric)];
      same.values.push(...metric.values);
      same.hostLoads!.push(load);
      if (metric.samples) (same.samples ??= []).push(...metric.samples);
    }
    existing.runs.push(...result.runs);
  }
  const merged = [...byName.values()];
  for (const metric of merged.flatMap((result) => result.metrics)) {
    // Only sources that each are one gate run say whose load a value had.
    const loads = metric.hostLoads!;
    if (loads.every((l) => l === null) || loads.length !== recordSizes(metric).length) {
      delete metric.hostLoads;
    }
  }
  return merged;
}

/**
 * A metric whose lists can grow without touching the original; the sample runs are
 * shared, not copied (they are never changed, and can be millions of values each).
 */
function copyMetric(metric: Metric): Metric {
  return {
    ...metric,
    values: [...metric.values],
    ...(metric.samples ? { samples: [...metric.samples] } : {}),
    ...(metric.records ? { records: [...metric.records] } : {}),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
