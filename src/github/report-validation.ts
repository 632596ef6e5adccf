// The report artifact's files checked as untrusted input (they come from a run of the pull
// request's code): within bounds, in the shape neuron-perf-gate writes, and for the pull
// request and commit the triggering run was for.

import { z } from 'zod';
import type { GateReport } from '../model.js';
import {
  COMMENT_MD,
  PR_JSON,
  REPORT_JSON,
  ReportArtifactError,
  type ReportArtifactFiles,
  type ReportArtifactPr,
} from './report-artifact.js';

/** GitHub refuses longer comment bodies. */
const MAX_COMMENT_CHARS = 65_536;
/** Longest string anywhere in report.json; the longest real ones are log tails. */
const MAX_STRING_CHARS = 20_000;
const MAX_JSON_DEPTH = 64;

export interface ValidatedReportArtifact {
  pr: ReportArtifactPr;
  /** Checked: schema version, tool, verdict, each benchmark's name, verdict and metrics. */
  report: GateReport;
  /** The comment's markdown, within GitHub's length limit. */
  comment: string;
}

export interface ExpectedRun {
  /** The pull requests the triggering run was for; see resolveRunPullRequests. */
  prNumbers: number[];
  /** `workflow_run.head_sha`. */
  headSha: string;
}

/**
 * Checks the artifact's files as untrusted input and that they are for the pull request
 * and commit the triggering run was for; throws ReportArtifactError saying what is wrong.
 */
export function validateReportArtifact(
  files: ReportArtifactFiles,
  expected: ExpectedRun,
): ValidatedReportArtifact {
  const pr = parseUntrusted(files[PR_JSON], PR_JSON, prSchema);
  const report = parseUntrusted(files[REPORT_JSON], REPORT_JSON, reportSchema);
  const comment = files[COMMENT_MD];
  if (comment.length > MAX_COMMENT_CHARS) {
    throw new ReportArtifactError(
      `${COMMENT_MD} in the report artifact has ${comment.length} characters, more than a comment can hold (${MAX_COMMENT_CHARS})`,
    );
  }

  const artifactIs = `the report artifact is for PR #${pr.number} at ${shortSha(pr.headSha)}`;
  if (pr.headSha.toLowerCase() !== expected.headSha.toLowerCase()) {
    throw new ReportArtifactError(
      `${artifactIs}, but the workflow_run is for ${shortSha(expected.headSha)}; refusing to post`,
    );
  }
  if (!expected.prNumbers.includes(pr.number)) {
    const runIs =
      expected.prNumbers.length === 0
        ? 'no open pull request'
        : expected.prNumbers.map((n) => `PR #${n}`).join(', ');
    throw new ReportArtifactError(
      `${artifactIs}, but the workflow_run is for ${runIs}; refusing to post`,
    );
  }
  return { pr, report: report as unknown as GateReport, comment };
}

