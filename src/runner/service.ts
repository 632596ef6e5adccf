// A long-lived process the gate starts from pull-request-controlled settings (a benchmark's
// server): contained like a benchmark run (sandbox, marker, its whole tree found through
// /proc), its output streamed to a log file, and stopped only when the gate says so, with
// the signal the config chose, then SIGKILL for whatever outlives the grace period.

import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage } from '../errors.js';
import type { CommandEnd } from './contained.js';
import type { LeftoverProcess } from './leftovers.js';
import { startLogged } from './logged-start.js';
import { closeLog, openLog } from './output-log.js';
import type { Sandbox } from './sandbox.js';

export interface ServiceRequest {
  /** A shell command (run with `bash -c`), or the argv of a program run as it is. */
  command: string | readonly string[];
  cwd: string;
  /** The complete environment (not merged with ours). */
  env: Record<string, string>;
  /** Every byte of stdout and stderr is also written here. */
  logPath: string;
  /** Each chunk of combined stdout/stderr as it arrives. */
  onOutput: (chunk: string) => void;
  /** How many trailing lines of output to keep for messages. */
  tailLines: number;
  /** The most of its output the log file keeps; SERVER_LOG_CAP_BYTES unless set. */
  logCapBytes?: number;
}

/**
 * A server's log file keeps its first 100 MiB of output: a server that prints 400 MB
 * before it is ready would otherwise have all of it kept in the out-dir and its artifact.
 */
export const SERVER_LOG_CAP_BYTES = 100 * 1024 * 1024;

export interface ServiceStop {
  /** How the command ended. */
  end: CommandEnd;
  /** The processes of its tree that were running when it was told to stop. */
  stopped: LeftoverProcess[];
  /** Milliseconds from the stop signal until nothing of it was left. */
  durationMs: number;
}

export interface ServiceProcess {
  /** The command's end, whenever it comes: by itself or stopped. */
  readonly ended: Promise<CommandEnd>;
  /** The last lines of its output so far. */
  tail(): string[];
  /**
   * `signal` to it and every process it started, SIGKILL to what is left after `graceMs`,
   * then its sandbox goes; the log is complete when this resolves. Safe to call twice.
   */
  stop(signal: NodeJS.Signals, graceMs: number): Promise<ServiceStop>;
}

/** After the process ended, how long to wait for the rest of its output. */
const DRAIN_MS = 2_000;

export async function startService(
  request: ServiceRequest,
  settings: { shell: string; sandbox: Sandbox },
): Promise<ServiceProcess> {
  const log = await openLog(request.logPath);
  const argv =
    typeof request.command === 'string' ? [settings.shell, '-c', request.command] : request.command;
  const { contained, tail, emit, outputs, decoders, outputDone } = startLogged(
    { ...request, argv, logCapBytes: request.logCapBytes ?? SERVER_LOG_CAP_BYTES },
    log,
    settings,
  );

  let stopping: Promise<ServiceStop> | undefined;
  const stop = async (signal: NodeJS.Signals, graceMs: number): Promise<ServiceStop> => {
    const started = performance.now();
    const stopped = await contained.terminate(graceMs, signal);
    const end = await contained.ended;
    await contained.finish(graceMs);
    const durationMs = Math.round(performance.now() - started);
    // A process that kept the pipe open is gone now; its last words still go to the log.
    await Promise.race([outputDone, delay(DRAIN_MS)]);
    for (const stream of outputs) stream.destroy();
    for (const decoder of decoders) emit(decoder.end());
    await closeLog(log).catch((error: unknown) => {
      emit(`\n[neuron-perf-gate] closing the log failed: ${errorMessage(error)}\n`);
    });
    return { end, stopped, durationMs };
  };
  return {
    ended: contained.ended,
    tail: () => tail.lines(),
    stop: (signal, graceMs) => (stopping ??= stop(signal, graceMs)),
  };
}
