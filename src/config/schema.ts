// The zod schemas of every setting. The same field schemas check the YAML file and the
// action inputs (after the inputs' strings are turned into values), so both accept the
// same things. Every error message is the "allowed: …" half of a problem line; the
// "found …" half is added by format-issues.ts from the issue's input.

import { z } from 'zod';

import { isUsableBranchName } from './branch-name.js';
import { AUTO_FORMAT, formatIds } from '../formats/index.js';
import { CONFIDENCE_ALLOWED, parseConfidence } from './confidence.js';
import { LIMITS } from './defaults.js';
import { accuracySchema } from './accuracy-schema.js';
import { monitorSchema } from './monitor-schema.js';
import { serverSchema } from './server-schema.js';
import { startupSchema } from './startup-schema.js';
import { warmupSchema } from './warmup-schema.js';
import { sloSchema } from './slo.js';
import { sweepSchema } from './sweep.js';
import { strictMapping } from './strict-mapping.js';
import { METRIC_ID, METRIC_ID_ALLOWED, parseThreshold } from './thresholds.js';
import type { PercentResult } from './percent.js';
import type { ProfileModeSetting, ProfileSetting } from './types.js';

const allowed = (text: string) => ({ error: text });

export const ALLOWED = {
  name: 'allowed: a non-empty name on one line, at most 100 characters',
  command: 'allowed: a non-empty shell command (run with bash)',
  format: `allowed: ${[AUTO_FORMAT, ...formatIds()].join(', ')}`,
  runs: `allowed: an integer from ${LIMITS.runs.min} to ${LIMITS.runs.max}`,
  confirmRuns: `allowed: an integer from ${LIMITS.confirmRuns.min} to ${LIMITS.confirmRuns.max}`,
  profile: 'allowed: auto, on-change, true or false',
  profileMode: 'allowed: auto, model or session',
  timeoutMinutes: `allowed: a number of minutes above 0 and at most ${LIMITS.timeoutMinutes.max} (fractions allowed)`,
  thresholds:
    'allowed: a mapping of metric id (or default) to a percentage or off, such as { throughput: 5%, default: 10%, itl_p99: off }',
  workingDirectory: 'allowed: a directory path relative to the workspace',
  env: 'allowed: a mapping of variable name to value, such as { MAX_NUM_SEQS: "4" }',
  envName: 'allowed: a shell variable name (letters, digits and _, not starting with a digit)',
  envValue: 'allowed: a string, number or boolean',
  failOnRegression: 'allowed: true or false',
  failOnInconclusive: 'allowed: true or false',
  confidence: CONFIDENCE_ALLOWED,
  baselineWindow: `allowed: an integer from ${LIMITS.baselineWindow.min} to ${LIMITS.baselineWindow.max}`,
  baselinePath: 'allowed: a path relative to the workspace, or a list of such paths',
  benchmarks: 'allowed: a list of at least one benchmark, each a mapping with name and command',
  profilerPath:
    'allowed: the path of the profiler CLI (neuron-explorer or neuron-profile), absolute or relative to the workspace',
  uploadProfiles: 'allowed: true or false',
  artifactRetentionDays: `allowed: an integer number of days from ${LIMITS.artifactRetentionDays.min} to ${LIMITS.artifactRetentionDays.max}`,
  artifactCompressionLevel: `allowed: an integer from ${LIMITS.artifactCompressionLevel.min} (no compression) to ${LIMITS.artifactCompressionLevel.max} (best compression)`,
  baselineStore: 'allowed: git-branch, file, artifact, s3 or postgres',
  baselineS3Bucket:
    'allowed: an S3 bucket name (3 to 63 lowercase letters, digits, dots and hyphens)',
  baselineS3Prefix:
    "allowed: a key prefix inside the bucket, like perf-gate or team/perf-gate (no leading '/', no '.' or '..' parts)",
  baselineS3Region: 'allowed: an AWS region name, such as us-east-1',
  baselineS3Endpoint:
    'allowed: an http:// or https:// URL of an S3-compatible service, without a user or password (credentials come from the AWS environment)',
  baselineBranch:
    "allowed: a git branch name (letters, digits, '.', '_', '-' and '/'), such as perf-gate-data",
  baselineMatch: 'allowed: strict or loose',
  acceptAfter: `allowed: an integer from ${LIMITS.acceptAfter.min} (never accept) to ${LIMITS.acceptAfter.max}`,
  updateBaseline: 'allowed: auto, always or never',
  baselineKeep: `allowed: an integer from ${LIMITS.baselineKeep.min} to ${LIMITS.baselineKeep.max}`,
  missingAfter: `allowed: an integer number of nights from ${LIMITS.missingAfter.min} (never name a missing series) to ${LIMITS.missingAfter.max}`,
  environmentProbe:
    'allowed: a shell command printing a JSON object or key=value lines of versions',
  setup:
    'allowed: a shell command that prepares a side of an A/B comparison (install, build, compile)',
  pricePerHour:
    'allowed: a price in USD per instance-hour above 0, such as 0.45, or a mapping of instance type to such a price, such as { inf2.xlarge: 0.45, inf2.48xlarge: 7.8 }',
  pricePerHourValue: 'allowed: a price in USD per instance-hour above 0, such as 0.45',
  instanceType: 'allowed: an EC2 instance type such as inf2.xlarge or trn1.32xlarge',
} as const;

