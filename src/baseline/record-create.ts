// A new record from one measured benchmark, its samples reduced to fit a small file.

import type {
  BenchmarkResult,
  BenchmarkVerdict,
  Environment,
  LatencyHistograms,
  Metric,
  ProfileSummary,
} from '../model.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { boundedOps } from '../profile/opdiff/bounded-ops.js';
import { latencyHistogramsOf } from '../stats/latency-histograms.js';
import {
  MAX_RECORD_BYTES,
  MAX_RECORD_OP_BYTES as RECORD_OP_BYTES,
  MAX_RECORD_SAMPLES,
  MAX_STORED_SAMPLES,
} from './reduce-samples.js';
import { storedSampleReducer } from './stored-samples.js';
import {
  RECORD_KIND,
  RECORD_SCHEMA_VERSION,
  type Acceptance,
  type AbRecordPart,
  type BaselineRecord,
  type MetricSummary,
  type RecordedResult,
  type StoredMetric,
} from './record.js';
import { utcIso } from './record-paths.js';
import { summarize } from './record-summary.js';
import { PROFILE_DETAIL_KEYS, parseRecord, serializeRecord } from './record-text.js';

export interface RecordInput {
  gateKey: string;
  result: BenchmarkResult;
  commit: string;
  branch: string;
  event: string;
  runId: string | number;
  verdict: BenchmarkVerdict;
  /** Defaults to the result's own environment. */
  environment?: Environment;
  /** Defaults to the environment's configHash. */
  configHash?: string;
  createdAt?: Date | string;
  /** At most this many samples per metric (2,000; less when the record has many sample sets). */
  sampleBudget?: number;
  acceptance?: Acceptance;
  ab?: AbRecordPart;
}

/**
 * The record of one measured benchmark: summary statistics from all samples, then the
 * samples reduced to the budget (percentile-preserving) and rounded to 7 significant
 * digits, so that the object returned is exactly what a store writes and reads back.
 */
export function createRecord(input: RecordInput): BaselineRecord {
  // The budget fits a serving record's four sample sets; a record whose other parts are
  // large too (long info, many metrics) keeps fewer samples until its file fits. The
  // profile's operator times (RECORD_OP_BYTES) and the agreement check's answers
  // (accuracy/answer-codec.ts, held to it where they are made) have budgets of their own.
  const sized = withoutOwnBudgets(input);
  let perRecord = MAX_RECORD_SAMPLES;
  for (;;) {
    const text = recordText(sized, perRecord);
    const bytes = Buffer.byteLength(text);
    const samples = storedSampleCount(text);
    if (bytes <= MAX_RECORD_BYTES || samples === 0 || perRecord <= 100) {
      return parseRecord(sized === input ? text : recordText(input, perRecord));
    }
    perRecord = Math.max(100, Math.floor(perRecord * Math.min(0.9, MAX_RECORD_BYTES / bytes)));
  }
}

/** The input as the sample budget sees it: without the operator times and the answers. */
function withoutOwnBudgets(input: RecordInput): RecordInput {
  const { answers, ...result } = input.result;
  if (!result.profile?.ops && !answers) return input;
  void answers;
  if (result.profile?.ops) {
    const { ops, ...opless } = result.profile;
    void ops;
    result.profile = opless;
  }
  return { ...input, result };
}

