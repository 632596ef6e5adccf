// One stored baseline record: what one gate run measured for one benchmark, with where
// and on what it ran. The git-branch store keeps one small JSON file per record,
// `<gate-key>/<benchmark-slug>/<YYYYMMDDTHHMMSSZ>-<sha7>-<run id>.json`, append-only.
//
// Records are read back as untrusted input: validated with zod, older shapes migrated,
// never executed and never rewritten in place.

import { z } from 'zod';
import type {
  BenchmarkResult,
  BenchmarkVerdict,
  Environment,
  Metric,
  ProfileStatus,
  RunInfo,
  SweepInfo,
} from '../model.js';
import { METRIC_ID } from '../config/thresholds.js';
import { slugify } from '../runner/slug.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { MAX_RECORD_BYTES, MAX_RECORD_SAMPLES, MAX_STORED_SAMPLES } from './reduce-samples.js';
import {
  SampleRunsJson,
  expandSampleRefs,
  pooledFigures,
  storedSampleReducer,
  type PooledFigures,
} from './stored-samples.js';
import { meanOf } from '../stats/mean.js';

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
  };
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

// ── schema ───────────────────────────────────────────────────────────────────────────

/** Arrays of finite numbers, checked in one loop (records hold thousands of samples). */
const finiteArray = z.custom<number[]>(
  (value) =>
    Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isFinite(v)),
  'must be an array of finite numbers',
);
const finiteMatrix = z.custom<number[][]>(
  (value) =>
    Array.isArray(value) &&
    value.every(
      (run) => Array.isArray(run) && run.every((v) => typeof v === 'number' && Number.isFinite(v)),
    ),
  'must be an array of arrays of finite numbers (one per run)',
);

const metricSchema = z.object({
  id: z.string().regex(METRIC_ID, 'must be a lower_snake metric id'),
  unit: z.string(),
  direction: z.enum(['higher-is-better', 'lower-is-better']),
  values: finiteArray,
  samples: finiteMatrix.optional(),
  percentile: z.number().min(0).max(100).optional(),
});

const runInfoSchema = z.object({
  index: z.number().int(),
  kind: z.enum(['clean', 'profiled']),
  ok: z.boolean(),
  durationMs: z.number(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  resultFile: z.string().optional(),
  error: z.string().optional(),
});

const environmentSchema = z.object({
  instanceType: z.string().optional(),
  neuronDevices: z.number().optional(),
  neuronCores: z.number().optional(),
  neuronSdkVersion: z.string().optional(),
  compilerVersion: z.string().optional(),
  runtimeVersion: z.string().optional(),
  vllmVersion: z.string().optional(),
  vllmNeuronVersion: z.string().optional(),
  configHash: z.string().optional(),
  runner: z.string().optional(),
  commit: z.string().optional(),
  ref: z.string().optional(),
});

const summarySchema = z.object({
  mean: z.number(),
  min: z.number(),
  max: z.number(),
  runs: z.number().int().min(0),
  samples: z.number().int().min(0).optional(),
  p50: z.number().optional(),
  p95: z.number().optional(),
  p99: z.number().optional(),
});

const resultSchema = z.object({
  name: z.string().min(1),
  format: z.string(),
  source: z.string().optional(),
  sweep: z
    .object({
      name: z.string(),
      variant: z.string(),
      params: z.record(z.string(), z.unknown()),
    })
    .optional(),
  metrics: z.array(metricSchema),
  runs: z.array(runInfoSchema),
  info: z.record(z.string(), z.unknown()).optional(),
  profile: z
    .object({
      status: z.enum(['not-requested', 'not-measured', 'measured', 'failed']),
      note: z.string().optional(),
      metrics: z.record(z.string(), z.number()),
      profiler: z.string().optional(),
    })
    .optional(),
});

export const baselineRecordSchema = z.object({
  kind: z.literal(RECORD_KIND),
  schemaVersion: z.literal(RECORD_SCHEMA_VERSION),
  tool: z.object({ name: z.string(), version: z.string() }),
  gateKey: z.string().min(1),
  benchmark: z.string().min(1),
  createdAt: z.iso.datetime({ offset: false }),
  commit: z.string(),
  branch: z.string(),
  event: z.string().min(1),
  runId: z.string().min(1),
  verdict: z.enum(['pass', 'regression', 'no-baseline', 'error']),
  environment: environmentSchema,
  configHash: z.string().optional(),
  summary: z.record(z.string(), summarySchema),
  result: resultSchema,
  acceptance: z
    .object({
      reason: z.enum(['accept-after', 'accept-current', 'manual']),
      at: z.iso.datetime({ offset: false }),
      by: z.string().optional(),
      records: z.array(z.string()).optional(),
      note: z.string().optional(),
    })
    .optional(),
  ab: z
    .object({
      base: z.object({
        label: z.string(),
        commit: z.string().optional(),
        environment: environmentSchema,
      }),
      blocks: z.number().int().min(1),
      changes: z.record(
        z.string(),
        z.object({ change: z.number(), low: z.number(), high: z.number() }),
      ),
    })
    .optional(),
});

// Keeps the schema and the interface in step: each must accept what the other describes.
type Parsed = z.infer<typeof baselineRecordSchema>;
const _schemaMatches: [Parsed extends BaselineRecord ? true : false] = [true];
const _interfaceMatches: [BaselineRecord extends Parsed ? true : false] = [true];
void _schemaMatches;
void _interfaceMatches;

// ── creating ─────────────────────────────────────────────────────────────────────────

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
  // large too (long info, many metrics) keeps fewer samples until its file fits.
  let perRecord = MAX_RECORD_SAMPLES;
  for (;;) {
    const text = recordText(input, perRecord);
    const bytes = Buffer.byteLength(text);
    const samples = storedSampleCount(text);
    if (bytes <= MAX_RECORD_BYTES || samples === 0 || perRecord <= 100) return parseRecord(text);
    perRecord = Math.max(100, Math.floor(perRecord * Math.min(0.9, MAX_RECORD_BYTES / bytes)));
  }
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
          },
        }
      : {}),
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

