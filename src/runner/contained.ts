// One process the gate starts from pull-request-controlled settings, inside the sandbox,
// with what it leaves behind found, named and stopped.
//
// A small bash wrapper runs the command and reports on a pipe of its own (fd 3) when it
// starts (its PID and PID namespace) and when the command ends (its status). The wrapper
// then stays, so that the sandbox, whose processes all die with it, lives on until the
// gate has found and named what the command left running; then the gate stops those
// (SIGTERM, grace, SIGKILL) and finally the wrapper and the sandbox.

import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { execa } from 'execa';
import {
  PROCESS_MARKER_VARIABLE,
  killLeftoversNow,
  holdNamespace,
  killUntilGone,
  namespaceInitOf,
  namespaceOf,
  newProcessMarker,
  releaseNamespace,
  stopLeftovers,
  type LeftoverProcess,
  type RunIdentity,
} from './leftovers.js';
import type { Sandbox } from './sandbox.js';

/**
 * Runs "$@" with only stdin, stdout and stderr open, and says on fd 3 when it starts and
 * how it ended. The one place inherited descriptors are closed: Node opens its own files
 * close-on-exec, but one the gate inherited (a runner that leaves the step's GITHUB_OUTPUT
 * open) would reach the command, which could write through it. Without /proc (macOS)
 * nothing is closed. `trap :` (a handler, reset on exec, unlike an ignored signal) keeps the
 * wrapper alive through a SIGTERM to the group (or a server's other stop signal), so it
 * reports the command's end.
 */
const WRAPPER = [
  'trap : TERM INT HUP QUIT USR1 USR2',
  'if [ -d /proc/self/fd ]; then for __fd in /proc/self/fd/*; do __fd=${__fd##*/};',
  '  case $__fd in 0|1|2|3|*[!0-9]*) ;; *) eval "exec $__fd>&-" 2>/dev/null;; esac; done; fi',
  // The system's readlink and sleep, whatever PATH the config set.
  'printf "start %s %s\\n" "$$" "$(PATH=/usr/bin:/bin readlink /proc/self/ns/pid 2>/dev/null)" >&3',
  // bash's own "Killed" / "Terminated" notes about the command go to /dev/null (fd 4 is
  // the real stderr, the command's).
  'exec 4>&2 2>/dev/null',
  'if ! command -v -- "$1" >/dev/null; then printf "missing\\n" >&3; exit 127; fi',
  '"$@" 2>&4 3>&- 4>&-',
  'printf "exit %s\\n" "$?" >&3',
  'PATH=/usr/bin:/bin exec 3>&- sleep 2147483647',
].join('\n');

export type CommandEnd =
  { code: number | null; signal: NodeJS.Signals | null } | { spawnError: string };

export interface ContainedProcess {
  stdout: Readable | null;
  stderr: Readable | null;
  /** The command's end (not the sandbox's). */
  ended: Promise<CommandEnd>;
  /**
   * `signal` (SIGTERM unless given) to the command and everything it started; SIGKILL
   * after `graceMs`. Returns the processes it found running (stopLeftovers), none when
   * there is no /proc to find them in.
   */
  terminate(graceMs: number, signal?: NodeJS.Signals): Promise<LeftoverProcess[]>;
  /** After the end: stops what the command left (returned, named), then the sandbox. */
  finish(graceMs: number): Promise<LeftoverProcess[]>;
}

export interface ContainedOptions {
  argv: readonly string[];
  cwd: string;
  /** The complete environment (not merged with ours). */
  env: Record<string, string>;
  sandbox: Sandbox;
  shell: string;
}

