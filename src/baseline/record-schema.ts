// The zod schema of a stored baseline record, kept in step with the BaselineRecord interface.

import { z } from 'zod';
import type { StoredAnswers } from '../model.js';
import { METRIC_ID } from '../config/thresholds.js';
import { RECORD_KIND, RECORD_SCHEMA_VERSION, type BaselineRecord } from './record.js';

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

/**
 * A stored run's agreement answers: any object, checked where a run uses them
 * (accuracy/stored-answers-schema.ts), so that damaged answers cost the check, not the
 * record's timings.
 */
const storedAnswersSchema = z
  .unknown()
  .transform((value) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as StoredAnswers)
      : undefined,
  );

export const metricSchema = z.object({
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
  hostLoad: z
    .object({ other: z.number().min(0).max(1), steal: z.number().min(0).max(1) })
    .optional(),
});

const environmentSchema = z.object({
  instanceType: z.string().optional(),
  neuronDevices: z.number().optional(),
  neuronCores: z.number().optional(),
  logicalNcConfig: z.number().optional(),
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

/** A latency histogram (stats/histogram.ts): at most 64 buckets, edges one more. */
const histogramSchema = z
  .object({
    count: z.number().int().min(0),
    min: z.number(),
    max: z.number(),
    edges: finiteArray,
    counts: finiteArray,
  })
  .refine(
    (h) => h.counts.length <= 64 && h.edges.length === h.counts.length + 1,
    'must have at most 64 buckets and one edge more than buckets',
  );

/** TTFT, ITL and E2E latency histograms; absent in records written before they were kept. */
const distributionsSchema = z.object({
  ttft: histogramSchema.optional(),
  itl: histogramSchema.optional(),
  e2el: histogramSchema.optional(),
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
      source: z
        .object({
          tables: z.number(),
          summaryJson: z.number(),
          schemas: z.array(z.string()),
          physicalCores: z.number().optional(),
        })
        .optional(),
      ops: z
        .array(
          z.object({
            op: z.string(),
            deviceNs: z.number().nonnegative(),
            calls: z.number().nonnegative(),
            hbmBytes: z.number().nonnegative(),
            instructions: z.record(z.string(), z.number()),
          }),
        )
        .optional(),
      collectives: z
        .array(
          z.object({
            operation: z.string(),
            algorithm: z.string(),
            replicaGroup: z.string(),
            count: z.number(),
            totalMs: z.number(),
            busGBps: z.number().optional(),
          }),
        )
        .optional(),
      roofline: z.object({ mfu: z.number(), maxAchievable: z.number() }).optional(),
      contamination: z.array(z.string()).optional(),
    })
    .optional(),
  answers: storedAnswersSchema.optional(),
  distributions: distributionsSchema.optional(),
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