function summarize(metric: Metric, pooled?: PooledFigures): MetricSummary {
  const { values } = metric;
  const summary: MetricSummary = {
    mean: values.length > 0 ? meanOf(values) : Number.NaN,
    min: values.length > 0 ? Math.min(...values) : Number.NaN,
    max: values.length > 0 ? Math.max(...values) : Number.NaN,
    runs: values.length,
  };
  if (values.length === 0) {
    // JSON has no NaN; a metric without runs has no summary figures.
    summary.mean = summary.min = summary.max = 0;
  }
  const figures = pooled ?? pooledFigures(metric.samples);
  return figures ? { ...summary, ...figures } : summary;
}

// ── file names ───────────────────────────────────────────────────────────────────────

/** `<gate-key>`: the top folder of a gate's records. */
export function gateFolder(gateKey: string): string {
  return slugify(gateKey);
}

/** `<gate-key>/<benchmark-slug>`: the folder of one benchmark's records. */
export function benchmarkFolder(gateKey: string, benchmark: string): string {
  return `${gateFolder(gateKey)}/${slugify(benchmark)}`;
}

/**
 * `<gate-key>/<benchmark-slug>/<YYYYMMDDTHHMMSSZ>-<sha7>-<run id>.json`. Names sort by
 * time within a folder, so the newest records are the last names.
 */
export function recordPath(
  gateKey: string,
  benchmark: string,
  createdAt: Date | string,
  sha: string,
  runId: string | number,
): string {
  const stamp = utcIso(createdAt)
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  const sha7 = /^[0-9a-f]{7,}$/i.test(sha) ? sha.slice(0, 7).toLowerCase() : 'nocommit';
  return `${benchmarkFolder(gateKey, benchmark)}/${stamp}-${sha7}-${slugify(String(runId))}.json`;
}

/** The path a record is stored at. */
export function pathOfRecord(record: BaselineRecord): string {
  return recordPath(
    record.gateKey,
    record.benchmark,
    record.createdAt,
    record.commit,
    record.runId,
  );
}

function utcIso(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a date: ${String(value)}`);
  return date.toISOString();
}

// ── (de)serializing ──────────────────────────────────────────────────────────────────

/**
 * The record as stored: pretty JSON where a metric whose samples equal an earlier
 * metric's says `"samplesOf": "<id>"` instead of repeating them, and each run's samples
 * sit on one line.
 */
export function serializeRecord(record: BaselineRecord): string {
  const json = new SampleRunsJson();
  const metrics = json.metrics(record.result.metrics);
  return json.stringify({ ...record, result: { ...record.result, metrics } });
}

/** A record from the text of its file. Throws with a message naming what is wrong. */
export function parseRecord(text: string, options: ParseRecordOptions = {}): BaselineRecord {
  let data: unknown;
  try {
    data = JSON.parse(
      options.samples === false ? text.replace(SAMPLE_ARRAYS, EMPTY_SAMPLES) : text,
    );
  } catch (error) {
    throw new Error(`is not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const record = migrateOwned(data);
  if (options.samples === false) for (const metric of record.result.metrics) delete metric.samples;
  return record;
}

export interface ParseRecordOptions {
  /**
   * false: leave the per-request samples out (the history reads only the per-run values,
   * of thousands of records: parsing their samples would be most of its time).
   */
  samples?: boolean;
}

