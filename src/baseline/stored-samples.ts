// Per-request samples as the gate writes them to its own files (baseline records,
// report.json, baseline files): each distinct sample set reduced once to a budget
// (percentiles preserved, see reduce-samples.ts) and rounded to SAMPLE_DIGITS, written
// once (a metric whose samples repeat an earlier metric's says `"samplesOf": "<id>"`)
// with each run on one line. latency_p50/p95/p99 hold the same requests: without this,
// a file carried 3× the samples of a large result, unreduced.

import type { Metric, SampleRun } from '../model.js';
import { percentiles } from '../stats/percentile.js';
import { pooledSorted } from '../stats/sorted.js';
import {
  MAX_RECORD_SAMPLES,
  MAX_STORED_SAMPLES,
  reduceSamples,
  sampleBudgetPerSet,
} from './reduce-samples.js';

/** Stored samples keep this many significant digits (a latency in ms: 0.1 ns or better). */
export const SAMPLE_DIGITS = 7;

/** Figures of all measured samples of a set, pooled, taken before the reduction. */
export interface PooledFigures {
  samples: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface StoredSamples {
  /** Reduced and rounded, one array per run; metrics sharing a set share these arrays. */
  reduced: number[][];
  pooled?: PooledFigures;
}

/**
 * Reduces each metric's samples to the per-metric budget of a result with this many
 * sample sets, sharing the work (and the reduced arrays) between metrics that carry the
 * same per-run arrays.
 */
export function storedSampleReducer(
  metrics: readonly Metric[],
  perMetric = MAX_STORED_SAMPLES,
  perResult = MAX_RECORD_SAMPLES,
): (samples: readonly SampleRun[]) => StoredSamples {
  const budget = sampleBudgetPerSet(distinctSampleSets(metrics), perMetric, perResult);
  const done = new Map<string, StoredSamples>();
  const keyOf = sampleSetKeys();
  return (samples) => {
    const key = keyOf(samples);
    let entry = done.get(key);
    if (!entry) {
      const reduced = reduceSamples(samples, budget).map((run) => run.map(roundSample));
      const pooled = pooledFigures(samples);
      entry = { reduced, ...(pooled ? { pooled } : {}) };
      done.set(key, entry);
    }
    return entry;
  };
}

/** The metrics with their samples reduced like a stored record's (other fields as they are). */
export function withStoredSamples(
  metrics: readonly Metric[],
  perResult = MAX_RECORD_SAMPLES,
): Metric[] {
  const reduce = storedSampleReducer(metrics, MAX_STORED_SAMPLES, perResult);
  return metrics.map((metric) =>
    metric.samples ? { ...metric, samples: reduce(metric.samples).reduced } : metric,
  );
}

/** How many different per-request sample sets the metrics carry (shared arrays count once). */
export function distinctSampleSets(metrics: readonly Metric[]): number {
  const keyOf = sampleSetKeys();
  const sets = new Set<string>();
  for (const metric of metrics) {
    if (metric.samples && metric.samples.length > 0) sets.add(keyOf(metric.samples));
  }
  return sets.size;
}

/**
 * A key per sample set that is the same for metrics sharing the same per-run arrays
 * (latency_p50/p95/p99 hold the same request latencies), without comparing values.
 */
function sampleSetKeys(): (samples: readonly SampleRun[]) => string {
  const ids = new Map<SampleRun, number>();
  return (samples) =>
    samples
      .map((run) => {
        let id = ids.get(run);
        if (id === undefined) ids.set(run, (id = ids.size));
        return id;
      })
      .join(',');
}

function roundSample(value: number): number {
  return Number(value.toPrecision(SAMPLE_DIGITS));
}

/** Count and numpy-linear P50/P95/P99 of all samples pooled; undefined when there are none. */
export function pooledFigures(
  samples: readonly SampleRun[] | undefined,
): PooledFigures | undefined {
  const count = samples?.reduce((sum, run) => sum + run.length, 0) ?? 0;
  if (!samples || count === 0) return undefined;
  const [p50, p95, p99] = percentiles(pooledSorted(samples), [50, 95, 99]);
  return { samples: count, p50: p50!, p95: p95!, p99: p99! };
}

/**
 * Pretty JSON (2 spaces) of documents holding metrics, where `metrics()` has put each run
 * of samples on one line and repeated sample sets as `samplesOf` references.
 */
export class SampleRunsJson {
  private readonly runs: string[] = [];

  /** The metrics as written: samplesOf for a repeated set, each run a placeholder. */
  metrics(metrics: readonly Metric[]): unknown[] {
    const written: { id: string; samples: readonly SampleRun[] }[] = [];
    return metrics.map((metric) => {
      if (!metric.samples) return metric;
      const same = written.find((w) => sameSamples(w.samples, metric.samples!));
      if (same) {
        const { samples: _samples, ...rest } = metric;
        void _samples;
        return { ...rest, samplesOf: same.id };
      }
      written.push({ id: metric.id, samples: metric.samples });
      // Each run becomes a placeholder string, swapped for its one-line JSON below.
      const placeholders = metric.samples.map(
        (run) => `\u0000perf-gate-samples:${this.runs.push(JSON.stringify(Array.from(run))) - 1}`,
      );
      return { ...metric, samples: placeholders };
    });
  }

  /** Numbers written on one line where they stand (a latency histogram's edges and counts). */
  oneLine(values: readonly number[]): string {
    return `\u0000perf-gate-samples:${this.runs.push(JSON.stringify(values)) - 1}`;
  }

  /** `document` as pretty JSON with a final newline, the runs on one line each. */
  stringify(document: unknown): string {
    const text = JSON.stringify(document, null, 2);
    return `${text.replace(/"\\u0000perf-gate-samples:(\d+)"/g, (_m, index: string) => this.runs[Number(index)]!)}\n`;
  }
}

function sameSamples(a: readonly SampleRun[], b: readonly SampleRun[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((run, i) => {
    const other = b[i]!;
    if (run === other) return true;
    if (run.length !== other.length) return false;
    for (let j = 0; j < run.length; j += 1) if (run[j] !== other[j]) return false;
    return true;
  });
}

/**
 * Undoes SampleRunsJson on parsed data, in place: `samplesOf` references resolved to a copy
 * of the earlier metric's samples; pooled samples (one flat array, older files) taken as one
 * run. Throws naming the metric when a reference points nowhere.
 */
export function expandSampleRefs(metrics: unknown[]): void {
  const byId = new Map<string, unknown>();
  for (const metric of metrics) {
    if (!isObject(metric)) continue;
    if (Array.isArray(metric.samples) && metric.samples.every((v) => typeof v === 'number')) {
      metric.samples = metric.samples.length > 0 ? [metric.samples] : [];
    }
    if (metric.samplesOf !== undefined) {
      const source = byId.get(String(metric.samplesOf));
      if (source === undefined) {
        throw new Error(
          `metric '${String(metric.id)}' takes its samples from '${String(metric.samplesOf)}', which the file does not hold before it`,
        );
      }
      metric.samples = Array.isArray(source)
        ? source.map((run: unknown) => (Array.isArray(run) ? run.slice() : run))
        : source;
      delete metric.samplesOf;
    }
    if (typeof metric.id === 'string' && metric.samples !== undefined) {
      byId.set(metric.id, metric.samples);
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