/**
 * Variables the gate sets itself for each run; a config that sets them breaks the runs. The
 * profiler variables the gate owns are checked by profiler-env-problems.ts.
 */
const RESERVED_ENV = /^PERF_GATE_/;
const RESERVED_ENV_MESSAGE = 'the gate sets PERF_GATE_* itself for each run; remove it';

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A string that is not blank, stored trimmed. Checked before trimming so that a problem
 * quotes the value as the user wrote it.
 */
function text(allowedText: string, check: (trimmed: string) => boolean = () => true) {
  return z
    .string(allowed(allowedText))
    .refine((value) => value.trim() !== '' && check(value.trim()), allowed(allowedText))
    .transform((value) => value.trim());
}

export const nameSchema = text(ALLOWED.name, (name) => name.length <= 100 && !/[\r\n]/.test(name));

export const commandSchema = text(ALLOWED.command);

// Checked against the format registry here, so a typo stops the gate before anything runs.
export const formatSchema = z
  .string(allowed(ALLOWED.format))
  .refine((id) => id === AUTO_FORMAT || formatIds().includes(id), allowed(ALLOWED.format));

export const runsSchema = z
  .number(allowed(ALLOWED.runs))
  .int(allowed(ALLOWED.runs))
  .min(LIMITS.runs.min, allowed(ALLOWED.runs))
  .max(LIMITS.runs.max, allowed(ALLOWED.runs));

export const confirmRunsSchema = z
  .number(allowed(ALLOWED.confirmRuns))
  .int(allowed(ALLOWED.confirmRuns))
  .min(LIMITS.confirmRuns.min, allowed(ALLOWED.confirmRuns))
  .max(LIMITS.confirmRuns.max, allowed(ALLOWED.confirmRuns));

export const profileSchema = z
  .union([z.boolean(), z.enum(['auto', 'on-change', 'true', 'false'])], allowed(ALLOWED.profile))
  .transform((value): ProfileSetting => (typeof value === 'boolean' ? `${value}` : value));

export const profileModeSchema = z.enum(
  ['auto', 'model', 'session'] as const satisfies readonly ProfileModeSetting[],
  allowed(ALLOWED.profileMode),
);

export const timeoutMinutesSchema = z
  .number(allowed(ALLOWED.timeoutMinutes))
  .gt(0, allowed(ALLOWED.timeoutMinutes))
  .max(LIMITS.timeoutMinutes.max, allowed(ALLOWED.timeoutMinutes));

/** A `5%` setting read by `parse`, whose message says why a value is not one. */
function percentSchema(parse: (value: unknown) => PercentResult) {
  return z.unknown().transform((value, context): number => {
    const result = parse(value);
    if (result.ok) return result.fraction;
    context.addIssue({ code: 'custom', message: result.message, input: value });
    return z.NEVER;
  });
}

const thresholdValueSchema = percentSchema(parseThreshold);

/** Metric id (or `default`) → fraction; 0 is `off`. */
export const thresholdsSchema = z.record(
  z.string().regex(METRIC_ID, allowed(METRIC_ID_ALLOWED)),
  thresholdValueSchema,
  allowed(ALLOWED.thresholds),
);

export const workingDirectorySchema = text(ALLOWED.workingDirectory);

export const envSchema = z.record(
  z
    .string()
    .regex(SHELL_NAME, allowed(ALLOWED.envName))
    .refine((name) => !RESERVED_ENV.test(name), allowed(RESERVED_ENV_MESSAGE)),
  z.union([z.string(), z.number(), z.boolean()], allowed(ALLOWED.envValue)).transform(String),
  allowed(ALLOWED.env),
);

export const failOnRegressionSchema = z.boolean(allowed(ALLOWED.failOnRegression));

export const failOnInconclusiveSchema = z.boolean(allowed(ALLOWED.failOnInconclusive));

/** `95%` → 0.95. */
export const confidenceSchema = percentSchema(parseConfidence);

