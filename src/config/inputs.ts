// Action inputs / CLI flags (strings; '' = not given) → typed values. Each string is
// turned into the value it spells (strictly: "3x" stays a string) and then checked by the
// same schema as the YAML file, so both accept exactly the same settings.

import type { z } from 'zod';

import { issuesToProblems } from './format-issues.js';
import { foundMessage } from './problems.js';
import type { Problem } from './problems.js';
import {
  acceptAfterSchema,
  artifactCompressionLevelSchema,
  artifactRetentionDaysSchema,
  baselineBranchSchema,
  baselineKeepSchema,
  missingAfterSchema,
  baselineMatchSchema,
  baselinePathSchema,
  baselineS3BucketSchema,
  baselineS3EndpointSchema,
  baselineS3PrefixSchema,
  baselineS3RegionSchema,
  baselineStoreSchema,
  baselineWindowSchema,
  commandSchema,
  confidenceSchema,
  confirmRunsSchema,
  environmentProbeSchema,
  failOnInconclusiveSchema,
  failOnRegressionSchema,
  formatSchema,
  nameSchema,
  profileModeSchema,
  profilerPathSchema,
  profileSchema,
  runsSchema,
  thresholdsSchema,
  timeoutMinutesSchema,
  updateBaselineSchema,
  uploadProfilesSchema,
  workingDirectorySchema,
} from './schema.js';
import { splitThresholdLines } from './thresholds.js';
import type { SettingsLayer } from './merge.js';
import type {
  BaselineMatchSetting,
  BaselineStoreKind,
  RawSettings,
  UpdateBaselineSetting,
} from './types.js';

/** Where the raw settings came from; only changes how problems name them. */
export type SettingsOrigin = 'action' | 'cli';

export interface InputLabels {
  /** `action input 'runs'` or `flag --runs`. */
  field(name: keyof RawSettings): string;
  /** GateConfig.source when the benchmark comes from the inputs. */
  source: string;
  /** How to give `command` in this setting, for messages. */
  commandExample(command: string): string;
}

export function inputLabels(origin: SettingsOrigin): InputLabels {
  return origin === 'cli'
    ? {
        field: (name) => `flag --${name}`,
        source: 'command line',
        commandExample: (command) => `  neuron-perf-gate run --command '${command}'`,
      }
    : {
        field: (name) => `action input '${name}'`,
        source: 'action inputs',
        commandExample: (command) => `  with:\n    command: ${command}`,
      };
}

export interface InputValues {
  config?: string;
  command?: string;
  name?: string;
  /** Per-benchmark settings given as inputs: the layer above the built-in defaults. */
  layer: SettingsLayer;
  baselinePaths?: string[];
  failOnRegression?: boolean;
  failOnInconclusive?: boolean;
  /** A fraction (0.95). */
  confidence?: number;
  baselineWindow?: number;
  outDir?: string;
  saveBaseline?: string;
  /** As written, relative to the workspace or absolute. */
  profilerPath?: string;
  uploadProfiles?: boolean;
  artifactRetentionDays?: number;
  artifactCompressionLevel?: number;
  baselineStore?: BaselineStoreKind;
  baselineBranch?: string;
  baselineS3Bucket?: string;
  baselineS3Prefix?: string;
  baselineS3Region?: string;
  baselineS3Endpoint?: string;
  /** A secret: only ever from an input (or the environment), never from the file. */
  baselinePostgresUrl?: string;
  baselineMatch?: BaselineMatchSetting;
  acceptAfter?: number;
  updateBaseline?: UpdateBaselineSetting;
  baselineKeep?: number;
  missingAfter?: number;
  environmentProbe?: string;
}

