import { z } from 'zod';
import { METRIC_ID } from '../config/thresholds.js';

// The shape of measured results inside files the gate wrote itself (baseline files and
// report.json). They are read back as untrusted input: validated, never executed.

const metricSchema = z.object({
  id: z.string().regex(METRIC_ID),
  unit: z.string(),
  direction: z.enum(['higher-is-better', 'lower-is-better']),
  values: z.array(z.number()),
  samples: z.array(z.array(z.number())).optional(),
  percentile: z.number().min(0).max(100).optional(),
});

export const benchmarkResultSchema = z.looseObject({
  name: z.string().min(1),
  source: z.string().optional(),
  format: z.string(),
  metrics: z.array(metricSchema),
  runs: z.array(z.looseObject({})).default([]),
  info: z.record(z.string(), z.unknown()).optional(),
  environment: z.record(z.string(), z.unknown()).optional(),
});

export const BASELINE_FILE_KIND = 'neuron-perf-gate-baseline';

export const baselineFileSchema = z.object({
  kind: z.literal(BASELINE_FILE_KIND),
  schemaVersion: z.literal(1),
  createdAt: z.string(),
  benchmarks: z.array(benchmarkResultSchema),
});

export const reportFileSchema = z.looseObject({
  schemaVersion: z.literal(1),
  tool: z.looseObject({ name: z.literal('neuron-perf-gate') }),
  benchmarks: z.array(
    z.looseObject({ name: z.string(), result: benchmarkResultSchema.optional() }),
  ),
});