/**
 * A metric's `"samples"` array of arrays of numbers. Only digits, signs, points,
 * exponents, commas, brackets and spaces: a match cannot leave the array, nor start
 * inside a string (a quote there is escaped).
 */
const SAMPLE_ARRAYS = /"samples":\s*\[[-+0-9.eE,\s[\]]*\]/g;
const EMPTY_SAMPLES = '"samples": []';

/**
 * A record from parsed JSON of any schemaVersion this tool knows, brought to the
 * current one. Older or partial shapes are accepted where the meaning is clear (no
 * schemaVersion, `sha` for `commit`, a numeric run id, pooled samples as one array, the
 * environment inside the result, no summary or tool); anything else is rejected with an
 * Error whose message names the field.
 */
export function migrateRecord(data: unknown): BaselineRecord {
  return migrateOwned(structuredClone(data));
}

/** migrateRecord on data nobody else holds: it is changed in place on the way. */
function migrateOwned(data: unknown): BaselineRecord {
  if (!isObject(data)) throw new Error('is not a JSON object; a baseline record is one');
  if (data.kind !== undefined && data.kind !== RECORD_KIND) {
    throw new Error(
      `is not a neuron-perf-gate baseline record (kind ${JSON.stringify(data.kind)}, expected "${RECORD_KIND}")`,
    );
  }
  const version = data.schemaVersion ?? 0;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
    throw new Error(`has an invalid schemaVersion ${JSON.stringify(data.schemaVersion)}`);
  }
  if (version > RECORD_SCHEMA_VERSION) {
    throw new Error(
      `has schemaVersion ${version}, written by a newer neuron-perf-gate; this one reads up to ${RECORD_SCHEMA_VERSION}. Update the action.`,
    );
  }
  const record = normalize(data);
  const parsed = baselineRecordSchema.safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(top level)';
    throw new Error(`field '${where}' is invalid: ${issue?.message ?? 'unknown problem'}`);
  }
  return parsed.data;
}

/** Fills in what older or partial records leave out. Mutates and returns `data`. */
function normalize(data: Record<string, unknown>): Record<string, unknown> {
  data.kind ??= RECORD_KIND;
  data.schemaVersion = RECORD_SCHEMA_VERSION;
  data.tool ??= { name: TOOL_NAME, version: 'unknown' };
  if (data.commit === undefined && typeof data.sha === 'string') data.commit = data.sha;
  delete data.sha;
  if (data.runId === undefined && data.run_id !== undefined) data.runId = data.run_id;
  delete data.run_id;
  if (typeof data.runId === 'number') data.runId = String(data.runId);
  if (typeof data.createdAt === 'string') {
    const date = new Date(data.createdAt);
    if (!Number.isNaN(date.getTime())) data.createdAt = date.toISOString();
  }
  // A record that is a BenchmarkResult with the record fields beside it.
  if (data.result === undefined && Array.isArray(data.metrics)) {
    data.result = {
      name: data.benchmark ?? data.name,
      format: data.format ?? 'unknown',
      metrics: data.metrics,
      runs: data.runs ?? [],
    };
    delete data.metrics;
    delete data.runs;
    delete data.name;
    delete data.format;
  }
  const result = data.result;
  if (!isObject(result)) {
    throw new Error(
      `field 'result' is ${result === undefined ? 'missing' : 'not an object'}; the record holds no measured result`,
    );
  }
  if (data.benchmark === undefined && typeof result.name === 'string') {
    data.benchmark = result.name;
  }
  if (data.environment === undefined) {
    data.environment = isObject(result.environment) ? result.environment : {};
  }
  delete result.environment;
  if (data.configHash === undefined && isObject(data.environment)) {
    const hash = data.environment.configHash;
    if (typeof hash === 'string') data.configHash = hash;
  }
  result.runs ??= [];
  if (isObject(result.profile)) {
    const { status, note, metrics, profiler } = result.profile;
    result.profile = {
      status,
      ...(note !== undefined ? { note } : {}),
      metrics: metrics ?? {},
      ...(profiler !== undefined ? { profiler } : {}),
    };
  }
  if (Array.isArray(result.metrics)) expandSampleRefs(result.metrics);
  if (data.summary === undefined && Array.isArray(result.metrics)) {
    data.summary = summaryOfStored(result.metrics);
  }
  return data;
}

/** The summary of a record written without one, from what it stores. */
function summaryOfStored(metrics: unknown[]): Record<string, MetricSummary> {
  const summary: Record<string, MetricSummary> = {};
  for (const metric of metrics) {
    const parsed = metricSchema.safeParse(metric);
    if (parsed.success) summary[parsed.data.id] = summarize(parsed.data);
  }
  return summary;
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
