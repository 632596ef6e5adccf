// What a benchmark leaves running after its shell exits: the rest of its process group
// (`server &`), and processes that left the group (`setsid`, a double fork) but still carry
// the run's marker in their environment. Found through /proc (Linux); elsewhere only the
// group is signalled, without names.

import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Set in the environment of every process the gate starts, to a value unique to the run:
 * a process that left the run's process group still carries it, unless it cleared its
 * environment (only a cgroup catches that one, see docs/security.md).
 */
export const PROCESS_MARKER_VARIABLE = 'PERF_GATE_PROCESS_MARKER';

export function newProcessMarker(): string {
  return randomBytes(12).toString('hex');
}

export interface LeftoverProcess {
  pid: number;
  /** Its command line, shortened. */
  command: string;
  /** Not in the run's process group any more: it escaped with setsid or the like. */
  escaped: boolean;
}

/** Longest command line a report shows for one process. */
const COMMAND_CHARS = 120;

/**
 * The live processes (zombies have exited already) of process group `pgid`, and those
 * whose environment holds `marker`, other than this process. Processes of other users
 * whose environment cannot be read are not seen.
 */
export function findLeftovers(pgid: number, marker: string): LeftoverProcess[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return []; // no /proc: not Linux
  }
  const needle = Buffer.from(`${PROCESS_MARKER_VARIABLE}=${marker}\0`);
  const found: LeftoverProcess[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const stat = processStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    let escaped: boolean;
    if (stat.pgrp === pgid) escaped = false;
    else if (environmentHolds(pid, needle)) escaped = true;
    else continue;
    found.push({ pid, command: commandLine(pid) ?? stat.name, escaped });
  }
  return found;
}

/**
 * Stops what the run left: SIGTERM to the group and to each escaped process, SIGKILL to
 * whatever is still there after `graceMs`. Returns what was found running at first.
 */
export async function stopLeftovers(
  pgid: number,
  marker: string,
  graceMs: number,
): Promise<LeftoverProcess[]> {
  const found = findLeftovers(pgid, marker);
  if (found.length === 0) return [];
  signalAll(pgid, found, 'SIGTERM');
  const deadline = performance.now() + graceMs;
  let left = found;
  while (left.length > 0 && performance.now() < deadline) {
    await delay(50);
    left = findLeftovers(pgid, marker);
  }
  if (left.length > 0) {
    signalAll(pgid, left, 'SIGKILL');
    const killDeadline = performance.now() + 1_000;
    while (findLeftovers(pgid, marker).length > 0 && performance.now() < killDeadline) {
      await delay(50);
    }
  }
  return found;
}

/** For the exit handler (synchronous): SIGKILL to the group and to every escaped process. */
export function killLeftoversNow(pgid: number, marker: string): void {
  signalAll(pgid, findLeftovers(pgid, marker), 'SIGKILL');
}

/** One sentence for the report and log: which processes were stopped. */
export function describeLeftovers(leftovers: readonly LeftoverProcess[]): string {
  const names = leftovers.map(
    (p) => `${p.pid} \`${p.command}\`${p.escaped ? ' (had left its process group: setsid)' : ''}`,
  );
  return `${leftovers.length} process${leftovers.length === 1 ? '' : 'es'}: ${names.join(', ')}`;
}

function signalAll(
  pgid: number,
  processes: readonly LeftoverProcess[],
  signal: NodeJS.Signals,
): void {
  const targets = [-pgid, ...processes.filter((p) => p.escaped).map((p) => p.pid)];
  for (const target of targets) {
    try {
      process.kill(target, signal);
    } catch {
      // gone already
    }
  }
}

interface ProcessStat {
  name: string;
  state: string;
  pgrp: number;
}

/** `pid (name) state ppid pgrp ...`; the name may hold spaces and parentheses. */
function processStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return {
    name: text.slice(text.indexOf('(') + 1, close),
    state: fields[0] ?? '',
    pgrp: Number(fields[2]),
  };
}

function environmentHolds(pid: number, needle: Buffer): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    const at = environ.indexOf(needle);
    return at === 0 || (at > 0 && environ[at - 1] === 0);
  } catch {
    return false; // another user's process, or gone
  }
}

function commandLine(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    if (text === '') return undefined;
    return text.length > COMMAND_CHARS ? `${text.slice(0, COMMAND_CHARS - 1)}…` : text;
  } catch {
    return undefined;
  }
}
