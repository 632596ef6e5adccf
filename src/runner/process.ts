// The real ProcessRunner: `bash -c command` in its own process group, output streamed to
// a log file, the caller and a bounded tail; on timeout the whole group is killed, and
// after every run whatever the command left running (leftovers.ts).

import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as delay } from 'node:timers/promises';
import { execa } from 'execa';
import { errorMessage } from '../errors.js';
import { defaultShell, withInheritedFdsClosed } from './child-env.js';
import {
  PROCESS_MARKER_VARIABLE,
  killLeftoversNow,
  newProcessMarker,
  stopLeftovers,
} from './leftovers.js';
import { LineTail } from './tail.js';
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
  };
  return { run: (request) => runProcess(request, settings) };
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
    await mkdir(dirname(request.logPath), { recursive: true });
    log = createWriteStream(request.logPath, { flags: 'a' });
    await once(log, 'open');
  } catch (error) {
    return notStarted(`could not open the log file ${request.logPath}: ${errorMessage(error)}`);
  }

  const tail = new LineTail(request.tailLines);
  const emit = (text: string): void => {
    if (text === '') return;
    tail.push(text);
    request.onOutput(text);
  };

  // detached: the child leads a new process group, so one signal reaches the shell and
  // everything it started. buffer: false: output is only streamed, never collected. The
  // marker finds the processes that leave the group.
  const marker = newProcessMarker();
  const subprocess = execa(settings.shell, ['-c', withInheritedFdsClosed(request.command)], {
    cwd: request.cwd,
    env: { ...request.env, [PROCESS_MARKER_VARIABLE]: marker },
    extendEnv: false,
    stdin: 'ignore',
    detached: true,
    buffer: false,
    reject: false,
  });
  const outputs = [subprocess.stdout, subprocess.stderr].filter(
    (stream): stream is NonNullable<typeof stream> => stream !== null,
  );
  const decoders = streamAll(outputs, log, emit);
  const outputDone = Promise.all(outputs.map((stream) => finished(stream).catch(() => {})));

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<void>((resolve) => {
    subprocess.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    });
    // Without a pid the process never started; otherwise 'exit' still follows.
    subprocess.once('error', () => {
      if (subprocess.pid === undefined) resolve();
    });
  });

  // Whatever happens to us, the benchmark must not outlive the gate.
  const pgid = subprocess.pid;
  const killOnExit = (): void => {
    if (pgid !== undefined) killLeftoversNow(pgid, marker);
  };
  process.once('exit', killOnExit);

  let timedOut = false;
  let termination: Promise<void> = Promise.resolve();
  const timer = setTimeout(
    () => {
      if (pgid === undefined) return;
      timedOut = true;
      termination = terminateGroup(pgid, settings.killGraceMs);
    },
    Math.min(request.timeoutMs, MAX_TIMER_MS),
  );

  try {
    await exited;
    const durationMs = elapsed();
    clearTimeout(timer);
    await termination;
    // A daemon the command started (`server &`, `setsid ...`) would skew the next runs and
    // hold the NeuronCores after the gate is gone: stop it, and say so.
    const leftovers =
      pgid === undefined ? [] : await stopLeftovers(pgid, marker, settings.killGraceMs);

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
    const result = await subprocess;
    for (const decoder of decoders) emit(decoder.end());

    if (exit === undefined) {
      return notStarted(
        `could not start ${settings.shell} in ${request.cwd}: ${result.originalMessage ?? result.shortMessage}`,
      );
    }
    return {
      exitCode: exit.code,
      ...(exit.signal !== null ? { signal: exit.signal } : {}),
      timedOut,
      durationMs,
      tail: tail.lines(),
      ...(leftovers.length > 0 ? { leftovers } : {}),
    };
  } finally {
    clearTimeout(timer);
    process.removeListener('exit', killOnExit);
    await closeLog(log);
  }
}

/**
 * Copies the output streams into the log (raw bytes) and `emit` (decoded text). When the
 * log file cannot keep up, every output pauses until it drains, so memory stays bounded.
 */
function streamAll(
  streams: readonly Readable[],
  log: WriteStream,
  emit: (text: string) => void,
): StringDecoder[] {
  let paused = false;
  let logFailed = false;
  const resume = (): void => {
    paused = false;
    for (const stream of streams) stream.resume();
  };
  // A full disk must not stop the run: keep streaming, say the log is incomplete.
  log.on('error', (error) => {
    if (logFailed) return;
    logFailed = true;
    emit(
      `\n[neuron-perf-gate] writing the log file failed, the rest of the output is not in it: ${errorMessage(error)}\n`,
    );
    resume();
  });
  return streams.map((stream) => {
    // One decoder per stream: a UTF-8 character split between two chunks stays whole.
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      emit(decoder.write(chunk));
      if (logFailed || log.write(chunk) || paused) return;
      paused = true;
      for (const each of streams) each.pause();
      log.once('drain', resume);
    });
    return decoder;
  });
}

/** SIGTERM to the group; SIGKILL to whatever is left after `graceMs`. */
async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await waitForGroupExit(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitForGroupExit(pgid, Math.min(graceMs, 1_000));
}

/** False when no process of the group is left. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until the group is gone. Zombies still count, so where PID 1 does not reap
 * orphans (some containers) this waits the full time; that only delays the SIGKILL.
 */
async function waitForGroupExit(pgid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (!signalGroup(pgid, 0)) return true;
    await delay(50);
  }
  return !signalGroup(pgid, 0);
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

async function closeLog(log: WriteStream): Promise<void> {
  if (log.closed || log.destroyed) return;
  await new Promise<void>((resolve) => log.end(() => resolve()));
}