export function startContained(options: ContainedOptions): ContainedProcess {
  const marker = newProcessMarker();
  const env = { ...options.sandbox.environment(options.env), [PROCESS_MARKER_VARIABLE]: marker };
  const [file, args] = options.sandbox.wrap(
    [options.shell, '-c', WRAPPER, 'neuron-perf-gate', ...options.argv],
    options.cwd,
  );
  // detached: the wrapper leads a new process group; buffer: false: output is streamed.
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env,
    extendEnv: false,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
    buffer: false,
    reject: false,
  });
  const pgid = subprocess.pid;
  const run: RunIdentity = {
    pgid: pgid ?? -1,
    marker,
    own: { pids: pgid === undefined ? [] : [pgid], namespacePids: [] },
  };
  const exitedProcess = new Promise<void>((resolve) => {
    subprocess.once('exit', () => resolve());
    subprocess.once('error', () => {
      if (subprocess.pid === undefined) resolve();
    });
  });
  const escapedAtTimeout: LeftoverProcess[] = [];
  const channel = subprocess.stdio[3] as Readable | undefined;
  const ended = commandEnd(subprocess, channel, run, options.argv[0] ?? '');

  // Whatever happens to us, the command must not outlive the gate.
  const killOnExit = (): void => {
    if (pgid !== undefined) killLeftoversNow(run);
  };
  process.once('exit', killOnExit);

  return {
    stdout: subprocess.stdout,
    stderr: subprocess.stderr,
    ended,
    terminate: async (graceMs, signal = 'SIGTERM') => {
      if (pgid === undefined) return [];
      // Without /proc (macOS) the group is all there is to signal.
      if (!existsSync('/proc/self')) {
        await terminateGroup(pgid, graceMs, signal);
        return [];
      }
      // The command's own group dies with it; what had left the group is a leftover.
      const stopped = await stopLeftovers(run, graceMs, signal);
      escapedAtTimeout.push(...stopped.filter((p) => p.escaped));
      return stopped;
    },
    finish: async (graceMs) => {
      try {
        if (pgid === undefined) return [];
        const found = await stopLeftovers(run, graceMs);
        const leftovers = [
          ...escapedAtTimeout.filter((p) => !found.some((q) => q.pid === p.pid)),
          ...found,
        ];
        // The wrapper and the sandbox; in its own PID namespace, all that is left there dies
        // with them.
        signalGroup(pgid, 'SIGKILL');
        await Promise.race([exitedProcess, delay(2_000)]);
        const survivors = new Set((await killUntilGone(run)).map((p) => p.pid));
        return leftovers.map((p) =>
          p.survived && !survivors.has(p.pid) ? { ...p, survived: false } : p,
        );
      } finally {
        releaseNamespace(run);
        process.removeListener('exit', killOnExit);
      }
    },
  };
}

/** From the wrapper's report on fd 3, or from the process itself when it died first. */
function commandEnd(
  subprocess: ChildProcess,
  channel: Readable | undefined,
  run: RunIdentity,
  argv0: string,
): Promise<CommandEnd> {
  return new Promise<CommandEnd>((resolve) => {
    let text = '';
    let seenStart = false;
    channel?.setEncoding('utf8');
    channel?.on('data', (chunk: string) => {
      text += chunk;
      let newline: number;
      while ((newline = text.indexOf('\n')) >= 0) {
        const line = text.slice(0, newline);
        text = text.slice(newline + 1);
        const [word, first, second] = line.split(' ');
        // Only the first: the wrapper writes it before the command runs, and the command
        // could reach the pipe (pidfd_getfd) to write a later one naming another namespace.
        if (word === 'start' && !seenStart) started(run, Number(first), second);
        if (word === 'start') seenStart = true;
        if (word === 'exit') resolve(statusOf(Number(first)));
        if (word === 'missing')
          resolve({ spawnError: `${argv0} was not found or is not executable` });
      }
    });
    channel?.on('error', () => {});
    // The sandbox's own status says nothing of the command's when the gate killed its
    // namespace before the wrapper could report: the command died of that SIGKILL.
    subprocess.once('exit', (code, signal) =>
      resolve(run.namespaceKilled ? { code: null, signal: 'SIGKILL' } : { code, signal }),
    );
    subprocess.once('error', (error) => {
      if (subprocess.pid === undefined) resolve({ spawnError: error.message });
    });
  });
}

/** The wrapper's PID and namespace: in a sandbox of its own, it and PID 1 are the gate's. */
function started(run: RunIdentity, wrapperPid: number, namespace: string | undefined): void {
  if (!namespace || namespace === namespaceOf('self')) return;
  // Matched by its inode only while held; gone already, there is nothing in it to match.
  const held = holdNamespace(namespace);
  if (held === undefined) return;
  run.namespace = namespace;
  run.namespaceFd = held;
  const init = namespaceInitOf(namespace);
  if (init !== undefined) run.namespaceInit = init;
  run.own = { pids: run.own.pids, namespacePids: [1, wrapperPid] };
}

/**
 * bash's `$?`: 128 + N when a signal N killed the command. (A command that itself exits
 * with such a code reads as killed: bash cannot tell the two apart.)
 */
function statusOf(status: number): CommandEnd {
  if (status > 128 && status < 128 + 65) {
    const name = Object.entries(constants.signals).find(([, n]) => n === status - 128)?.[0];
    if (name) return { code: null, signal: name as NodeJS.Signals };
  }
  return { code: Number.isInteger(status) ? status : null, signal: null };
}

/** `signal` to the group; SIGKILL to whatever is left after `graceMs`. */
async function terminateGroup(
  pgid: number,
  graceMs: number,
  signal: NodeJS.Signals,
): Promise<void> {
  if (!signalGroup(pgid, signal)) return;
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
 * Waits until the group is gone. Zombies still count,
 * so where PID 1 does not reap orphans (some containers) this waits the full time; that
 * only delays the SIGKILL.
 */
async function waitForGroupExit(pgid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (!signalGroup(pgid, 0)) return true;
    await delay(50);
  }
  return !signalGroup(pgid, 0);
}