export const baselineWindowSchema = z
  .number(allowed(ALLOWED.baselineWindow))
  .int(allowed(ALLOWED.baselineWindow))
  .min(LIMITS.baselineWindow.min, allowed(ALLOWED.baselineWindow))
  .max(LIMITS.baselineWindow.max, allowed(ALLOWED.baselineWindow));

const pathSchema = text(ALLOWED.baselinePath);
export const baselinePathSchema = z
  .union([pathSchema, z.array(pathSchema).min(1)], allowed(ALLOWED.baselinePath))
  .transform((value) => (typeof value === 'string' ? [value] : value));

export const profilerPathSchema = text(ALLOWED.profilerPath, (path) => !/[\r\n]/.test(path));

export const uploadProfilesSchema = z.boolean(allowed(ALLOWED.uploadProfiles));

export const artifactRetentionDaysSchema = z
  .number(allowed(ALLOWED.artifactRetentionDays))
  .int(allowed(ALLOWED.artifactRetentionDays))
  .min(LIMITS.artifactRetentionDays.min, allowed(ALLOWED.artifactRetentionDays))
  .max(LIMITS.artifactRetentionDays.max, allowed(ALLOWED.artifactRetentionDays));

export const artifactCompressionLevelSchema = z
  .number(allowed(ALLOWED.artifactCompressionLevel))
  .int(allowed(ALLOWED.artifactCompressionLevel))
  .min(LIMITS.artifactCompressionLevel.min, allowed(ALLOWED.artifactCompressionLevel))
  .max(LIMITS.artifactCompressionLevel.max, allowed(ALLOWED.artifactCompressionLevel));

export const baselineStoreSchema = z.enum(
  ['git-branch', 'file', 'artifact', 's3', 'postgres'],
  allowed(ALLOWED.baselineStore),
);

export const baselineS3BucketSchema = text(ALLOWED.baselineS3Bucket, (bucket) =>
  /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket),
);

export const baselineS3PrefixSchema = text(
  ALLOWED.baselineS3Prefix,
  (prefix) =>
    prefix.length <= 200 &&
    !/[\\\s]/.test(prefix) &&
    prefix
      .replace(/\/$/, '')
      .split('/')
      .every((part) => part !== '' && part !== '.' && part !== '..'),
);

export const baselineS3RegionSchema = text(ALLOWED.baselineS3Region, (region) =>
  /^[a-z0-9-]{1,40}$/.test(region),
);

export const baselineS3EndpointSchema = text(ALLOWED.baselineS3Endpoint, isS3Endpoint);

/** http(s) with a host and no user or password: credentials come the AWS way, never here. */
function isS3Endpoint(endpoint: string): boolean {
  if (!/^https?:\/\/[^\s/]+/.test(endpoint) || !URL.canParse(endpoint)) return false;
  const url = new URL(endpoint);
  return url.hostname !== '' && url.username === '' && url.password === '';
}

export const baselineBranchSchema = text(ALLOWED.baselineBranch, isUsableBranchName);

export const baselineMatchSchema = z.enum(['strict', 'loose'], allowed(ALLOWED.baselineMatch));

export const acceptAfterSchema = z
  .number(allowed(ALLOWED.acceptAfter))
  .int(allowed(ALLOWED.acceptAfter))
  .min(LIMITS.acceptAfter.min, allowed(ALLOWED.acceptAfter))
  .max(LIMITS.acceptAfter.max, allowed(ALLOWED.acceptAfter));

export const updateBaselineSchema = z.enum(
  ['auto', 'always', 'never'],
  allowed(ALLOWED.updateBaseline),
);

export const baselineKeepSchema = z
  .number(allowed(ALLOWED.baselineKeep))
  .int(allowed(ALLOWED.baselineKeep))
  .min(LIMITS.baselineKeep.min, allowed(ALLOWED.baselineKeep))
  .max(LIMITS.baselineKeep.max, allowed(ALLOWED.baselineKeep));

export const missingAfterSchema = z
  .number(allowed(ALLOWED.missingAfter))
  .int(allowed(ALLOWED.missingAfter))
  .min(LIMITS.missingAfter.min, allowed(ALLOWED.missingAfter))
  .max(LIMITS.missingAfter.max, allowed(ALLOWED.missingAfter));

export const environmentProbeSchema = text(ALLOWED.environmentProbe);

export const setupSchema = text(ALLOWED.setup);

/** An EC2 instance type as the environment probe reads it (DMI product name). */
const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;

/** A price per instance-hour: a finite number above 0 (a YAML number, not a string). */
const usdPerHour = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * `price-per-hour`: one price (USD per instance-hour) for whatever runner, or one per
 * instance type; it wins over the built-in price table (src/derive/prices.ts). Each bad
 * key or price is a problem of its own, named by its path.
 */
