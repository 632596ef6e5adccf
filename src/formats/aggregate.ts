import type {
  Metric,
  NotMeasuredNote,
  ParsedBenchmark,
  RequestTable,
  WarmupRun,
} from '../model.js';

/** One parsed result file: the benchmarks it holds, all from one run. */
export interface ParsedRun {
  file: string;
  benchmarks: ParsedBenchmark[];
}

export interface AggregatedBenchmark {
  name: string;
  metrics: Metric[];
  info?: Record<string, unknown>;
  /** Metric id → why a run's file gave no usable value for it (first reason kept). */
  notMeasured?: Record<string, NotMeasuredNote>;
  /** Per run, its requests one by one (null: not listed); absent when no run lists them. */
  requests?: (RequestTable | null)[];
  /** Per run, the requests it left out as warm-up (null: none); absent when no run did. */
  warmup?: (WarmupRun | null)[];
}

/**
 * Folds several runs (one result file each) into one set of metrics per benchmark: a
 * value per run, samples kept grouped by run. A benchmark the file does not name gets
 * `fallbackName` (the configured benchmark's name).
 */
export function aggregateRuns(runs: ParsedRun[], fallbackName: string): AggregatedBenchmark[] {
  const byName = new Map<string, AggregatedBenchmark>();
  for (const run of runs) {
    for (const parsed of run.benchmarks) {
      const name = parsed.name ?? fallbackName;
      let benchmark = byName.get(name);
      if (!benchmark) {
        benchmark = { name, metrics: [], info: parsed.info };
        byName.set(name, benchmark);
      }
      for (const [id, note] of Object.entries(parsed.notMeasured ?? {})) {
        benchmark.notMeasured ??= {};
        benchmark.notMeasured[id] ??=
          runs.length > 1 ? { ...note, reason: `${note.reason} (${run.file})` } : note;
      }
      for (const measured of parsed.metrics) {
        let metric = benchmark.metrics.find((m) => m.id === measured.id);
        if (!metric) {
          metric = {
            id: measured.id,
            unit: measured.unit,
            direction: measured.direction,
            values: [],
            ...(measured.percentile !== undefined ? { percentile: measured.percentile } : {}),
          };
          benchmark.metrics.push(metric);
        }
        metric.values.push(measured.value);
        if (measured.samples && measured.samples.length > 0) {
          (metric.samples ??= []).push(measured.samples);
        }
      }
    }
  }
  return withRequests([...byName.values()], runs, fallbackName);
}

/** Each benchmark's request tables, one entry per run it appears in, when any run has one. */
function withRequests(
  benchmarks: AggregatedBenchmark[],
  runs: ParsedRun[],
  fallbackName: string,
): AggregatedBenchmark[] {
  for (const benchmark of benchmarks) {
    const tables = runs.flatMap((run) =>
      run.benchmarks
        .filter((parsed) => (parsed.name ?? fallbackName) === benchmark.name)
        .map((parsed) => parsed.requests ?? null),
    );
    if (tables.some((table) => table !== null)) benchmark.requests = tables;
    const warmups = runs.flatMap((run) =>
      run.benchmarks
        .filter((parsed) => (parsed.name ?? fallbackName) === benchmark.name)
        .map((parsed) => parsed.warmup ?? null),
    );
    if (warmups.some((warmup) => warmup !== null)) benchmark.warmup = warmups;
  }
  return benchmarks;
}
