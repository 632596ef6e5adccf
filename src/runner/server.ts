// One start of a benchmark's server: launched in the sandbox like the benchmark (it is the
// pull request's code too), watched until it is ready, timed from launch to ready, and
// stopped with its whole process tree. Every way it can fail becomes one sentence that
// says what to do, with the end of its log.

import { setTimeout as delay } from 'node:timers/promises';
import { formatDurationSetting } from '../config/duration.js';
import type { ServerSpec } from '../config/types.js';
import { errorMessage } from '../errors.js';
import { formatDuration } from '../text/duration.js';
import { compileLinePattern } from '../text/line-pattern.js';
import type { CommandEnd } from './contained.js';
import type { LeftoverProcess } from './leftovers.js';
import {
  describeProbe,
  isReady,
  LineMatcher,
  probeInterval,
  probeUrl,
  type ProbeResult,
} from './readiness.js';
import type { ServiceProcess } from './service.js';
import type { ProcessRunner } from './types.js';

/** Lines of the server's log a failure shows. */
export const SERVER_TAIL_LINES = 40;
/** Bound of one readiness GET: a server that accepts and never answers is not ready. */
const PROBE_TIMEOUT_MS = 2_000;

export interface ServerLaunch {
  runner: ProcessRunner;
  cwd: string;
  /** The server's complete environment. */
  env: Record<string, string>;
  logPath: string;
  /** Each chunk of its output while it starts (the caller's log); none after it is ready. */
  onStartupOutput?: (chunk: string) => void;
}

/** Why a server could not be used, with the end of its log. */
export interface ServerFailure {
  /** One or two sentences: what happened and what to do. */
  error: string;
  tail: string[];
  logPath: string;
}

export interface ServerStopped {
  durationMs: number;
  /** How it ended: by the stop signal, or earlier by itself. */
  end: CommandEnd;
  /** Processes of its tree still running when the grace period ended: SIGKILL stopped them. */
  killed: LeftoverProcess[];
  /** Processes that not even SIGKILL stopped (another user's, or unkillable). */
  survived: LeftoverProcess[];
}

export interface RunningServer {
  startupMs: number;
  logPath: string;
  /** Undefined while it runs; how it ended when it did by itself. */
  exited(): CommandEnd | undefined;
  tail(): string[];
  /** Its stop signal, SIGKILL after the grace period; safe to call twice. */
  stop(): Promise<ServerStopped>;
}

export type ServerStart =
  { ok: true; server: RunningServer } | { ok: false; failure: ServerFailure };

/** Starts the server and waits until it is ready; a failed start leaves nothing running. */
export async function startServer(spec: ServerSpec, launch: ServerLaunch): Promise<ServerStart> {
  const fail = (error: string, tail: string[] = []): ServerStart => ({
    ok: false,
    failure: { error, tail, logPath: launch.logPath },
  });
  if ('url' in spec.readiness) {
    const before = await probeUrl(spec.readiness.url, PROBE_TIMEOUT_MS);
    if (before.kind === 'answered') return fail(portTakenMessage(spec.readiness.url, before));
  }
  const matcher =
    'log' in spec.readiness ? new LineMatcher(compileLinePattern(spec.readiness.log)) : undefined;
  let starting = true;
  const launched = performance.now();
  let service: ServiceProcess;
  try {
    service = await launch.runner.start({
      command: spec.command,
      cwd: launch.cwd,
      env: launch.env,
      logPath: launch.logPath,
      tailLines: SERVER_TAIL_LINES,
      onOutput: (chunk) => {
        matcher?.push(chunk);
        if (starting) launch.onStartupOutput?.(chunk);
      },
    });
  } catch (error) {
    return fail(`the server could not be started: ${errorMessage(error)}`);
  }
  let exited: CommandEnd | undefined;
  void service.ended.then((end) => (exited = end));
  const outcome = await waitUntilReady(spec, service, matcher, launched);
  starting = false;
  const stop = async (): Promise<ServerStopped> => {
    const stopped = await service.stop(spec.stopSignal, spec.stopGraceSeconds * 1_000);
    return {
      durationMs: stopped.durationMs,
      end: exited ?? stopped.end,
      killed: stopped.stopped.filter((p) => p.killed && !p.survived),
      survived: stopped.stopped.filter((p) => p.survived),
    };
  };
  if (outcome.ready) {
    return {
      ok: true,
      server: {
        startupMs: outcome.afterMs,
        logPath: launch.logPath,
        exited: () => exited,
        tail: () => service.tail(),
        stop,
      },
    };
  }
  await stop();
  return fail(outcome.error, service.tail());
}