function parseUntrusted<T>(text: string, name: string, schema: z.ZodType<T>): T {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ReportArtifactError(
      `${name} in the report artifact is not JSON: ${(error as Error).message}`,
    );
  }
  const tooLong = findOversizedString(data, '', 0);
  if (tooLong) throw new ReportArtifactError(`${name} in the report artifact: ${tooLong}`);
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(top level)';
    throw new ReportArtifactError(
      `${name} in the report artifact is not what neuron-perf-gate writes: field '${where}': ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

/** Why the document is out of bounds (a string too long, nesting too deep), if it is. */
function findOversizedString(value: unknown, path: string, depth: number): string | undefined {
  if (depth > MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels at '${path}'`;
  if (typeof value === 'string') {
    return value.length > MAX_STRING_CHARS
      ? `the string at '${path || '(top level)'}' has ${value.length} characters, more than ${MAX_STRING_CHARS}`
      : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key.slice(0, 100)}` : key.slice(0, 100);
    if (key.length > MAX_STRING_CHARS) return `a key at '${path}' is too long`;
    const problem = findOversizedString(child, childPath, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

const shortText = z.string().max(1_000);
const gateVerdict = z.enum(['pass', 'regression', 'no-baseline', 'error']);

const prSchema = z.object({
  number: z.number().int().positive(),
  // SHA-1 or SHA-256 object names.
  headSha: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i),
  // It becomes a comment marker and a status context: the key's own characters only.
  gateKey: z
    .string()
    .regex(/^[A-Za-z0-9._/-]{1,120}$/, 'must be a gate key (letters, digits, . _ - /)'),
});

// What the renderer reads is required or defaulted here, so that a report from another
// version of the gate either renders or is refused with the field named.
const comparisonSchema = z.looseObject({
  id: shortText,
  unit: shortText.default(''),
  direction: z.enum(['higher-is-better', 'lower-is-better']).optional(),
  baseline: z.number().nullable().default(null),
  current: z.number().nullable().default(null),
  change: z.number().nullable().default(null),
  ci: z.tuple([z.number(), z.number()]).nullable().default(null),
  threshold: z.number().nullable().default(null),
  confidence: z.number().gt(0).lt(1).optional(),
  verdict: z.enum(['regression', 'improvement', 'unchanged', 'inconclusive', 'new', 'missing']),
  reason: z.string().default(''),
  // Rendered as figures in the comment's "what this noise allows" block (report/reach-line.ts).
  reach: z
    .object({
      power: z.number().min(0).max(1),
      runs: z.number().int().min(0),
      runsFor95: z.number().int().min(0).nullable(),
    })
    .optional(),
});

const strings = z.array(z.string()).max(10_000);
const numbers = z.array(z.number()).max(1_000_000);

const resultSchema = z.looseObject({
  metrics: z
    .array(z.looseObject({ id: shortText, unit: shortText.default(''), values: numbers }))
    .max(10_000),
  runs: z
    .array(
      z.looseObject({
        index: z.number(),
        kind: z.enum(['clean', 'profiled']),
        ok: z.boolean(),
        durationMs: z.number(),
        error: z.string().optional(),
      }),
    )
    .max(10_000),
});

const profileSchema = z.looseObject({
  status: z.enum(['not-requested', 'not-measured', 'measured', 'failed']),
  note: z.string().optional(),
  ntffFiles: strings.default([]),
  neffFiles: strings.default([]),
  metrics: z.record(z.string(), z.number()).default({}),
  totalBytes: z.number().nonnegative().optional(),
  warnings: strings.optional(),
  graphs: z
    .array(
      z.looseObject({
        key: shortText,
        label: shortText.optional(),
        engines: z.record(z.string(), z.number()).default({}),
      }),
    )
    .max(10_000)
    .optional(),
  // Rendered into the comment (report/profile-section.ts): counts, escaped text.
  source: z
    .looseObject({
      tables: z.number().int().nonnegative(),
      summaryJson: z.number().int().nonnegative(),
      schemas: z.array(shortText).max(100),
      physicalCores: z.number().int().min(2).max(8).optional(),
    })
    .optional(),
  contamination: strings.optional(),
  // Rendered into the comment: strings of a known kind only.
  capture: z
    .looseObject({
      mode: z.enum(['model', 'session']),
      modeFrom: z.enum(['profile-mode', 'serving', 'default']),
      format: shortText.optional(),
      warmup: shortText.optional(),
    })
    .optional(),
});

// The operator diff (model.ts: ProfileDiff), rendered into the comment by
// report/op-diff-section.ts: numbers, an engine of a known name, op names as code.
const opChangeSchema = z.looseObject({
  op: shortText,
  baseMs: z.number(),
  headMs: z.number(),
  changeMs: z.number(),
  changePercent: z.number().optional(),
  excessMs: z.number(),
  share: z.number(),
  engine: z.enum(['tensor', 'vector', 'scalar', 'gpsimd', 'sync']).optional(),
  hbmBytesChange: z.number(),
  only: z.enum(['base', 'head']).optional(),
});
const opDiffSchema = z.looseObject({
  baseMs: z.number(),
  headMs: z.number(),
  shared: z.looseObject({ factor: z.number(), changeMs: z.number(), share: z.number() }),
  jitter: z.number(),
  named: z.array(opChangeSchema).max(100_000),
  other: z.looseObject({ ops: z.number(), changeMs: z.number(), share: z.number() }),
});
const collectivesSchema = z
  .array(
    z.looseObject({
      operation: shortText,
      algorithm: shortText,
      replicaGroup: shortText,
      count: z.number(),
      totalMs: z.number(),
      busGBps: z.number().optional(),
    }),
  )
  .max(10_000);
const rooflineSchema = z.looseObject({ mfu: z.number(), maxAchievable: z.number() });
const profileDiffSchema = z.looseObject({
  base: shortText,
  ops: opDiffSchema,
  kinds: opDiffSchema,
  lead: z.enum(['ops', 'kinds']),
  collectives: z.looseObject({ base: collectivesSchema, head: collectivesSchema }).optional(),
  roofline: z
    .looseObject({ base: rooflineSchema.optional(), head: rooflineSchema.optional() })
    .optional(),
  caveats: strings.optional(),
});

// The agreement check (model.ts: AgreementReport), rendered by report/agreement-section.ts:
// numbers, counts, and text that is escaped.
const agreementFigureSchema = z.looseObject({
  reference: z.number(),
  head: z.number(),
  change: z.number(),
  ci: z.tuple([z.number(), z.number()]),
  margin: z.number(),
  verdict: z.enum(['pass', 'regression', 'inconclusive']),
});
const count = z.number().int().nonnegative();
const agreementSchema = z.looseObject({
  reference: shortText,
  promptsSource: shortText,
  prompts: count,
  positions: count,
  maxTokens: count,
  topK: count,
  flips: agreementFigureSchema,
  distance: agreementFigureSchema,
  overlap: z.looseObject({ reference: z.number(), head: z.number() }),
  firstToken: z.looseObject({ reference: count, head: count }),
  worstPrompts: z.array(z.looseObject({ prompt: count, flips: count, firstFlip: count })).max(100),
  requests: z.looseObject({ reference: count, aa: count, head: count }),
  verdict: z.enum(['pass', 'regression', 'inconclusive', 'error']),
  reason: shortText,
  // Words the comment puts in its table and sentences: only the ones the gate writes.
  sides: z
    .object({
      head: z.enum(['the head', 'this run']),
      base: z.enum(['the base', 'the stored run']),
    })
    .optional(),
});

// Rendered into the comment (report/server-line.ts): numbers, and text that is escaped.
const serverSchema = z.looseObject({
  startupSeconds: z.number().nonnegative().optional(),
  cleanStarts: z.number().int().nonnegative().optional(),
  starts: z.number().int().nonnegative(),
  logs: z.array(shortText).max(1_000).default([]),
  stopped: shortText.optional(),
});

/** A sweep's latency–load curve (model.ts: CapacityCurve): numbers and short names only. */
const capacityPoints = z.array(z.looseObject({ load: z.number(), value: z.number() })).max(1_000);
const capacityMark = z.looseObject({ value: z.number(), atLeast: z.boolean() }).nullable();
const capacityCurveSchema = z.looseObject({
  load: z.enum(['request_rate', 'max_concurrency']),
  unit: shortText,
  series: z
    .array(
      z.looseObject({
        metric: shortText,
        unit: shortText,
        limit: z.number(),
        holds: z.enum(['at-most', 'at-least']),
        baseline: capacityPoints,
        current: capacityPoints,
      }),
    )
    .max(20),
  capacity: z.looseObject({ baseline: capacityMark, current: capacityMark }),
});

const benchmarkSchema = z.looseObject({
  name: shortText.min(1),
  verdict: gateVerdict,
  metrics: z.array(comparisonSchema).max(10_000),
  warnings: strings.default([]),
  error: z.string().optional(),
  result: resultSchema.optional(),
  profile: profileSchema.optional(),
  server: serverSchema.optional(),
  sweep: z
    .looseObject({
      name: shortText,
      variant: shortText,
      params: z.record(z.string(), z.unknown()).default({}),
    })
    .optional(),
  artifact: z
    .looseObject({
      name: shortText,
      url: z.string().optional(),
      size: z.number().nonnegative().optional(),
    })
    .optional(),
  trend: z
    .looseObject({
      at: z.array(shortText).max(1_000),
      metrics: z
        .array(
          z.looseObject({
            id: shortText,
            unit: shortText.default(''),
            values: z.array(z.number()).max(1_000),
          }),
        )
        .max(100),
    })
    .optional(),
  latencyCurve: z
    .looseObject({
      id: shortText,
      unit: shortText.default(''),
      percentiles: z.array(z.number()).max(100),
      baseline: z.array(z.number()).max(100),
      current: z.array(z.number()).max(100),
    })
    .optional(),
  capacityCurve: capacityCurveSchema.optional(),
  profileDiff: profileDiffSchema.optional(),
  agreement: agreementSchema.optional(),
  confirmation: z
    .looseObject({
      runs: z.number(),
      sweepPasses: z.number().optional(),
      restarts: z.number().optional(),
      verdictBefore: gateVerdict,
      metricsBefore: z
        .array(z.looseObject({ id: shortText, verdict: comparisonSchema.shape.verdict }))
        .max(10_000),
    })
    .optional(),
});

const configSchema = z.looseObject({
  source: shortText,
  confidence: z.number().gt(0).lt(1),
  baselineWindow: z.number(),
  failOnRegression: z.boolean(),
  failOnInconclusive: z.boolean(),
  uploadProfiles: z.boolean(),
  artifactRetentionDays: z.number(),
  baselinePaths: strings,
  benchmarks: z
    .array(
      z.looseObject({
        name: shortText,
        sweep: benchmarkSchema.shape.sweep,
        command: z.string().optional(),
        format: shortText,
        runs: z.number(),
        confirmRuns: z.number(),
        profile: z.enum(['auto', 'on-change', 'true', 'false']),
        profileMode: z.enum(['auto', 'model', 'session']),
        thresholds: z.record(z.string(), z.number()),
        timeoutMinutes: z.number(),
        workingDirectory: z.string(),
        envNames: strings,
        slo: shortText.optional(),
        configHash: shortText.optional(),
      }),
    )
    .max(10_000),
});

const abSideSchema = z.looseObject({
  label: shortText,
  commit: shortText.optional(),
  setupSeconds: z.number().nonnegative().optional(),
  compileCache: shortText.optional(),
  environment: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
});

/** A side's compile cache in A/B (model.ts: CompileCacheSummary), read by cacheFacts. */
const abCacheSchema = z.looseObject({
  graphsCompiled: z.number().nonnegative(),
  cached: z.number().nonnegative().optional(),
  compileSeconds: z.number().nonnegative().optional(),
});

/** A/B mode's summary (model.ts: AbSummary): every figure a number, every name short text. */
const abSchema = z.looseObject({
  base: abSideSchema,
  head: abSideSchema,
  order: shortText,
  blocks: z.record(z.string(), z.number().int().nonnegative()),
  differs: z
    .array(z.looseObject({ component: shortText, base: shortText, head: shortText }))
    .max(50),
  configDiffers: z
    .array(
      z.looseObject({ benchmark: shortText, setting: shortText, base: shortText, head: shortText }),
    )
    .max(1_000)
    .optional(),
  runs: z
    .record(
      z.string(),
      z.looseObject({
        metric: shortText,
        unit: shortText,
        blocks: z
          .array(
            z.looseObject({
              base: z.array(z.number()).max(100),
              head: z.array(z.number()).max(100),
            }),
          )
          .max(100),
      }),
    )
    .optional(),
  compileCaches: z
    .record(
      z.string(),
      z.looseObject({
        shared: z.boolean(),
        base: abCacheSchema.optional(),
        baseAgain: abCacheSchema.optional(),
        head: abCacheSchema.optional(),
      }),
    )
    .optional(),
});

/** The price behind the cost metrics (model.ts: CostBasis): a finite price, short texts. */
const costSchema = z.looseObject({
  instanceType: shortText.optional(),
  usdPerHour: z.number().positive().optional(),
  source: z.enum(['table', 'capacity-block', 'config']).optional(),
  asOf: shortText.optional(),
  region: shortText.optional(),
  url: shortText.optional(),
  note: shortText.optional(),
});

const reportSchema = z.looseObject({
  schemaVersion: z.literal(1),
  tool: z.looseObject({ name: z.literal('neuron-perf-gate'), version: shortText }),
  createdAt: shortText.default(''),
  verdict: gateVerdict,
  benchmarks: z.array(benchmarkSchema).max(10_000),
  environment: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
  baselineSource: shortText.optional(),
  isolation: shortText.optional(),
  warnings: strings.default([]),
  links: z.record(z.string(), z.string()).default({}),
  config: configSchema.optional(),
  ab: abSchema.optional(),
  cost: costSchema.optional(),
});