/** The file text of the record of `input` with at most `perRecord` stored samples. */
function recordText(input: RecordInput, perRecord: number): string {
  const { result } = input;
  const environment = structuredClone(input.environment ?? result.environment ?? {});
  const configHash = input.configHash ?? environment.configHash;
  const reduce = storedSampleReducer(
    result.metrics,
    input.sampleBudget ?? MAX_STORED_SAMPLES,
    perRecord,
  );
  const summary: Record<string, MetricSummary> = {};
  const metrics = result.metrics.map((metric): StoredMetric => {
    const samples = metric.samples ? reduce(metric.samples) : undefined;
    summary[metric.id] = summarize(metric, samples?.pooled);
    const stored: StoredMetric = {
      id: metric.id,
      unit: metric.unit,
      direction: metric.direction,
      values: [...metric.values],
    };
    if (samples) stored.samples = samples.reduced.map((run) => [...run]);
    if (metric.percentile !== undefined) stored.percentile = metric.percentile;
    return stored;
  });
  const recorded: RecordedResult = {
    name: result.name,
    format: result.format,
    ...(result.source !== undefined ? { source: result.source } : {}),
    ...(result.sweep ? { sweep: structuredClone(result.sweep) } : {}),
    metrics,
    // Result files are paths on the runner: of no use later.
    runs: result.runs.map((run) => {
      const copy = structuredClone(run);
      delete copy.resultFile;
      return copy;
    }),
    ...(result.info ? { info: structuredClone(result.info) } : {}),
    ...(result.profile
      ? {
          profile: {
            status: result.profile.status,
            ...(result.profile.note !== undefined ? { note: result.profile.note } : {}),
            metrics: { ...result.profile.metrics },
            ...(result.profile.profiler !== undefined ? { profiler: result.profile.profiler } : {}),
            ...profileDetailOf(result.profile),
          },
        }
      : {}),
    ...(result.answers ? { answers: structuredClone(result.answers) } : {}),
    ...distributionsOf(result.metrics),
  };
  const record: BaselineRecord = {
    kind: RECORD_KIND,
    schemaVersion: RECORD_SCHEMA_VERSION,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    gateKey: input.gateKey,
    benchmark: result.name,
    createdAt: utcIso(input.createdAt ?? new Date()),
    commit: input.commit,
    branch: input.branch,
    event: input.event,
    runId: String(input.runId),
    verdict: input.verdict,
    environment,
    ...(configHash !== undefined ? { configHash } : {}),
    summary,
    result: recorded,
    ...(input.acceptance ? { acceptance: structuredClone(input.acceptance) } : {}),
    ...(input.ab ? { ab: structuredClone(input.ab) } : {}),
  };
  // Validated by createRecord: a bad record must fail here, not on every read.
  return serializeRecord(record);
}

/** How many samples a record's text stores (each set counted once). */
function storedSampleCount(text: string): number {
  const record = JSON.parse(text) as BaselineRecord;
  return record.result.metrics.reduce(
    (sum, metric) => sum + (metric.samples?.reduce((n, run) => n + run.length, 0) ?? 0),
    0,
  );
}

/** Histograms made once per result: the sample budget writes the record's text again. */
const histogramsMade = new WeakMap<readonly Metric[], LatencyHistograms | null>();

/**
 * The TTFT and ITL histograms of all the measured samples (before they are reduced), if
 * any: what the dashboard draws. E2E latency's stays in report.json, out of the record's
 * 64 KB.
 */
function distributionsOf(metrics: readonly Metric[]): { distributions?: LatencyHistograms } {
  let histograms = histogramsMade.get(metrics);
  if (histograms === undefined) {
    const { ttft, itl } = latencyHistogramsOf(metrics) ?? {};
    histograms = ttft || itl ? { ...(ttft ? { ttft } : {}), ...(itl ? { itl } : {}) } : null;
    histogramsMade.set(metrics, histograms);
  }
  return histograms ? { distributions: histograms } : {};
}

/**
 * The profile's source, ops, collectives, roofline and contamination; of the ops the
 * largest within RECORD_OP_BYTES, the rest summed (bounded-ops.ts).
 */
function profileDetailOf(profile: ProfileSummary): Record<string, unknown> {
  const detail: Record<string, unknown> = Object.fromEntries(
    PROFILE_DETAIL_KEYS.filter((key) => profile[key] !== undefined).map((key) => [
      key,
      structuredClone(profile[key]),
    ]),
  );
  if (profile.ops) detail.ops = boundedOps(profile.ops, RECORD_OP_BYTES);
  return detail;
}
