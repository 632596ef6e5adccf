// The real ProcessRunner: `bash -c command` in the sandbox and its own process group,
// output streamed to a log file, the caller and a bounded tail; on timeout everything the
// command started is stopped, and after every run whatever it left running (contained.ts).

import { constants as fsConstants, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage } from '../errors.js';
import { defaultShell } from './child-env.js';
import { startContained } from './contained.js';
import { captureProcess } from './capture.js';
import { NO_SANDBOX, type Sandbox } from './sandbox.js';
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
  /** Where the commands run (sandbox.ts); none by default. */
  sandbox?: Sandbox;
}

export const DEFAULT_KILL_GRACE_MS = 3_000;
export const DEFAULT_DRAIN_MS = 2_000;
/** Append, create, and refuse a symbolic link in the log file's place. */
const LOG_FLAGS =
  fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_APPEND | fsConstants.O_NOFOLLOW;
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
    await mkdir(dirname(request.logPath), { recursive: true });
    // Never through a link: the run folder is the benchmark's to write too.
    const handle = await open(request.logPath, LOG_FLAGS, 0o644);
    log = createWriteStream('', { fd: handle });
  } catch (error) {
    return notStarted(`could not open the log file ${request.logPath}: ${errorMessage(error)}`);
  }

  const tail = new LineTail(request.tailLines);
  const emit = (text: string): void => {
    if (text === '') return;
    tail.push(text);
    request.onOutput(text);
  };

  const contained = startContained({
    argv: [settings.shell, '-c', request.command],
    cwd: request.cwd,
    env: request.env,
    sandbox: settings.sandbox,
    shell: settings.shell,
  });
  const outputs = [contained.stdout, contained.stderr].filter(
    (stream): stream is NonNullable<typeof stream> => stream !== null,
  );
  const decoders = streamAll(outputs, log, emit);
  const outputDone = Promise.all(outputs.map((stream) => finished(stream).catch(() => {})));

  let timedOut = false;
  let termination: Promise<void> = Promise.resolve();
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
    };
  } finally {
    clearTimeout(timer);
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