type Waited = { ready: true; afterMs: number } | { ready: false; error: string };

/** Ready, exited, or out of time: whichever comes first. */
async function waitUntilReady(
  spec: ServerSpec,
  service: ServiceProcess,
  matcher: LineMatcher | undefined,
  launched: number,
): Promise<Waited> {
  const elapsed = () => performance.now() - launched;
  const deadlineMs = spec.startTimeoutSeconds * 1_000;
  const watch = new AbortController();
  let lastProbe: ProbeResult | undefined;
  const polling = async (): Promise<Waited> => {
    if (matcher) {
      await matcher.matched();
      return { ready: true, afterMs: elapsed() };
    }
    const url = (spec.readiness as { url: string }).url;
    while (!watch.signal.aborted) {
      lastProbe = await probeUrl(url, PROBE_TIMEOUT_MS);
      if (isReady(lastProbe)) return { ready: true, afterMs: elapsed() };
      await delay(probeInterval(elapsed()), undefined, { signal: watch.signal }).catch(() => {});
    }
    return { ready: false, error: 'stopped waiting' };
  };
  const exited = service.ended.then((end): Waited => ({
    ready: false,
    error: exitedMessage(end, elapsed()),
  }));
  const timedOut = delay(deadlineMs, undefined, { signal: watch.signal }).then(
    (): Waited => ({ ready: false, error: notReadyMessage(spec, lastProbe) }),
    (): Waited => ({ ready: false, error: 'stopped waiting' }),
  );
  try {
    return await Promise.race([polling(), exited, timedOut]);
  } finally {
    watch.abort();
  }
}

function exitedMessage(end: CommandEnd, afterMs: number): string {
  const when = `before it was ready (${formatDuration(afterMs)} after it was launched)`;
  if ('spawnError' in end) {
    return `the server command could not be started: ${end.spawnError}. Check that it is installed on the runner and on the PATH the benchmark's env gives.`;
  }
  if (end.code === null) {
    const oom = end.signal === 'SIGKILL' ? ' (often the kernel out-of-memory killer)' : '';
    return `the server was killed by ${end.signal ?? 'a signal'}${oom} ${when}. The end of its log usually says why.`;
  }
  if (end.code === 127) {
    return `the server exited with code 127 ${when}: the shell did not find its command. Check that it is installed on the runner and on the PATH the benchmark's env gives.`;
  }
  return `the server exited with code ${end.code} ${when}. The end of its log usually says why.`;
}

function notReadyMessage(spec: ServerSpec, last: ProbeResult | undefined): string {
  const limit = formatDurationSetting(spec.startTimeoutSeconds);
  const what =
    'url' in spec.readiness
      ? `GET ${spec.readiness.url} ${last ? `last ${describeProbe(last)}` : 'was never answered'}`
      : `no line of its output matched ready-log /${spec.readiness.log}/`;
  return (
    `the server was not ready within start-timeout (${limit}): ${what}. It was stopped with every process it started. ` +
    'Raise start-timeout if it needs longer: the first start on a runner compiles the model unless the Neuron compile cache (/var/tmp/neuron-compile-cache) is warm.'
  );
}

function portTakenMessage(url: string, answer: ProbeResult): string {
  return (
    `GET ${url} ${describeProbe(answer)} before the server was started: another process already listens on that port ` +
    '(a server an earlier job left running?), and the benchmark would measure it instead. Stop it, or give this server another port.'
  );
}
