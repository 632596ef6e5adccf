// Every built-in default and limit of the gate's settings, in one place. Other modules
// read these; none of them hard-codes a default of its own.

import type {
  BaselineMatchSetting,
  DashboardSetting,
  ProfileModeSetting,
  ProfileSetting,
  StopSignal,
  UpdateBaselineSetting,
} from './types.js';

import { builtInThreshold } from './default-thresholds.js';

/**
 * The built-in thresholds of the reference workload's metrics (offline-benchmark), as
 * fractions (0.05 = 5%). Every other metric's comes from the rules in default-thresholds.ts.
 */
export const DEFAULT_THRESHOLDS: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries(
    ['throughput', 'latency_p50', 'latency_geomean', 'latency_p95', 'latency_p99', 'mfu'].map(
      (id) => [id, builtInThreshold(id, 'offline-benchmark')!],
    ),
  ),
);

/**
 * The chance that a gate run on unchanged code fails (one-sided), shared by every gated
 * metric of every benchmark and by every look of the confirmation runs: see
 * docs/statistics.md. Below 1% so that the measured rate stays under 1% with its interval.
 */
export const GATE_FALSE_ALARM_RATE = 0.005;

export const DEFAULTS = Object.freeze({
  /** Name of the one benchmark given by the `command` input. */
  name: 'benchmark',
  runs: 3,
  /**
   * Clean runs per benchmark on scheduled (nightly) runs: the history finds a 3% step at
   * run CV 5% within 2 nights with these (docs/history.md; bench:changepoints' synthetic
   * nights, not measured inf2 history); nobody waits on a nightly.
   */
  nightlyRuns: 24,
  /**
   * The most extra clean runs a benchmark whose answer is still open may take, in batches
   * (compare/sequential.ts); most pull requests take none. 10 lets a regression of twice a
   * 5% threshold fail about 96% of the time at run CV 5% (bench:accuracy: its own
   * synthetic noise, not measured inf2 runs; `calibrate` says what a team's noise allows).
   */
  confirmRuns: 10,
  profile: 'auto' as ProfileSetting,
  /**
   * NEURON_RT_INSPECT_DEVICE_PROFILE of the profiled run. `auto`: `session` for a serving
   * format, as the Neuron docs advise for inference serving (vLLM); `model` for any other.
   */
  profileMode: 'auto' as ProfileModeSetting,
  format: 'auto',
  timeoutMinutes: 60,
  /** Relative to the workspace: the workspace itself. */
  workingDirectory: '.',
  failOnRegression: true,
  failOnInconclusive: false,
  /** Confidence level of the intervals, as a fraction (95%). */
  confidence: 0.95,
  /** Newest stored baseline records per benchmark that form its baseline. */
  baselineWindow: 5,
  /** Relative to the workspace. */
  outDir: 'perf-gate-output',
  /** Upload the profile folder as a workflow artifact. */
  uploadProfiles: true,
  artifactRetentionDays: 14,
  /** zlib level; NTFF files compress poorly, so a lower level saves time for little size. */
  artifactCompressionLevel: 6,
  /** The git-branch store's data branch. */
  baselineBranch: 'perf-gate-data',
  baselineS3Prefix: 'perf-gate',
  baselineMatch: 'strict' as BaselineMatchSetting,
  /** Three regressed runs in a row on the default branch are the new normal. */
  acceptAfter: 3,
  updateBaseline: 'auto' as UpdateBaselineSetting,
  /** Records kept per benchmark on the data branch. */
  baselineKeep: 500,
  /** A series the gate ran three nights without is named as missing (0: never). */
  missingAfter: 3,
  /** The action builds no dashboard page unless asked to. */
  dashboard: 'off' as DashboardSetting,
  /** The branch `dashboard: pages` publishes to, for GitHub Pages. */
  dashboardBranch: 'gh-pages',
  /**
   * A benchmark's server: how long it may take to become ready (the first start on a runner
   * compiles the model; later starts read the Neuron compile cache), the signal that stops
   * it and how long it has to exit before SIGKILL (serve-and-bench.sh's 30 minutes and 30 s).
   */
  serverStartTimeoutSeconds: 1800,
  serverStopSignal: 'SIGTERM' as StopSignal,
  serverStopGraceSeconds: 30,
});

/** Config files looked for in the workspace when neither `config` nor `command` is given. */
export const DEFAULT_CONFIG_FILES: readonly string[] = Object.freeze([
  '.github/perf-gate.yml',
  '.github/perf-gate.yaml',
]);

export const LIMITS = Object.freeze({
  runs: { min: 1, max: 100 },
  confirmRuns: { min: 0, max: 20 },
  baselineWindow: { min: 1, max: 100 },
  /** The confidence level is a percentage strictly between these two. */
  confidencePercent: { above: 50, below: 100 },
  /** One day: longer than any sensible benchmark, short enough to catch a stuck one. */
  timeoutMinutes: { max: 1440 },
  /** Thresholds are percentages above 0 and at most this. */
  thresholdPercent: { max: 1000 },
  /** An artifact's retention in days; 90 is GitHub's default maximum. */
  artifactRetentionDays: { min: 1, max: 90 },
  /** zlib compression levels. */
  artifactCompressionLevel: { min: 0, max: 9 },
  acceptAfter: { min: 0, max: 100 },
  baselineKeep: { min: 1, max: 100_000 },
  missingAfter: { min: 0, max: 365 },
  /** A server's start-timeout, in seconds: one day, like timeout-minutes. */
  serverStartTimeoutSeconds: { max: 86_400 },
  /** A server's stop-grace-period, in seconds. */
  serverStopGraceSeconds: { max: 600 },
});
