// Runs one configured benchmark: its clean runs, then one profiled run, each told through
// its environment where to write its result.

import { paramEnvironment } from '../config/sweep.js';
import { formatDuration } from '../text/duration.js';
import { lstat, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { writeFileAtomic } from '../fs/atomic.js';
import { refuseLinksBelow } from '../fs/no-links.js';
import { dirname, join } from 'node:path';
import type { BenchmarkSpec } from '../config/types.js';
import type { Logger } from '../log.js';
import type { ProfileCapture, RunKind, RunOutcome } from '../model.js';
import { childEnvironment } from './child-env.js';
import { describeLeftovers } from './leftovers.js';
import { gateOwnedReason } from '../config/profiler-variables.js';
import { captureWarning, chooseCapture, describeCapture } from './profile-capture.js';
import { cleanRunEnv, profiledRunEnv } from './profiler-env.js';
import { slugify } from './slug.js';
import type { ProcessResult, ProcessRunner } from './types.js';

/** Lines of output an outcome keeps for its error message. */
export const LOG_TAIL_LINES = 50;

export interface RunBenchmarkOptions {
  runner: ProcessRunner;
  log: Logger;
  /** Absolute folder of this gate run; runs/ and profiles/ go below it. */
  outDir: string;
  /** Whether to add one profiled run after the clean runs. */
  profile: boolean;
  /** The environment the benchmark inherits (usually process.env). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** Clock for run durations, in ms. */
  now?: () => number;
}

interface RunPlan {
  index: number;
  total: number;
  kind: RunKind;
  label: string;
  resultPath: string;
  logPath: string;
  profileDir?: string;
  /** Set with profileDir: the device profile mode and warm-up of the profiled run. */
  capture?: ProfileCapture;
}

/** Where the files of a benchmark go below the gate's out dir. */
export function benchmarkPaths(
  outDir: string,
  name: string,
): { runsDir: string; profileDir: string } {
  const slug = slugify(name);
  return { runsDir: join(outDir, 'runs', slug), profileDir: join(outDir, 'profiles', slug) };
}

/**
 * The benchmark's `timeout-minutes` in milliseconds (at least 1): the bound of each run,
 * and of the work around a run that shares it (a --command rebuild, the profiler).
 */
export function timeoutMsOf(spec: Pick<BenchmarkSpec, 'timeoutMinutes'>): number {
  return Math.max(1, Math.round(spec.timeoutMinutes * 60_000));
}

/**
 * Runs `spec.runs` clean runs and then, when `profile` is set, one profiled run. Stops
 * after the first failed clean run: its outcome (with the error and the last lines of
 * output) is the last one returned. A failed profiled run is returned as it is.
 */
export async function runBenchmark(
  spec: BenchmarkSpec,
  options: RunBenchmarkOptions,
): Promise<RunOutcome[]> {
  const now = options.now ?? (() => performance.now());
  const { runsDir, profileDir } = benchmarkPaths(options.outDir, spec.name);
  const total = spec.runs + (options.profile ? 1 : 0);
  warnAboutProfilerSettings(spec, options.log);
  // An earlier benchmark's runs could have swapped a folder on the way for a link: the gate
  // deletes below, outside the sandbox, so it would delete what the link points at.
  await refuseLinksBelow(dirname(options.outDir), runsDir, 'the run folder');
  await refuseLinksBelow(dirname(options.outDir), profileDir, 'the profile folder');
  await removeEarlierRunOutput(runsDir, profileDir);

  const outcomes: RunOutcome[] = [];
  for (let index = 1; index <= total; index++) {
    const kind: RunKind = index > spec.runs ? 'profiled' : 'clean';
    const plan: RunPlan = {
      index,
      total,
      kind,
      label: `${spec.name}: run ${index} of ${total} (${kind})`,
      ...runFiles(runsDir, index, kind),
      ...(kind === 'profiled' ? await profiledRun(spec, runsDir, profileDir, options.log) : {}),
    };
    const outcome = await runOnce(spec, plan, options, now);
    outcomes.push(outcome);
    if (!outcome.ok && kind === 'clean') break;
  }
  return outcomes;
}

/**
 * Where the profiled run's profile goes and how it records, said in the log. Run 1 is
 * always a clean run that succeeded: a failed clean run stops the benchmark before.
 */
async function profiledRun(
  spec: BenchmarkSpec,
  runsDir: string,
  profileDir: string,
  log: Logger,
): Promise<Pick<RunPlan, 'profileDir' | 'capture'>> {
  const capture = await chooseCapture(spec, runFiles(runsDir, 1, 'clean').resultPath);
  log.info(`${spec.name}: the profiled run records ${describeCapture(capture)}`);
  const warning = captureWarning(capture);
  if (warning) log.warning(`${spec.name}: ${warning}`);
  return { profileDir, capture };
}

/** The names the gate gives a run's files: `run-3.clean.json`, `run-4.profiled.log`. */
const RUN_FILE = /^run-\d+\.(clean|profiled)\.(json|log)$/;

/** Where run `index` writes its result and its log (named as RUN_FILE matches). */
function runFiles(
  runsDir: string,
  index: number,
  kind: RunKind,
): Pick<RunPlan, 'resultPath' | 'logPath'> {
  return {
    resultPath: join(runsDir, `run-${index}.${kind}.json`),
    logPath: join(runsDir, `run-${index}.${kind}.log`),
  };
}

/**
 * Removes what an earlier gate run left in the benchmark's folders (a reused out dir on a
 * self-hosted runner), so that it neither piles up nor passes for this run's output: its
 * run files (it may have had more runs or confirmation runs; only files named as the gate
 * names them are touched) and its profiles, which would be uploaded as this run's when
 * this one takes no profiled run (profile: on-change or off).
 */
async function removeEarlierRunOutput(runsDir: string, profileDir: string): Promise<void> {
  await rm(profileDir, { recursive: true, force: true });
  let names: string[];
  try {
    names = await readdir(runsDir);
  } catch {
    return; // no folder yet
  }
  await Promise.all(
    names
      .filter((name) => RUN_FILE.test(name))
      .map((name) => rm(join(runsDir, name), { force: true })),
  );
}

/**
 * Runs `count` more clean runs of a benchmark that would fail, numbered after the runs it
 * already had, so that it is judged on all its runs together. Stops at the first failure.
 */
export async function runConfirmationRuns(
  spec: BenchmarkSpec,
  options: RunBenchmarkOptions & {
    firstIndex: number;
    count: number;
    /** For the log when runs are added one at a time: this is run `step` of at most `of`. */
    step?: number;
    of?: number;
    /** What the log calls these runs; 'confirmation run' unless given. */
    purpose?: string;
  },
): Promise<RunOutcome[]> {
  const now = options.now ?? (() => performance.now());
  const { runsDir } = benchmarkPaths(options.outDir, spec.name);
  const total = options.firstIndex + options.count - 1;
  const outcomes: RunOutcome[] = [];
  for (let step = 1; step <= options.count; step++) {
    const index = options.firstIndex + step - 1;
    const plan: RunPlan = {
      index,
      total,
      kind: 'clean',
      label: `${spec.name}: ${options.purpose ?? 'confirmation run'} ${(options.step ?? 1) + step - 1} of ${options.of ?? options.count} (run ${index}, clean)`,
      ...runFiles(runsDir, index, 'clean'),
    };
    const outcome = await runOnce(spec, plan, options, now);
    outcomes.push(outcome);
    if (!outcome.ok) break;
  }
  return outcomes;
}

/**
 * The profiled run of `profile: on-change`, numbered after the clean runs and confirmation
 * runs a benchmark already had: it runs only once their verdict asks for a profile.
 */
export async function runLateProfiledRun(
  spec: BenchmarkSpec,
  options: RunBenchmarkOptions & { index: number },
): Promise<RunOutcome> {
  const { runsDir, profileDir } = benchmarkPaths(options.outDir, spec.name);
  const plan: RunPlan = {
    index: options.index,
    total: options.index,
    kind: 'profiled',
    label: `${spec.name}: run ${options.index} (profiled, as a gated metric moved)`,
    ...runFiles(runsDir, options.index, 'profiled'),
    ...(await profiledRun(spec, runsDir, profileDir, options.log)),
  };
  return runOnce(spec, plan, options, options.now ?? (() => performance.now()));
}

async function runOnce(
  spec: BenchmarkSpec,
  plan: RunPlan,
  options: RunBenchmarkOptions,
  now: () => number,
): Promise<RunOutcome> {
  const { log } = options;
  // The run folder is the benchmark's to write too: written here only without a link on the
  // way (a link would carry the gate's writes outside the sandbox).
  // (The out-dir itself included: the benchmark could have swapped it for a link too.)
  await refuseLinksBelow(dirname(options.outDir), dirname(plan.resultPath), 'the run folder');
  // Nothing from an earlier gate run in the same out dir may pass for this run's output.
  await mkdir(dirname(plan.resultPath), { recursive: true });
  await rm(plan.resultPath, { force: true });
  await rm(plan.logPath, { force: true });
  if (spec.sweep) {
    await writeFileAtomic(paramsPath(plan), `${JSON.stringify(spec.sweep.params, null, 2)}\n`);
  }
  if (plan.profileDir !== undefined) {
    await refuseLinksBelow(dirname(options.outDir), plan.profileDir, 'the profile folder');
    await rm(plan.profileDir, { recursive: true, force: true });
    await mkdir(plan.profileDir, { recursive: true });
  }

  const timeoutMs = timeoutMsOf(spec);
  log.startGroup(plan.label);
  const started = now();
  let result: ProcessResult;
  try {
    result = await options.runner.run({
      command: spec.command,
      cwd: spec.workingDirectory,
      env: runEnv(spec, plan, options.baseEnv),
      timeoutMs,
      logPath: plan.logPath,
      onOutput: (chunk) => log.output(chunk),
      tailLines: LOG_TAIL_LINES,
    });
  } finally {
    log.endGroup();
  }
  const durationMs = Math.round(now() - started);

  const failure = describeFailure(result, spec) ?? (await checkResultFile(plan.resultPath));
  const took = formatDuration(durationMs);
  const summary =
    failure === undefined
      ? `finished in ${took}`
      : `failed: ${failure.short}${result.timedOut ? '' : ` after ${took}`}`;
  log.info(`${plan.label} ${summary}`);
  const leftovers = result.leftovers?.length ? describeLeftovers(result.leftovers) : undefined;
  if (leftovers) {
    log.warning(`${plan.label} left ${leftovers} running after it exited; the gate stopped them`);
  }

  return {
    index: plan.index,
    kind: plan.kind,
    ok: failure === undefined,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs,
    resultPath: plan.resultPath,
    logPath: plan.logPath,
    logTail: result.tail,
    ...(plan.profileDir !== undefined ? { profileDir: plan.profileDir } : {}),
    ...(plan.capture !== undefined ? { capture: plan.capture } : {}),
    ...(failure !== undefined ? { error: failure.error } : {}),
    ...(leftovers ? { leftovers } : {}),
  };
}

/**
 * The child's environment: inherited variables (never the gate's tokens or step files, see
 * child-env.ts) and the benchmark's own `env`, profiler variables only on the profiled run
 * (the gate's and the benchmark's own, set here, at spawn time; never inherited ones), and
 * the PERF_GATE_* variables that tell the benchmark which run this is and where its result goes.
 */
function runEnv(
  spec: BenchmarkSpec,
  plan: RunPlan,
  baseEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  // The config's own `env` is the user's word; what is inherited passes the allow-list.
  const inherited = { ...childEnvironment(baseEnv), ...spec.env };
  const env =
    plan.profileDir === undefined
      ? cleanRunEnv(inherited)
      : profiledRunEnv(inherited, plan.profileDir, plan.capture?.mode, spec.env);
  return {
    ...env,
    ...(spec.sweep
      ? { ...paramEnvironment(spec.sweep.params), PERF_GATE_PARAMS: paramsPath(plan) }
      : {}),
    PERF_GATE_OUTPUT: plan.resultPath,
    PERF_GATE_RUN: String(plan.index),
    PERF_GATE_RUNS: String(plan.total),
    PERF_GATE_PROFILE: plan.kind === 'profiled' ? '1' : '0',
    PERF_GATE_BENCHMARK: spec.name,
  };
}

/** A sweep variant's parameters as JSON, beside its results. */
function paramsPath(plan: RunPlan): string {
  return join(dirname(plan.resultPath), 'params.json');
}

/**
 * The config file refuses the profiler variables the gate owns; a spec made another way
 * may still hold them: say so instead of silently overriding them.
 */
function warnAboutProfilerSettings(spec: BenchmarkSpec, log: Logger): void {
  const ignored = Object.keys(spec.env).filter((name) => gateOwnedReason(name) !== undefined);
  if (ignored.length === 0) return;
  log.warning(
    `${spec.name}: env ${ignored.join(', ')} is ignored: the gate sets these profiler variables itself ` +
      '(none on clean runs, its own on the profiled run). Use `profile` to turn profiling on or ' +
      'off and `profile-mode` (auto, model or session) to choose the device profile.',
  );
}

interface Failure {
  /** For the progress line, e.g. "exit code 3". */
  short: string;
  /** For the report: what happened and what to do. */
  error: string;
}

function describeFailure(result: ProcessResult, spec: BenchmarkSpec): Failure | undefined {
  if (result.spawnError !== undefined) {
    return {
      short: 'could not start',
      error: `the command could not be started: ${result.spawnError}. Check working-directory and that bash is installed on the runner.`,
    };
  }
  if (result.timedOut) {
    const limit = formatMinutes(spec.timeoutMinutes);
    return {
      short: `timed out after ${limit}`,
      error:
        `the command did not finish within timeout-minutes (${limit}), so it was stopped together with every process it started. ` +
        'Raise timeout-minutes if the benchmark needs longer; the first run on a runner also compiles the model unless the Neuron compile cache (/var/tmp/neuron-compile-cache) is warm.',
    };
  }
  if (result.exitCode === null) {
    const signal = result.signal ?? 'a signal';
    return {
      short: `killed by ${signal}`,
      error: `the command was killed by ${signal}${result.signal === 'SIGKILL' ? ' (often the kernel out-of-memory killer)' : ''}. See the last lines of output and the runner's system log.`,
    };
  }
  if (result.exitCode !== 0) {
    return {
      short: `exit code ${result.exitCode}`,
      error: `the command exited with code ${result.exitCode}. The last lines of its output usually say why.`,
    };
  }
  return undefined;
}

async function checkResultFile(path: string): Promise<Failure | undefined> {
  const hint =
    'The benchmark must write its result to the path in the environment variable PERF_GATE_OUTPUT (for example `--output-file "$PERF_GATE_OUTPUT"`).';
  let size: number;
  try {
    // Read by the gate, outside the sandbox: never through a link the benchmark made.
    const info = await lstat(path);
    if (info.isSymbolicLink()) {
      return {
        short: 'result is a link',
        error: `the result path ${path} is a symbolic link; the gate reads only a file the benchmark wrote there. ${hint}`,
      };
    }
    if (!info.isFile()) {
      return {
        short: 'result is not a file',
        error: `the result path ${path} is not a file. ${hint}`,
      };
    }
    size = info.size;
  } catch {
    return {
      short: 'no result file',
      error: `the command exited with code 0 but wrote no result file at ${path}. ${hint}`,
    };
  }
  // Small files are read to catch a result that is only whitespace.
  if (size === 0 || (size <= 4_096 && (await readFile(path, 'utf8')).trim() === '')) {
    return {
      short: 'empty result file',
      error: `the command exited with code 0 but the result file ${path} is empty. ${hint}`,
    };
  }
  return undefined;
}

/** 30 min, 0.02 min */
function formatMinutes(minutes: number): string {
  return `${Number(minutes.toFixed(2))} min`;
}
