// The validated settings every later stage reads. Built only by src/config/.

import type { ProfileModeSetting, ProfileSetting, WarmupRule } from '../model.js';
import type { SloSpec } from './slo.js';

export type { ProfileMode, ProfileModeSetting, ProfileSetting } from '../model.js';

/** Where baselines are kept: see src/baseline/. */
export type BaselineStoreKind = 'git-branch' | 'file' | 'artifact' | 's3' | 'postgres';

/** `strict`: compare only with records from the same environment; `loose`: any, noted. */
export type BaselineMatchSetting = 'strict' | 'loose';

/**
 * When a run writes its results to the store. `auto`: push to the default branch,
 * schedule, workflow_dispatch on the default branch; `always`: any event but a pull
 * request; `never`: no writes.
 */
export type UpdateBaselineSetting = 'auto' | 'always' | 'never';
/** What the action does with the dashboard page after a run (input `dashboard`). */
export type DashboardSetting = 'off' | 'artifact' | 'pages';

/** The signals a server may be asked to stop with; SIGKILL follows after the grace period. */
export const STOP_SIGNALS = [
  'SIGTERM',
  'SIGINT',
  'SIGQUIT',
  'SIGHUP',
  'SIGUSR1',
  'SIGUSR2',
] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * A server the benchmark's commands talk to (`vllm serve`): started by the gate before the
 * benchmark's first run, stopped with its whole process tree after its last (runner/server.ts).
 */
export interface ServerSpec {
  /** A shell command (run with bash, as `command` is), or an argv list run as it is. */
  command: string | string[];
  /** Ready when a GET of this loopback URL answers 2xx, or when a line of output matches. */
  readiness: { url: string } | { log: string };
  startTimeoutSeconds: number;
  stopSignal: StopSignal;
  stopGraceSeconds: number;
  /** Laid over the benchmark's own `env` for the server. */
  env: Record<string, string>;
}

/** `monitor:`: which neuron-monitor samples the clean runs, and how often. */
export interface MonitorSpec {
  /** The executable: a name on PATH (and /opt/aws/neuron/bin) or a path. */
  command: string;
  periodSeconds: number;
}

/**
 * `startup:`: time each clean run from launch to ready (`benchmark_startup`), ready being
 * the first output line matching `readyLog`, else the result file's first complete line;
 * `cold`: one more start on an empty compile cache (`cold_startup`).
 */
export interface StartupSpec {
  readyLog?: string;
  cold: boolean;
}

/** `accuracy:` as the file gives it (src/config/accuracy-schema.ts), its prompt file not read. */
export interface AccuracySetting {
  /** As written: a path in the repository. */
  promptsFile?: string;
  maxTokens: number;
  topK: number;
  /** The server's origin on loopback; by default the origin of its ready-url. */
  origin?: string;
  model?: string;
  margins: { flips: number; distance: number };
  requestTimeoutSeconds: number;
}

/** The output-agreement check of a benchmark with a server (src/accuracy/). */
export interface AccuracySpec extends Omit<AccuracySetting, 'promptsFile' | 'origin'> {
  origin: string;
  prompts: string[];
  /** Where the prompts came from: the file's path in the repository, or `the default prompts`. */
  promptsSource: string;
}

export interface BenchmarkSpec {
  /** For a sweep variant: `<entry name>/<variant name>`. */
  name: string;
  /**
   * Set for a variant of a sweep: its parameters reach the command as variables and a file.
   * With `settings:`, `name` is `<entry>/<setting>`, `entry` the entry's name, and the
   * setting's parameters reach the server too (and are merged under the variant's own).
   */
  sweep?: {
    name: string;
    variant: string;
    params: Record<string, unknown>;
    setting?: { name: string; params: Record<string, unknown> };
    entry?: string;
  };
  /** Run under bash in `workingDirectory`. */
  command: string;
  /** A format id from src/formats/ or 'auto'. */
  format: string;
  /** Clean (unprofiled) runs, at least 1. */
  runs: number;
  /**
   * When the benchmark would fail: this many more clean runs, then it is judged on all its
   * runs (0 = judge the first verdict).
   */
  confirmRuns: number;
  profile: ProfileSetting;
  /** The device profile mode of the profiled run; `auto` is decided at the run. */
  profileMode: ProfileModeSetting;
  /** Metric id → relative threshold as a fraction (0.05 = 5%); built-in defaults merged in. */
  thresholds: Record<string, number>;
  /** Absolute path. */
  workingDirectory: string;
  env: Record<string, string>;
  timeoutMinutes: number;
  /** Set when the benchmark's commands need a server the gate starts and stops. */
  server?: ServerSpec;
  /** Watch the clean runs with neuron-monitor and /proc (`monitor:`; src/observe/). */
  monitor?: MonitorSpec;
  /** Time the clean runs' start-up, and a cold one (`startup:`; src/observe/startup-*.ts). */
  startup?: StartupSpec;
  /** Each run's first requests or seconds left out of its figures (`warmup:`; formats/serve-warmup.ts). */
  warmup?: WarmupRule;
  /** The entry's service level objectives (`slo:`): goodput, attainment and, for a sweep, capacity. */
  slo?: SloSpec;
  /** Whether the served model's answers still agree with the base's (`accuracy:`; src/accuracy/). */
  accuracy?: AccuracySpec;
  /** configHash() of this spec (src/config/config-hash.ts); set by the config stage. */
  configHash?: string;
}

