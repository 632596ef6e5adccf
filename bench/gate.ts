// The path a result file takes through the gate, with the gate's own code: JSON text ─►
// parseResultText ─► aggregateRuns ─► BenchmarkResult ─► compareBenchmark.

import { compareBenchmark, type BenchmarkComparison } from '../src/compare/benchmark.js';
import { lookLevels } from '../src/compare/judge.js';
import { DEFAULT_THRESHOLDS } from '../src/config/defaults.js';
import { withOlderRecords } from '../src/baseline/older-records.js';
import { mergeByName } from '../src/baseline/result-files.js';
import { aggregateRuns, type ParsedRun } from '../src/formats/aggregate.js';
import { parseResultText } from '../src/formats/index.js';
import type { BenchmarkResult, Direction } from '../src/model.js';

const FORMAT = 'offline-benchmark';
const FILE = 'synthetic.json';
const NAME = 'synthetic';

/** One result file as the gate reads it. */
export function parseRun(text: string): ParsedRun {
  return { file: FILE, benchmarks: parseResultText(text, FILE, FORMAT).benchmarks };
}

/** All runs of one side folded into the one benchmark result the gate compares. */
export function sideResult(runs: ParsedRun[]): BenchmarkResult {
  const aggregated = aggregateRuns(runs, NAME);
  if (aggregated.length !== 1) {
    throw new Error(`expected one benchmark in the synthetic runs, got ${aggregated.length}`);
  }
  const [benchmark] = aggregated;
  return { name: benchmark!.name, format: FORMAT, metrics: benchmark!.metrics, runs: [] };
}

export interface JudgeSettings {
  confidence: number;
  seed: string;
  failOnInconclusive: boolean;
  /** The gate's false-alarm budget for this look (judge.ts); without it, each metric alone. */
  falseAlarmRate?: number;
  /** Clean runs the action could still add (compare.ts). */
  moreRuns?: number;
  /** The last look's false-alarm rate (judge.ts). */
  lastLookRate?: number;
}

/**
 * Judges the current runs against a baseline of stored records (each one gate run's
 * runs), merged as the gate merges the records it reads (mergeByName keeps their bounds),
 * with the older records the store holds beyond them for the spreads only (day-to-day
 * and run-to-run), as the record store carries them (withOlderRecords).
 */
export function judge(
  current: ParsedRun[],
  baselineRecords: ParsedRun[][],
  settings: JudgeSettings,
  olderRecords: ParsedRun[][] = [],
): BenchmarkComparison {
  return judgeAgainst(current, baselineSide(baselineRecords, olderRecords), settings);
}

/** judge() against a baseline built once (baselineSide), for the looks of one pull request. */
export function judgeAgainst(
  current: ParsedRun[],
  before: BenchmarkResult | undefined,
  settings: JudgeSettings,
): BenchmarkComparison {
  const now = sideResult(current);
  return compareBenchmark(now, before, DEFAULT_THRESHOLDS, {
    ...settings,
    ...lookLevels(
      [{ current: now, baseline: before, thresholds: DEFAULT_THRESHOLDS }],
      settings,
    )[0],
  });
}

/**
 * The two sides as the gate compares them: the baseline's records merged with their
 * bounds, and the older records (newest first) on its metrics for the drift only.
 */
export function sides(
  current: ParsedRun[],
  baselineRecords: ParsedRun[][],
  olderRecords: ParsedRun[][] = [],
): { now: BenchmarkResult; before: BenchmarkResult | undefined } {
  return { now: sideResult(current), before: baselineSide(baselineRecords, olderRecords) };
}

/** The baseline as the record store builds it (record-store.ts: choiceOf). */
export function baselineSide(
  baselineRecords: ParsedRun[][],
  olderRecords: ParsedRun[][] = [],
): BenchmarkResult | undefined {
  const [merged] = mergeByName(baselineRecords.map(sideResult));
  return merged && withOlderRecords(merged, olderRecords.map(sideResult));
}

/** The gated metrics: those with a default threshold (mfu is never in these files). */
export const GATED_METRICS: readonly string[] = Object.keys(DEFAULT_THRESHOLDS);

/**
 * The single-ratio rule of github-action-benchmark: one number per metric, the current
 * run against the previous one; an alert when the ratio is worse than 1 + threshold.
 * Returns the ids of the metrics that alert.
 */
export function singleRatioAlerts(current: ParsedRun, previous: ParsedRun): string[] {
  const now = metricValues(current);
  const before = metricValues(previous);
  const alerts: string[] = [];
  for (const id of GATED_METRICS) {
    const a = now.get(id);
    const b = before.get(id);
    const threshold = DEFAULT_THRESHOLDS[id];
    if (!a || !b || threshold === undefined) continue;
    const ratio = a.direction === 'higher-is-better' ? b.value / a.value : a.value / b.value;
    if (ratio > 1 + threshold) alerts.push(id);
  }
  return alerts;
}

function metricValues(run: ParsedRun): Map<string, { value: number; direction: Direction }> {
  const values = new Map<string, { value: number; direction: Direction }>();
  for (const benchmark of run.benchmarks) {
    for (const metric of benchmark.metrics) values.set(metric.id, metric);
  }
  return values;
}
