// Runs one configured benchmark: its clean runs, then one profiled run, each told through
// its environment where to write its result.

import { randomBytes } from 'node:crypto';
import { paramEnvironment } from '../config/sweep.js';
import { formatDuration } from '../text/duration.js';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { writeFileAtomic } from '../fs/atomic.js';
import { refuseLinksBelow } from '../fs/no-links.js';
import { dirname, join } from 'node:path';
import type { BenchmarkSpec, ServerSpec } from '../config/types.js';
import type { Logger } from '../log.js';
import type { ObservedMemory, ProfileCapture, RunKind, RunOutcome, ServerView } from '../model.js';
import { childEnvironment } from './child-env.js';
import { describeLeftovers } from './leftovers.js';
import { gateOwnedReason } from '../config/profiler-variables.js';
import { captureWarning, chooseCapture, describeCapture } from './profile-capture.js';
import { cleanRunEnv, profiledRunEnv } from './profiler-env.js';
import { checkResultFile, describeFailure, withServerState } from './run-failure.js';
import type { ServerFailure } from './server.js';
import type { ProcessMarker } from './server-marker.js';
import { ServerSession, type ServedRun } from './server-session.js';
import { slugify } from './slug.js';
import { watchStartup } from './startup-watch.js';
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
  /**
   * The server the runs talk to, shared with other runs (every variant of a sweep); without
   * it, a benchmark with a server gets one of its own for each run.
   */
  server?: ServerSession;
  /** Watches each clean run while it runs (`monitor:`; src/observe/). */
  observe?: RunObserver;
  /** Scrapes the server's /metrics around each clean run against it (observe/server-view.ts). */
  watchServer?: ServerWatcher;
}

/** Starts scraping a server's /metrics before a run; `stop` (never throws) after it. */
export type ServerWatcher = (server: ServerSpec) => Promise<{ stop(): Promise<ServerView> }>;

/** A clean run about to start, as an observer sees it. */
export interface WatchedRun {
  index: number;
  resultPath: string;
  /** The run's complete environment. */
  env: Record<string, string>;
  /** Set when it runs against a server the gate started: how the server's processes are found. */
  server?: ProcessMarker;
}

