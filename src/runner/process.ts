// The real ProcessRunner: `bash -c command` in the sandbox and its own process group,
// output streamed to a log file, the caller and a bounded tail; on timeout everything the
// command started is stopped, and after every run whatever it left running (contained.ts).

import type { WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage } from '../errors.js';
import { defaultShell } from './child-env.js';
import { captureProcess } from './capture.js';
import { startHostLoad } from './host-load.js';
import { startService } from './service.js';
import { startLogged } from './logged-start.js';
import { closeLog, openLog } from './output-log.js';
import { NO_SANDBOX, type Sandbox } from './sandbox.js';
import type { ProcessRequest, ProcessResult, ProcessRunner } from './types.js';

export interface ProcessRunnerOptions {
  /** Time between SIGTERM and SIGKILL to the process group on timeout. */
  killGraceMs?: number;
  /**
   * After the command exits, how long to wait for the rest of its output. A background
   * process it started may keep the pipe open forever; we stop reading then.
   */
  drainMs?: number;
  /** The shell to run `-c command` with. */
  shell?: string;
  /** Where the commands run (sandbox.ts); none by default. */
  sandbox?: Sandbox;
}

export const DEFAULT_KILL_GRACE_MS = 3_000;
export const DEFAULT_DRAIN_MS = 2_000;
/** setTimeout fires at once for longer delays (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

export function createProcessRunner(options: ProcessRunnerOptions = {}): ProcessRunner {
  const settings: Required<ProcessRunnerOptions> = {
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    drainMs: options.drainMs ?? DEFAULT_DRAIN_MS,
    shell: options.shell ?? defaultShell(),
    sandbox: options.sandbox ?? NO_SANDBOX,
  };
  return {
    sandbox: settings.sandbox,
    run: (request) => runProcess(request, settings),
    capture: (request) => captureProcess(request, settings),
    start: (request) => startService(request, settings),
    hiding: (dirs) => createProcessRunner({ ...settings, sandbox: settings.sandbox.hiding(dirs) }),
  };
}

async function runProcess(
  request: ProcessRequest,
  settings: Required<ProcessRunnerOptions>,
): Promise<ProcessResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const notStarted = (spawnError: string): ProcessResult => ({
    exitCode: null,
    timedOut: false,
    durationMs: elapsed(),
    tail: [],
    spawnError,
  });

  const cwdProblem = await checkDirectory(request.cwd);
  if (cwdProblem !== undefined) return notStarted(cwdProblem);

  let log: WriteStream;
  try {
    log = await openLog(request.logPath);
  } catch (error) {
    return notStarted(errorMessage(error));
  }

  const load = await startHostLoad();
  const { contained, tail, emit, outputs, decoders, outputDone } = startLogged(
    { ...request, argv: [settings.shell, '-c', request.command] },
    log,
    settings,
  );

  let timedOut = false;
  let termination: Promise<unknown> = Promise.resolve();
  const timer = setTimeout(
    () => {
      timedOut = true;
      termination = contained.terminate(settings.killGraceMs);
    },
    Math.min(request.timeoutMs, MAX_TIMER_MS),
  );

  try {
    const end = await contained.ended;
    const durationMs = elapsed();
    clearTimeout(timer);
    // Before the leftovers are stopped: their time is the run's.
    const hostLoad = await load.stop();
    await termination;
    // A daemon the command started (`server &`, `setsid ...`) would skew the next runs and
    // hold the NeuronCores after the gate is gone: stop it, and say so.
    const leftovers = await contained.finish(settings.killGraceMs);

    const drainTimer = new AbortController();
    const drained = await Promise.race([
      outputDone.then(() => true),
      delay(settings.drainMs, false, { signal: drainTimer.signal }).catch(() => true),
    ]);
    drainTimer.abort();
    if (!drained) {
      for (const stream of outputs) stream.destroy();
      const note = `\n[neuron-perf-gate] the command exited, but a background process it started still holds its output open; stopped reading after ${settings.drainMs} ms\n`;
      if (!log.destroyed) log.write(note);
      emit(note);
    }
    for (const decoder of decoders) emit(decoder.end());

    if ('spawnError' in end) {
      return notStarted(`could not start ${settings.shell} in ${request.cwd}: ${end.spawnError}`);
    }
    return {
      exitCode: end.code,
      ...(end.signal !== null ? { signal: end.signal } : {}),
      timedOut,
      durationMs,
      tail: tail.lines(),
      ...(leftovers.length > 0 ? { leftovers } : {}),
      ...(hostLoad ? { hostLoad } : {}),
    };
  } finally {
    clearTimeout(timer);
    await closeLog(log);
  }
}

async function checkDirectory(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? undefined : `the working directory ${path} is not a directory`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `the working directory ${path} does not exist`;
    return `the working directory ${path} cannot be used: ${errorMessage(error)}`;
  }
}
