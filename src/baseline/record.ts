// One stored baseline record: what one gate run measured for one benchmark, with where
// and on what it ran. The git-branch store keeps one small JSON file per record,
// `<gate-key>/<benchmark-slug>/<YYYYMMDDTHHMMSSZ>-<sha7>-<run id>.json`, append-only.
//
// Records are read back as untrusted input: validated with zod, older shapes migrated,
// never executed and never rewritten in place.
//
// This file holds the record's shape; beside it: record-create.ts (a new record),
// record-paths.ts (where it is stored), record-text.ts (its file text, both ways, and
// migration), record-schema.ts (the zod schema) and record-summary.ts (summary figures).

import type {
  BenchmarkResult,
  BenchmarkVerdict,
  CollectiveGroup,
  Environment,
  LatencyHistograms,
  Metric,
  OpTime,
  ProfileSource,
  ProfileStatus,
  RunInfo,
  StoredAnswers,
  SweepInfo,
} from '../model.js';

export const RECORD_KIND = 'neuron-perf-gate-record';
export const RECORD_SCHEMA_VERSION = 1;
export { SAMPLE_DIGITS } from './stored-samples.js';

/** Summary statistics of one metric, taken before the samples were reduced. */
export interface MetricSummary {
  /** Mean of the per-run values. */
  mean: number;
  min: number;
  max: number;
  runs: number;
  /** Per-request samples measured (before reduction), pooled over runs. */
  samples?: number;
  /** numpy-linear percentiles of all measured samples, pooled. */
  p50?: number;
  p95?: number;
  p99?: number;
}

/** A metric as a record stores it: its samples reduced, in plain arrays. */
export type StoredMetric = Omit<Metric, 'samples'> & { samples?: number[][] };

/** The measured result as stored: the parts of a BenchmarkResult a later comparison needs. */
export interface RecordedResult {
  name: string;
  format: string;
  source?: string;
  sweep?: SweepInfo;
  /** Per-run `values` and per-run `samples` (reduced to at most 2,000 per metric). */
  metrics: StoredMetric[];
  runs: RunInfo[];
  info?: Record<string, unknown>;
  /** The profiler's overall figures (MFU, MBU, ...), without local file paths. */
  profile?: {
    status: ProfileStatus;
    note?: string;
    metrics: Record<string, number>;
    profiler?: string;
    /** From the profile tables: what the next run's operator diff compares with. */
    source?: ProfileSource;
    ops?: OpTime[];
    collectives?: CollectiveGroup[];
    roofline?: { mfu: number; maxAchievable: number };
    contamination?: string[];
  };
  /** Its answers to the agreement check's prompts: a later run's reference. */
  answers?: StoredAnswers;
  /** TTFT, ITL and E2E latency histograms of all its requests (stats/histogram.ts): the dashboard's CDFs. */
  distributions?: LatencyHistograms;
}

export interface BaselineRecord {
  kind: typeof RECORD_KIND;
  schemaVersion: typeof RECORD_SCHEMA_VERSION;
  tool: { name: string; version: string };
  /** Which gate (workflow/job/config) the record belongs to; the top folder. */
  gateKey: string;
  benchmark: string;
  /** ISO 8601, UTC (`2026-01-31T12:00:00.000Z`). */
  createdAt: string;
  /** The code commit that was measured. */
  commit: string;
  branch: string;
  /** push, schedule, workflow_dispatch, pull_request, local, ... */
  event: string;
  runId: string;
  verdict: BenchmarkVerdict;
  /** Where it was measured; compared before two records are pooled. */
  environment: Environment;
  configHash?: string;
  summary: Record<string, MetricSummary>;
  result: RecordedResult;
  /**
   * Set when a regressed measurement was accepted as the new normal. Records are never
   * rewritten, so an acceptance is a new record; `records` names the earlier records
   * (paths) it accepts along with itself.
   */
  acceptance?: Acceptance;
  /** Set on an A/B comparison's record (AbRecordPart). */
  ab?: AbRecordPart;
}

/**
 * An A/B comparison's record (src/ab/): the head side's measurement, what it was measured
 * beside on the same runner, and each paired change. Never part of a baseline or of the
 * history's series; the dashboard shows the changes as points of their own.
 */
export interface AbRecordPart {
  base: { label: string; commit?: string; environment: Environment };
  /** Blocks both sides ran in. */
  blocks: number;
  /** Per metric: the paired change (0.08 = +8%) and its interval. */
  changes: Record<string, { change: number; low: number; high: number }>;
}

export type AcceptanceReason = 'accept-after' | 'accept-current' | 'manual';

export interface Acceptance {
  reason: AcceptanceReason;
  /** ISO 8601 UTC. */
  at: string;
  /** Who accepted: a GitHub actor or a local user name. */
  by?: string;
  /** Paths of earlier records accepted together with this one. */
  records?: string[];
  note?: string;
}

/** A stored record as a BenchmarkResult, the shape the compare stage takes. */
export function recordToResult(record: BaselineRecord): BenchmarkResult {
  const { profile, ...rest } = structuredClone(record.result);
  return {
    ...rest,
    ...(profile ? { profile: { ...profile, ntffFiles: [], neffFiles: [], totalBytes: 0 } } : {}),
    environment: structuredClone(record.environment),
  };
}

/**
 * The record as every store's readStoredRecords gives it: no per-request samples, and no
 * agreement answers (only a baseline's newest records are scored on).
 */
export function withoutSamplesOrAnswers(record: BaselineRecord): BaselineRecord {
  const copy = structuredClone(record);
  for (const metric of copy.result.metrics) delete metric.samples;
  delete copy.result.answers;
  return copy;
}
