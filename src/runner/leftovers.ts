// What a benchmark leaves running after its command exits: the rest of its process group
// (`server &`), processes that left the group (`setsid`, a double fork) but still carry the
// run's marker in their environment, and, in a sandbox, every other process of the run's
// PID namespace (even `setsid env -i`). Found through /proc (Linux); elsewhere only the
// group is signalled, without names.

import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { processEnvironHolds } from './environ-entry.js';

/**
 * Set in the environment of every process the gate starts, to a value unique to the run:
 * a process that left the run's process group still carries it, unless it cleared its
 * environment (only a cgroup catches that one, see docs/security.md).
 */
export const PROCESS_MARKER_VARIABLE = 'PERF_GATE_PROCESS_MARKER';

/** Every marker this gate process has handed out (runner/host-load.ts counts their time). */
const issuedMarkers = new Set<string>();

export function newProcessMarker(): string {
  const marker = randomBytes(12).toString('hex');
  issuedMarkers.add(marker);
  return marker;
}

/** `PERF_GATE_PROCESS_MARKER=<marker>` for each marker handed out so far. */
export function issuedMarkerEntries(): string[] {
  return [...issuedMarkers].map((marker) => `${PROCESS_MARKER_VARIABLE}=${marker}`);
}

export interface LeftoverProcess {
  pid: number;
  /** Its command line, shortened. */
  command: string;
  /** Not in the run's process group any more: it escaped with setsid or the like. */
  escaped: boolean;
  /** Still running when the grace period after the stop signal ended: SIGKILL stopped it. */
  killed?: boolean;
  /** Still running after the last SIGKILL: not stopped (another user's, or unkillable). */
  survived?: boolean;
}

/** How the processes of one run are told from all others. */
export interface RunIdentity {
  /** The process group the run's first process leads. */
  pgid: number;
  /** PERF_GATE_PROCESS_MARKER's value in the run's environment. */
  marker: string;
  /**
   * The run's own PID namespace (`pid:[inode]`) when it is sandboxed, set only while
   * `namespaceFd` holds it open: a namespace's inode number is given to the next one made
   * as soon as it is freed, and matching by a freed one would kill another run's processes
   * (a second gate on the host, a second runner).
   */
  namespace?: string;
  namespaceFd?: number;
  /**
   * The PID (as the gate sees it) of that namespace's init, its PID 1: killing it kills
   * every process of the namespace at once, and no fork into it succeeds after.
   */
  namespaceInit?: number;
  /** Set once the gate killed that init: the command died with it, by SIGKILL. */
  namespaceKilled?: boolean;
  /** The gate's own processes of the run (the sandbox, the wrapper), never leftovers. */
  own: { pids: readonly number[]; namespacePids: readonly number[] };
}

/** Longest command line a report shows for one process. */
const COMMAND_CHARS = 120;
/** After SIGKILL, how long the same processes may stay before they count as unkillable. */
const UNCHANGED_MS = 2_000;
/** The bound of the SIGKILL rounds whatever they find (a fork chain faster than a scan). */
const KILL_ROUNDS_LIMIT_MS = 60_000;

/**
 * What rounds of scans remember: the PIDs found not to be the run's. One still listed is
 * the same process (the kernel hands a PID out again only after all others), so the next
 * round skips it, and a round is only as long as what is new.
 */
export interface ScanMemory {
  strangers: Set<number>;
}

/**
 * The live processes (zombies have exited already) of the run: its process group, those
 * in its PID namespace, and those whose environment holds its marker; not this process
 * nor the run's own. Processes of other users whose environment cannot be read are not
 * seen. With `memory`, the PIDs it holds are skipped, and those found not the run's added.
 */
export function findLeftovers(run: RunIdentity, memory?: ScanMemory): LeftoverProcess[] {
  const pids = procPids(); // none without /proc: not Linux
  if (memory) forgetGone(memory, pids);
  const markerEntry = `${PROCESS_MARKER_VARIABLE}=${run.marker}`;
  const found: LeftoverProcess[] = [];
  for (const pid of pids) {
    if (memory?.strangers.has(pid)) continue;
    const match = runProcess(run, pid, markerEntry);
    if (match === undefined) memory?.strangers.add(pid);
    if (match === undefined || match === 'own') continue;
    found.push(match);
  }
  return found;
}

