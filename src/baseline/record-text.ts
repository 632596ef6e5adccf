// A record as the text of its file, both ways: serialized, and parsed back as untrusted
// input (validated, older shapes migrated).

import { TOOL_NAME } from '../version.js';
import { SampleRunsJson, expandSampleRefs } from './stored-samples.js';
import {
  RECORD_KIND,
  RECORD_SCHEMA_VERSION,
  type BaselineRecord,
  type MetricSummary,
} from './record.js';
import { baselineRecordSchema, metricSchema } from './record-schema.js';
import { summarize } from './record-summary.js';

/**
 * The record as stored: pretty JSON where a metric whose samples equal an earlier
 * metric's says `"samplesOf": "<id>"` instead of repeating them, and each run's samples
 * sit on one line.
 */
export function serializeRecord(record: BaselineRecord): string {
  const json = new SampleRunsJson();
  const metrics = json.metrics(record.result.metrics);
  // A histogram's edges and counts on one line each, as sample runs are.
  const histograms = record.result.distributions;
  const distributions = histograms
    ? Object.fromEntries(
        Object.entries(histograms).map(([name, h]) => [
          name,
          { ...h, edges: json.oneLine(h.edges), counts: json.oneLine(h.counts) },
        ]),
      )
    : undefined;
  return json.stringify({
    ...record,
    result: { ...record.result, metrics, ...(distributions ? { distributions } : {}) },
  });
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
  if (options.samples === false) {
    for (const metric of record.result.metrics) delete metric.samples;
    delete record.result.answers;
  }
  return record;
}

export interface ParseRecordOptions {
  /**
   * false: leave the per-request samples and the agreement answers out (the history reads
   * only the per-run values, of thousands of records: parsing their samples would be most
   * of its time).
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
    const { status, note, metrics, profiler, ...detail } = result.profile;
    result.profile = {
      status,
      ...(note !== undefined ? { note } : {}),
      metrics: metrics ?? {},
      ...(profiler !== undefined ? { profiler } : {}),
      ...pickDefined(detail, PROFILE_DETAIL_KEYS),
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a record keeps of a profile beyond its figures (the operator diff's base). */
export const PROFILE_DETAIL_KEYS = [
  'source',
  'ops',
  'collectives',
  'roofline',
  'contamination',
] as const;

function pickDefined(
  data: Record<string, unknown>,
  keys: readonly string[],
): Record<string, unknown> {
  return Object.fromEntries(
    keys.filter((key) => data[key] !== undefined).map((key) => [key, data[key]]),
  );
}