export function readInputs(
  raw: RawSettings,
  labels: InputLabels,
): { values: InputValues; problems: Problem[] } {
  const problems: Problem[] = [];
  const given = (name: keyof RawSettings): string | undefined => {
    const value = raw[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const check = <T>(name: keyof RawSettings, schema: z.ZodType<T>, value: unknown) => {
    if (value === undefined) return undefined;
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    problems.push(...issuesToProblems(result.error.issues, { where: labels.field(name) }));
    return undefined;
  };

  const values: InputValues = {
    config: given('config'),
    command: check('command', commandSchema, given('command')),
    name: check('name', nameSchema, given('name')),
    layer: {
      format: check('format', formatSchema, given('format')),
      runs: check('runs', runsSchema, asNumber(given('runs'))),
      confirmRuns: check('confirm-runs', confirmRunsSchema, asNumber(given('confirm-runs'))),
      profile: check('profile', profileSchema, asProfile(given('profile'))),
      profileMode: check('profile-mode', profileModeSchema, asProfileMode(given('profile-mode'))),
      thresholds: check(
        'thresholds',
        thresholdsSchema,
        thresholdRecord(given('thresholds'), labels.field('thresholds'), problems),
      ),
      workingDirectory: check(
        'working-directory',
        workingDirectorySchema,
        given('working-directory'),
      ),
      timeoutMinutes: check(
        'timeout-minutes',
        timeoutMinutesSchema,
        asNumber(given('timeout-minutes')),
      ),
    },
    baselinePaths: check('baseline-path', baselinePathSchema, pathList(given('baseline-path'))),
    failOnRegression: check(
      'fail-on-regression',
      failOnRegressionSchema,
      asBoolean(given('fail-on-regression')),
    ),
    failOnInconclusive: check(
      'fail-on-inconclusive',
      failOnInconclusiveSchema,
      asBoolean(given('fail-on-inconclusive')),
    ),
    confidence: check('confidence', confidenceSchema, asNumber(given('confidence'))),
    baselineWindow: check(
      'baseline-window',
      baselineWindowSchema,
      asNumber(given('baseline-window')),
    ),
    outDir: given('out-dir'),
    saveBaseline: given('save-baseline'),
    profilerPath: check('profiler-path', profilerPathSchema, given('profiler-path')),
    uploadProfiles: check(
      'upload-profiles',
      uploadProfilesSchema,
      asBoolean(given('upload-profiles')),
    ),
    artifactRetentionDays: check(
      'artifact-retention-days',
      artifactRetentionDaysSchema,
      asNumber(given('artifact-retention-days')),
    ),
    artifactCompressionLevel: check(
      'artifact-compression-level',
      artifactCompressionLevelSchema,
      asNumber(given('artifact-compression-level')),
    ),
    baselineStore: check('baseline-store', baselineStoreSchema, lower(given('baseline-store'))),
    baselineBranch: check('baseline-branch', baselineBranchSchema, given('baseline-branch')),
    baselineS3Bucket: check(
      'baseline-s3-bucket',
      baselineS3BucketSchema,
      given('baseline-s3-bucket'),
    ),
    baselineS3Prefix: check(
      'baseline-s3-prefix',
      baselineS3PrefixSchema,
      given('baseline-s3-prefix'),
    ),
    baselineS3Region: check(
      'baseline-s3-region',
      baselineS3RegionSchema,
      given('baseline-s3-region'),
    ),
    baselineS3Endpoint: check(
      'baseline-s3-endpoint',
      baselineS3EndpointSchema,
      given('baseline-s3-endpoint'),
    ),
    baselinePostgresUrl: postgresUrl(given('baseline-postgres-url'), labels, problems),
    baselineMatch: check('baseline-match', baselineMatchSchema, lower(given('baseline-match'))),
    acceptAfter: check('accept-after', acceptAfterSchema, asNumber(given('accept-after'))),
    updateBaseline: check('update-baseline', updateBaselineSchema, lower(given('update-baseline'))),
    baselineKeep: check('baseline-keep', baselineKeepSchema, asNumber(given('baseline-keep'))),
    missingAfter: check('missing-after', missingAfterSchema, asNumber(given('missing-after'))),
    environmentProbe: check(
      'environment-probe',
      environmentProbeSchema,
      raw['environment-probe']?.trim() || undefined,
    ),
  };
  return { values, problems };
}

/** Checked by its scheme alone: the text is a secret and is never quoted in a problem. */
function postgresUrl(
  text: string | undefined,
  labels: InputLabels,
  problems: Problem[],
): string | undefined {
  if (text === undefined) return undefined;
  if (/^postgres(ql)?:\/\//i.test(text)) return text;
  problems.push({
    where: labels.field('baseline-postgres-url'),
    path: '',
    message:
      'is not a PostgreSQL connection string (not shown: it may hold a password); give postgres://USER:PASSWORD@HOST:5432/DATABASE from a secret',
  });
  return undefined;
}

const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** "3" → 3; anything that is not wholly a number stays text for the schema to reject. */
function asNumber(text: string | undefined): number | string | undefined {
  return text !== undefined && NUMBER_TEXT.test(text) ? Number(text) : text;
}

/** Keywords in any case; the schema quotes anything else as written. */
function lower(text: string | undefined): string | undefined {
  return text?.toLowerCase();
}

/** "true"/"false" in any case → boolean; anything else stays text for the schema to reject. */
function asBoolean(text: string | undefined): boolean | string | undefined {
  const lower = text?.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : text;
}

/** Any case of auto/on-change/true/false; anything else stays as written, to be quoted in the error. */
function asProfile(text: string | undefined): string | undefined {
  const lower = text?.toLowerCase();
  return lower === 'auto' || lower === 'on-change' || lower === 'true' || lower === 'false'
    ? lower
    : text;
}

/** model/session in any case; anything else stays as written, to be quoted in the error. */
function asProfileMode(text: string | undefined): string | undefined {
  const lower = text?.toLowerCase();
  return lower === 'auto' || lower === 'model' || lower === 'session' ? lower : text;
}

/** One path per line; blank lines and `#` comments ignored. */
function pathList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** `throughput: 5%` lines → { throughput: '5%' }; lines that are not pairs are problems. */
function thresholdRecord(
  text: string | undefined,
  where: string,
  problems: Problem[],
): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  const { entries, malformed } = splitThresholdLines(text);
  for (const bad of malformed) {
    problems.push({
      where,
      path: `line ${bad.line}`,
      message: foundMessage(
        bad.text,
        'allowed: metric: percentage pairs such as "throughput: 5%", one per line or comma separated',
      ),
    });
  }
  const record: Record<string, string> = {};
  const lineOf = new Map<string, number>();
  for (const entry of entries) {
    const earlier = lineOf.get(entry.metric);
    if (earlier !== undefined) {
      problems.push({
        where,
        path: entry.metric,
        message: foundMessage(
          entry.value,
          `already given on line ${earlier}; allowed: one threshold per metric`,
        ),
      });
      continue;
    }
    lineOf.set(entry.metric, entry.line);
    record[entry.metric] = entry.value;
  }
  return record;
}