/** The process if it is a live one of the run's, 'own' for the gate's, else undefined. */
function runProcess(
  run: RunIdentity,
  pid: number,
  markerEntry: string,
): LeftoverProcess | 'own' | undefined {
  if (pid === process.pid || run.own.pids.includes(pid)) return 'own';
  const stat = processStat(pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X') return undefined;
  const inNamespace = run.namespace !== undefined && namespaceOf(pid) === run.namespace;
  if (inNamespace && run.own.namespacePids.includes(innermostPid(pid) ?? -1)) return 'own';
  let escaped: boolean;
  if (stat.pgrp === run.pgid) escaped = false;
  else if (inNamespace || processEnvironHolds(pid, markerEntry)) escaped = true;
  else return undefined;
  return { pid, command: commandLine(pid) ?? stat.name, escaped };
}

function forgetGone(memory: ScanMemory, listed: readonly number[]): void {
  const present = new Set(listed);
  for (const pid of memory.strangers) if (!present.has(pid)) memory.strangers.delete(pid);
}

/**
 * Stops what the run left: `signal` (SIGTERM unless given) to the group and to each
 * escaped process; after `graceMs`, SIGKILL to all of the run (killUntilGone). Returns what was found running at first;
 * those still there when the grace period ended are marked `killed`, those still running
 * at the end `survived`.
 */
export async function stopLeftovers(
  run: RunIdentity,
  graceMs: number,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<LeftoverProcess[]> {
  const found = findLeftovers(run);
  if (found.length === 0) return [];
  signalAll(run, found, signal);
  const deadline = performance.now() + graceMs;
  let left = found;
  while (left.length > 0 && performance.now() < deadline) {
    await delay(50);
    left = findLeftovers(run);
  }
  const killed = new Set(left.map((p) => p.pid));
  left = await killUntilGone(run);
  const survivors = new Set(left.map((p) => p.pid));
  const seen = new Set(found.map((p) => p.pid));
  const marked = (p: LeftoverProcess): LeftoverProcess => ({
    ...p,
    ...(killed.has(p.pid) ? { killed: true } : {}),
    ...(survivors.has(p.pid) ? { survived: true } : {}),
  });
  return [
    ...found.map(marked),
    ...left.filter((p) => !seen.has(p.pid)).map((p) => ({ ...p, survived: true })),
  ];
}

/**
 * SIGKILL to all of the run. In its own PID namespace, to the namespace's init: every
 * member dies at once and none can fork after. Without one, rounds of a scan that kills
 * each process on sight, until a scan finds nothing; it gives up only on processes that
 * outlast `UNCHANGED_MS` of SIGKILLs (another user's, unkillable) or after
 * `KILL_ROUNDS_LIMIT_MS`. Returns what is left.
 */
export async function killUntilGone(run: RunIdentity): Promise<LeftoverProcess[]> {
  killNamespace(run);
  const memory: ScanMemory = { strangers: new Set() };
  const started = performance.now();
  let changed = started;
  let left = killRound(run, memory);
  while (left.length > 0) {
    const now = performance.now();
    if (now - changed >= UNCHANGED_MS || now - started >= KILL_ROUNDS_LIMIT_MS) break;
    // Short: after the first round a round looks only at what is new.
    await delay(5);
    const before = pidsOf(left);
    left = killRound(run, memory);
    if (pidsOf(left) !== before) changed = performance.now();
  }
  return left;
}

/**
 * One scan, then SIGKILL to the group and all it found at once (a child killed well ahead
 * of its parent has the parent print a note into the log); once the namespace was killed,
 * only a look: the kernel is killing them all.
 */
function killRound(run: RunIdentity, memory: ScanMemory): LeftoverProcess[] {
  const found = findLeftovers(run, memory);
  if (!run.namespaceKilled) signalAll(run, found, 'SIGKILL');
  return found;
}

const pidsOf = (processes: readonly LeftoverProcess[]): string =>
  processes.map((p) => p.pid).join(' ');

/**
 * SIGKILL to the init of the run's PID namespace, checked first to be it still (PID 1 of
 * that namespace): a PID freed with the namespace may have been given to another process.
 */
function killNamespace(run: RunIdentity): void {
  const init = run.namespaceInit;
  if (init === undefined || run.namespace === undefined) return;
  if (namespaceOf(init) !== run.namespace || innermostPid(init) !== 1) return;
  run.namespaceKilled = true;
  // The sandbox's outer process first: unshare, outliving the init it watches, would print
  // its own complaint into the run's log. bubblewrap's init dies with it in any case.
  for (const pid of run.own.pids) signal(pid, 'SIGKILL');
  signal(init, 'SIGKILL');
}

/** For the exit handler (synchronous): SIGKILL to the namespace, group and every process. */
export function killLeftoversNow(run: RunIdentity): void {
  killNamespace(run);
  signalAll(run, findLeftovers(run), 'SIGKILL');
  for (const pid of run.own.pids) signal(pid, 'SIGKILL');
}

/** One sentence for the report and log: which processes were stopped, and which not. */
export function describeLeftovers(leftovers: readonly LeftoverProcess[]): string {
  const names = leftovers.map(
    (p) =>
      `${p.pid} \`${p.command}\`${p.escaped ? ' (had left its process group: setsid)' : ''}${p.survived ? ' (NOT stopped: still running after SIGKILL)' : ''}`,
  );
  return `${leftovers.length} process${leftovers.length === 1 ? '' : 'es'}: ${names.join(', ')}`;
}

/**
 * Each process, and the whole group unless the run is sandboxed: there the group holds
 * the sandbox itself, which must outlive its processes so that they can be named.
 */
function signalAll(
  run: RunIdentity,
  processes: readonly LeftoverProcess[],
  name: NodeJS.Signals,
): void {
  if (run.namespace === undefined) signal(-run.pgid, name);
  for (const p of processes) signal(p.pid, name);
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch {
    // gone already
  }
}

/**
 * Holds `namespace` open (an open namespace file keeps the namespace and its inode number
 * alive) through one of its processes; the descriptor, or undefined when none is left.
 */
export function holdNamespace(namespace: string): number | undefined {
  const inode = /^pid:\[(\d+)\]$/.exec(namespace)?.[1];
  if (inode === undefined) return undefined;
  for (const pid of procPids()) {
    if (namespaceOf(pid) !== namespace) continue;
    let fd: number;
    try {
      fd = openSync(`/proc/${pid}/ns/pid`, 'r');
    } catch {
      continue; // gone since
    }
    // The process may have exited between the two looks, and its number been reused.
    if (String(fstatSync(fd, { bigint: true }).ino) === inode) return fd;
    closeSync(fd);
  }
  return undefined;
}

/** The PID, as the gate sees it, of the init (PID 1) of `namespace`, if it still runs. */
export function namespaceInitOf(namespace: string): number | undefined {
  return procPids().find((pid) => namespaceOf(pid) === namespace && innermostPid(pid) === 1);
}

/** Lets the run's namespace go: from here on it is not matched. */
export function releaseNamespace(run: RunIdentity): void {
  if (run.namespaceFd === undefined) return;
  closeSync(run.namespaceFd);
  delete run.namespaceFd;
  delete run.namespace;
  delete run.namespaceInit;
}

/** The PIDs listed in /proc now; none where there is no /proc. */
function procPids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((entry) => /^\d+$/.test(entry)).map(Number);
}

/** `pid:[inode]` of the process's PID namespace. */
export function namespaceOf(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** The process's PID in its own (innermost) namespace: the last of `NSpid:`. */
function innermostPid(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const line = /^NSpid:\s*(.*)$/m.exec(status)?.[1];
    const last = line?.trim().split(/\s+/).at(-1);
    return last === undefined ? undefined : Number(last);
  } catch {
    return undefined;
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

function commandLine(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    if (text === '') return undefined;
    return text.length > COMMAND_CHARS ? `${text.slice(0, COMMAND_CHARS - 1)}…` : text;
  } catch {
    return undefined;
  }
}