export const pricePerHourSchema = z
  .unknown()
  .transform((value, context): number | Record<string, number> => {
    if (usdPerHour(value)) return value;
    const mapping = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (!mapping || Object.keys(value).length === 0) {
      context.addIssue({ code: 'custom', message: ALLOWED.pricePerHour, input: value });
      return z.NEVER;
    }
    const prices: Record<string, number> = {};
    for (const [key, price] of Object.entries(value)) {
      if (!INSTANCE_TYPE.test(key)) {
        context.addIssue({
          code: 'custom',
          message: ALLOWED.instanceType,
          input: key,
          path: [key],
        });
      } else if (!usdPerHour(price)) {
        context.addIssue({
          code: 'custom',
          message: ALLOWED.pricePerHourValue,
          input: price,
          path: [key],
        });
      } else prices[key] = price;
    }
    return prices;
  });

/** Settings a benchmark entry and the top level of the file both accept. */
const sharedSettings = {
  format: formatSchema.optional(),
  runs: runsSchema.optional(),
  'confirm-runs': confirmRunsSchema.optional(),
  profile: profileSchema.optional(),
  'profile-mode': profileModeSchema.optional(),
  thresholds: thresholdsSchema.optional(),
  'working-directory': workingDirectorySchema.optional(),
  env: envSchema.optional(),
  'timeout-minutes': timeoutMinutesSchema.optional(),
};

/** Settings of the whole gate: only the top level of the file accepts them. */
const gateSettings = {
  'fail-on-regression': failOnRegressionSchema.optional(),
  'fail-on-inconclusive': failOnInconclusiveSchema.optional(),
  confidence: confidenceSchema.optional(),
  'baseline-path': baselinePathSchema.optional(),
  'baseline-window': baselineWindowSchema.optional(),
  'profiler-path': profilerPathSchema.optional(),
  'upload-profiles': uploadProfilesSchema.optional(),
  'artifact-retention-days': artifactRetentionDaysSchema.optional(),
  'artifact-compression-level': artifactCompressionLevelSchema.optional(),
  'baseline-store': baselineStoreSchema.optional(),
  'baseline-branch': baselineBranchSchema.optional(),
  'baseline-s3-bucket': baselineS3BucketSchema.optional(),
  'baseline-s3-prefix': baselineS3PrefixSchema.optional(),
  'baseline-s3-region': baselineS3RegionSchema.optional(),
  'baseline-s3-endpoint': baselineS3EndpointSchema.optional(),
  'baseline-match': baselineMatchSchema.optional(),
  'accept-after': acceptAfterSchema.optional(),
  'update-baseline': updateBaselineSchema.optional(),
  'baseline-keep': baselineKeepSchema.optional(),
  'missing-after': missingAfterSchema.optional(),
  'environment-probe': environmentProbeSchema.optional(),
  setup: setupSchema.optional(),
  'price-per-hour': pricePerHourSchema.optional(),
};

const GATE_WIDE = 'a gate-wide setting: give it at the top level of the file';

export const benchmarkEntrySchema = strictMapping(
  {
    name: nameSchema,
    command: commandSchema,
    ...sharedSettings,
    sweep: sweepSchema.optional(),
    server: serverSchema({ command: commandSchema, env: envSchema }).optional(),
    slo: sloSchema.optional(),
    monitor: monitorSchema.optional(),
    startup: startupSchema.optional(),
    warmup: warmupSchema.optional(),
    accuracy: accuracySchema.optional(),
  },
  Object.fromEntries(Object.keys(gateSettings).map((key) => [key, GATE_WIDE])),
);

/** Unique names are checked by unique-names.ts, which also runs when other fields fail. */
const benchmarksSchema = z
  .array(benchmarkEntrySchema, allowed(ALLOWED.benchmarks))
  .min(1, allowed(ALLOWED.benchmarks));

export const configFileSchema = strictMapping(
  {
    ...sharedSettings,
    ...gateSettings,
    benchmarks: benchmarksSchema,
  },
  {
    server:
      "a benchmark's setting: give it in each benchmark entry whose commands talk to a server",
    slo: 'an objective of one workload: give it in a benchmark entry (docs/serving.md)',
    monitor: "a benchmark's setting: give it in each benchmark entry to watch (docs/memory.md)",
    startup:
      "a benchmark's setting: give it in each benchmark entry whose start-up to time (docs/compile-cache.md#startup)",
    accuracy:
      "a benchmark's setting: give it in each benchmark entry with a server whose answers to check (docs/agreement.md)",
    'baseline-postgres-url':
      'a secret, never a key of a file in the repository: give the action input baseline-postgres-url: ${{ secrets.PERF_GATE_POSTGRES_URL }}, or the environment variable PERF_GATE_POSTGRES_URL',
  },
);

export type ConfigFile = z.output<typeof configFileSchema>;
