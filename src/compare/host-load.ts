// A busy host's timings, judged at the host's load: the stored gate runs of a benchmark
// whose runs recorded how busy the host was (runner/host-load.ts) teach each timing's
// slope on that load (stats/load-slope.ts), and every stored gate run's values are taken
// to the load the current gate run had, so the change compares like with like. Nothing
// moves where the history has no load, little spread of it, or no slope beyond its noise;
// a load beyond the stored ones is taken only to the busiest of them (no extrapolation);
// device figures (MFU, MBU), memory and counts are not timings of the host.
//
// Why the baseline moves and not the current: the current values are what the report and
// the stored record show; the baseline is already an estimate built for the comparison.

import { gateRunLoad } from '../baseline/record-load.js';
import type { BenchmarkResult, Metric, SampleRun } from '../model.js';
import { PROFILE_METRIC_IDS } from '../profile/metrics.js';
import { loadSlope, type LoadPoint, type LoadSlope } from '../stats/load-slope.js';
import { median } from '../stats/percentile.js';
import { valuesByRecord } from '../stats/records.js';

/** Units of figures that are not timings of the host: shares, memory, counts. */
const NOT_TIMING_UNITS = new Set(['%', 'MiB', 'GiB', 'bytes', 'graphs']);

/** A current load at least this (share of CPU to others) is called a busy host. */
const BUSY_LOAD = 0.15;

/** An adjustment of the change smaller than this is not worth a word. */
const NOTE_FROM = 0.0005;

export interface LoadAdjusted {
  /** The baseline with its timings taken to the current gate run's load. */
  baseline: BenchmarkResult | undefined;
  /** Metric id → what the reason says of the adjustment. */
  notes: Map<string, string>;
  /** On a busy host, the line the benchmark's warnings show (a passing metric has no reason shown). */
  warnings: string[];
}

/** The baseline's timings taken to the current gate run's host load, where they can be. */
export function loadAdjusted(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
): LoadAdjusted {
  const notes = new Map<string, string>();
  const changes = new Map<string, number>();
  const load = gateRunLoad(current.runs);
  if (!baseline || load === null) return { baseline, notes, warnings: [] };
  const metrics = baseline.metrics.map((metric) => {
    const adjusted = isHostTiming(metric) ? adjustedMetric(metric, load) : undefined;
    if (!adjusted || Math.abs(adjusted.change) < NOTE_FROM) return metric;
    notes.set(metric.id, adjustmentNote(adjusted));
    changes.set(metric.id, adjusted.change);
    return adjusted.metric;
  });
  if (notes.size === 0) return { baseline, notes, warnings: [] };
  return { baseline: { ...baseline, metrics }, notes, warnings: busyWarning(load, changes) };
}

/** "host busy: …; its timings judged at that load (latency_p50 −4.1%, throughput +4.3%)". */
function busyWarning(load: number, changes: Map<string, number>): string[] {
  if (load < BUSY_LOAD) return [];
  const listed = [...changes].slice(0, 3).map(([id, change]) => `${id} ${signed(change)}`);
  const more = changes.size > 3 ? `, ${changes.size - 3} more` : '';
  return [
    `host busy: other processes took ${share(load)} of the CPU during these runs; its ` +
      `timings were judged against the baseline taken to that load, the changes adjusted ` +
      `(${listed.join(', ')}${more}): see each metric's reason`,
  ];
}

function share(x: number): string {
  return `${(100 * x).toFixed(0)}%`;
}

function signed(change: number): string {
  return `${change < 0 ? '−' : '+'}${(100 * Math.abs(change)).toFixed(1)}%`;
}

/** A timing of the host, not of the device, not paired in blocks on one host (A/B). */
export function isHostTiming(metric: Metric): boolean {
  return (
    !PROFILE_METRIC_IDS.includes(metric.id) &&
    !NOT_TIMING_UNITS.has(metric.unit) &&
    metric.blocks === undefined
  );
}

interface AdjustedMetric {
  metric: Metric;
  /** The current load, and the load the stored gate runs were taken to. */
  load: number;
  target: number;
  slope: LoadSlope;
  /** How much the change (current ÷ baseline − 1) moved, in the metric's own terms. */
  change: number;
}

/** One record's values and its load; null where the record did not measure it. */
interface StoredGateRun {
  values: readonly number[];
  load: number | null;
}

function adjustedMetric(metric: Metric, load: number): AdjustedMetric | undefined {
  const window = storedGateRuns(valuesByRecord(metric), metric.hostLoads);
  const older = storedGateRuns(metric.olderRecords ?? [], metric.olderHostLoads);
  if (!window || window.every((run) => run.load === null)) return undefined;
  // A level is a log: a metric that can be zero (goodput, a count of errors) is left alone.
  const stored = [metric.values, ...(metric.olderRecords ?? [])];
  if (!stored.every((values) => values.every((v) => v > 0 && Number.isFinite(v)))) return undefined;
  // Samples go with their run's value; a metric where they do not cannot be adjusted.
  if (metric.samples && metric.samples.length !== metric.values.length) return undefined;
  const slower = metric.direction === 'higher-is-better' ? -1 : 1;
  const points: LoadPoint[] = [...window, ...(older ?? [])].flatMap((run) =>
    run.load === null || run.values.length === 0
      ? []
      : [{ load: run.load, level: slower * median(run.values.map(Math.log)) }],
  );
  const slope = loadSlope(points);
  if (!slope || slope.slope === 0) return undefined;
  const target = Math.min(Math.max(load, slope.range[0]), slope.range[1]);
  // Each stored value × exp(±slope × (target − its load)): slower where it was quieter.
  const factorOf = (runLoad: number | null) =>
    runLoad === null ? 1 : Math.exp(slower * slope.slope * (target - runLoad));
  const factors = window.flatMap((run) => run.values.map(() => factorOf(run.load)));
  const meanLog = factors.reduce((s, f) => s + Math.log(f), 0) / factors.length;
  return {
    metric: {
      ...metric,
      values: metric.values.map((v, i) => v * factors[i]!),
      ...(metric.samples
        ? { samples: metric.samples.map((run, i) => scaled(run, factors[i]!)) }
        : {}),
      ...(older
        ? { olderRecords: older.map((run) => run.values.map((v) => v * factorOf(run.load))) }
        : {}),
    },
    load,
    target,
    slope,
    change: Math.exp(-meanLog) - 1,
  };
}

/** Values by record with their loads; undefined where the loads do not match the records. */
function storedGateRuns(
  records: readonly (readonly number[])[],
  loads: readonly (number | null)[] | undefined,
): StoredGateRun[] | undefined {
  if (!loads || loads.length !== records.length) return undefined;
  return records.map((values, i) => ({ values, load: loads[i]! }));
}

function scaled(run: SampleRun, factor: number): SampleRun {
  return factor === 1 ? run : Float64Array.from(run, (v) => v * factor);
}

/** "host busy: other processes took 38% of the CPU; adjusted by −4.1% (…)". */
function adjustmentNote(adjusted: AdjustedMetric): string {
  const { load, target, slope, change } = adjusted;
  const head =
    load >= BUSY_LOAD
      ? `host busy: other processes took ${share(load)} of the CPU`
      : `host load: other processes took ${share(load)} of the CPU`;
  const beyond = target < load ? `, taken only to the busiest stored one, ${share(target)}` : '';
  return (
    `${head}; adjusted by ${signed(change)} ` +
    `(the timing's slope on the load learnt from ${slope.points} stored gate runs at ` +
    `${(100 * slope.range[0]).toFixed(0)}–${share(slope.range[1])}${beyond})`
  );
}