/** Starts watching a run before it starts; `stop` (never throws) once it has ended. */
export interface RunObserver {
  watch(run: WatchedRun): Promise<{ stop(): Promise<ObservedMemory> }>;
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

/**
 * The names the gate gives a run's files: `run-3.clean.json`, `run-4.profiled.log`, and the
 * log of a server started for one run, `run-1.clean.server.log`, and the cold start's
 * `run-cold.clean.log`.
 */
const RUN_FILE =
  /^run-(\d+|cold)\.(clean|profiled)(\.server|\.neuron-monitor)?\.(json|jsonl|conf|log)$/;

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

/**
 * One more clean start of the benchmark, before or after its measured runs and apart from
 * them (`startup: { cold: true }`): the caller's `env` laid over the benchmark's (an empty
 * compile cache), its files `run-cold.clean.*`, its start-up timed, nothing watching it.
 */
export async function runColdStart(
  spec: BenchmarkSpec,
  options: Omit<RunBenchmarkOptions, 'observe' | 'server' | 'profile'> & {
    env: Record<string, string>;
  },
): Promise<RunOutcome> {
  const { runsDir } = benchmarkPaths(options.outDir, spec.name);
  const plan: RunPlan = {
    index: 0,
    total: spec.runs,
    kind: 'clean',
    label: `${spec.name}: cold start (an empty Neuron compile cache)`,
    resultPath: join(runsDir, 'run-cold.clean.json'),
    logPath: join(runsDir, 'run-cold.clean.log'),
  };
  const cold = { ...spec, env: { ...spec.env, ...options.env } };
  return runOnce(
    cold,
    plan,
    { ...options, profile: false },
    options.now ?? (() => performance.now()),
  );
}

async function runOnce(
  spec: BenchmarkSpec,
  plan: RunPlan,
  options: RunBenchmarkOptions,
  now: () => number,
): Promise<RunOutcome> {
  await prepareRunFiles(spec, plan, options.outDir);
  const served = serverOfRun(spec, plan, options);
  const ready = served ? await served.session.before(served.run) : undefined;
  try {
    if (ready && !ready.ok) return serverFailedOutcome(plan, ready.failure);
    const outcome = await spawnRun(spec, plan, options, now, served?.session);
    return ready?.startupMs === undefined
      ? outcome
      : { ...outcome, serverStartupMs: Math.round(ready.startupMs) };
  } finally {
    await served?.done();
  }
}

/**
 * The run folder is the benchmark's to write too: written here only without a link on the
 * way (a link would carry the gate's writes outside the sandbox), the out-dir itself
 * included. Nothing from an earlier gate run in the same out dir may pass for this run's.
 */
async function prepareRunFiles(spec: BenchmarkSpec, plan: RunPlan, outDir: string) {
  await refuseLinksBelow(dirname(outDir), dirname(plan.resultPath), 'the run folder');
  await mkdir(dirname(plan.resultPath), { recursive: true });
  await rm(plan.resultPath, { force: true });
  await rm(plan.logPath, { force: true });
  await rm(serverLogOfRun(plan.logPath), { force: true });
  if (spec.sweep) {
    await writeFileAtomic(paramsPath(plan), `${JSON.stringify(spec.sweep.params, null, 2)}\n`);
  }
  if (plan.profileDir !== undefined) {
    await refuseLinksBelow(dirname(outDir), plan.profileDir, 'the profile folder');
    await rm(plan.profileDir, { recursive: true, force: true });
    await mkdir(plan.profileDir, { recursive: true });
  }
}

/**
 * The server this run talks to: the caller's, shared by its runs; else, for a benchmark
 * with a server, one of the run's own (started before it, stopped after it).
 */
function serverOfRun(spec: BenchmarkSpec, plan: RunPlan, options: RunBenchmarkOptions) {
  const run: ServedRun = {
    index: plan.index,
    kind: plan.kind,
    ...(plan.profileDir !== undefined ? { profileDir: plan.profileDir } : {}),
    ...(plan.capture !== undefined ? { capture: plan.capture } : {}),
  };
  const shared = options.server;
  if (shared) return { session: shared, run, done: () => shared.after(run) };
  if (!spec.server) return undefined;
  const own = new ServerSession(spec as BenchmarkSpec & { server: ServerSpec }, {
    runner: options.runner,
    log: options.log,
    baseEnv: options.baseEnv,
    label: spec.name,
    logPathOf: () => serverLogOfRun(plan.logPath),
    perRun: true,
  });
  return { session: own, run, done: () => own.close() };
}

/** `run-3.clean.log` → `run-3.clean.server.log`: the log of a server started for one run. */
function serverLogOfRun(logPath: string): string {
  return logPath.replace(/\.log$/, '.server.log');
}

/** A run that never ran: its server could not be started or had failed before. */
function serverFailedOutcome(plan: RunPlan, failure: ServerFailure): RunOutcome {
  return {
    index: plan.index,
    kind: plan.kind,
    ok: false,
    exitCode: null,
    timedOut: false,
    durationMs: 0,
    resultPath: plan.resultPath,
    logPath: failure.logPath,
    logTail: failure.tail,
    error: failure.error,
    serverFailed: true,
  };
}

async function spawnRun(
  spec: BenchmarkSpec,
  plan: RunPlan,
  options: RunBenchmarkOptions,
  now: () => number,
  server: ServerSession | undefined,
): Promise<RunOutcome> {
  const { log } = options;
  const env = runEnv(spec, plan, options.baseEnv);
  // Only clean runs are watched: the profiler's buffers take device memory of their own.
  const marker = server?.runningMarker();
  const watching =
    plan.kind === 'clean'
      ? await options.observe?.watch({
          index: plan.index,
          resultPath: plan.resultPath,
          env,
          ...(marker ? { server: marker } : {}),
        })
      : undefined;
  // The server's own /metrics around a clean run (observe/server-view.ts).
  const serverView =
    server && spec.server && plan.kind === 'clean'
      ? await options.watchServer?.(spec.server)
      : undefined;
  log.startGroup(plan.label);
  const started = now();
  // Start-up is timed on clean runs only: the profiler slows a start down. A server's
  // starts are timed by its session (server_startup), not its client's.
  const startup =
    spec.startup && !spec.server && plan.kind === 'clean'
      ? watchStartup(spec.startup, plan.resultPath, { now, launchedAt: started })
      : undefined;
  let result: ProcessResult;
  let memory: ObservedMemory | undefined;
  let ended: number | undefined;
  try {
    result = await options.runner.run({
      command: spec.command,
      cwd: spec.workingDirectory,
      env,
      timeoutMs: timeoutMsOf(spec),
      logPath: plan.logPath,
      onOutput: (chunk) => {
        startup?.onOutput(chunk);
        log.output(chunk);
      },
      tailLines: LOG_TAIL_LINES,
    });
    ended = now();
  } finally {
    log.endGroup();
    memory = await watching?.stop();
  }
  const view = await serverView?.stop();
  const durationMs = Math.round(ended - started);
  const ready = await startup?.stop(result.durationMs);

  const failure = withServerState(
    describeFailure(result, spec) ?? (await checkResultFile(plan.resultPath)),
    server?.duringRun(),
  );
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
    ...(memory ? { memory } : {}),
    ...(view ? { serverView: view } : {}),
    ...(ready ? { startup: 'ms' in ready ? { ms: Math.round(ready.ms) } : ready } : {}),
    ...(result.hostLoad ? { hostLoad: result.hostLoad } : {}),
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
    // neuron-monitor names a runtime by this tag where it reports pid 0 (run-runtimes.ts).
    NEURON_PROCESS_TAG: env.NEURON_PROCESS_TAG ?? runTag(spec, plan),
  };
}

/** This gate's part of its runs' Neuron process tags: no other gate on the host has it. */
const GATE_TAG = randomBytes(4).toString('hex');

/** A Neuron process tag no other run on the host has: this gate's, benchmark's and run's. */
function runTag(spec: BenchmarkSpec, plan: RunPlan): string {
  return `perf-gate-${GATE_TAG}-${slugify(spec.name)}-${plan.kind}-${plan.index}`;
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