export interface GateConfig {
  /** The config file the benchmarks came from, or 'action inputs' / 'command line'. */
  source: string;
  /**
   * The command came from the `command` input or flag, where the workflow may have
   * expanded a secret into it: it is never published. A config file's commands are in
   * the repository already.
   */
  commandFromInputs?: boolean;
  benchmarks: BenchmarkSpec[];
  /** Absolute paths of baseline files (report.json, baseline file or result files). */
  baselinePaths: string[];
  failOnRegression: boolean;
  /** Fail the check when a verdict is inconclusive (the data cannot tell). */
  failOnInconclusive: boolean;
  /** Confidence level of the intervals, as a fraction strictly between 0.5 and 1 (0.95). */
  confidence: number;
  /** How many of a benchmark's newest stored baseline records form its baseline. */
  baselineWindow: number;
  /** Absolute path of the folder for report.json, comment.md, summary.md, runs, profiles. */
  outDir: string;
  /** Absolute path to write the current results as a baseline file, if asked. */
  saveBaseline?: string;
  /**
   * Absolute path of the profiler CLI (neuron-explorer or neuron-profile), overriding
   * discovery. Not checked here: whoever runs it reports a missing or unusable file.
   */
  profilerPath?: string;
  /** Upload the profile folder as a workflow artifact. */
  uploadProfiles: boolean;
  /** Days the uploaded profile artifact is kept, 1 to 90. */
  artifactRetentionDays: number;
  /** zlib level of the profile artifact, 0 (none) to 9 (best). */
  artifactCompressionLevel: number;
  /** Where baselines are read from and written to. */
  baselineStore: BaselineStoreKind;
  /** The git-branch store's data branch. */
  baselineBranch: string;
  /** The s3 store's bucket, key prefix, region and endpoint (an S3-compatible service). */
  baselineS3?: BaselineS3Settings;
  /** The postgres store's connection string: a secret, from an input or the environment only. */
  baselinePostgresUrl?: string;
  baselineMatch: BaselineMatchSetting;
  /** Consecutive regressed push/scheduled runs that become the new normal (0: never). */
  acceptAfter: number;
  updateBaseline: UpdateBaselineSetting;
  /** Records kept per benchmark on the data branch; older ones are pruned. */
  baselineKeep: number;
  /**
   * Nights (the gate's own run days) a series may miss before the history names it as
   * stopped reporting (0: never).
   */
  missingAfter: number;
  /** Command printing the environment's versions (JSON or key=value); default probes otherwise. */
  environmentProbe?: string;
  /** A/B mode: prepares each side in its folder before its first run (config file only). */
  setup?: string;
  /**
   * USD per instance-hour for the cost metrics, over the built-in price table: one price, or
   * one per instance type (config file only).
   */
  pricePerHour?: PricePerHour;
}

export interface BaselineS3Settings {
  bucket: string;
  prefix: string;
  /** Unset: AWS_REGION, or wherever the AWS SDK finds one. */
  region?: string;
  endpoint?: string;
}

/** `price-per-hour`: one price for whatever runner, or a price per instance type. */
export type PricePerHour = number | Readonly<Record<string, number>>;

/**
 * Raw settings as strings, exactly as action inputs or CLI flags give them; an empty
 * string means "not given". Keys are the action input names.
 */
export interface RawSettings {
  config?: string;
  command?: string;
  name?: string;
  format?: string;
  runs?: string;
  'confirm-runs'?: string;
  profile?: string;
  thresholds?: string;
  'baseline-path'?: string;
  'fail-on-regression'?: string;
  'fail-on-inconclusive'?: string;
  confidence?: string;
  'baseline-window'?: string;
  'working-directory'?: string;
  'timeout-minutes'?: string;
  'out-dir'?: string;
  'save-baseline'?: string;
  'profile-mode'?: string;
  'profiler-path'?: string;
  'upload-profiles'?: string;
  'artifact-retention-days'?: string;
  'artifact-compression-level'?: string;
  'baseline-store'?: string;
  'baseline-branch'?: string;
  'baseline-s3-bucket'?: string;
  'baseline-s3-prefix'?: string;
  'baseline-s3-region'?: string;
  'baseline-s3-endpoint'?: string;
  'baseline-postgres-url'?: string;
  'baseline-match'?: string;
  'accept-after'?: string;
  'update-baseline'?: string;
  'baseline-keep'?: string;
  'missing-after'?: string;
  'environment-probe'?: string;
}
