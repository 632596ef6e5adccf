// How busy the host was while a benchmark ran: /proc/stat's aggregate `cpu` line read at
// the run's start and end, less the CPU time of the gate and everything it started (the
// benchmark's process tree, a server it started for the run, the gate's own watchers).
// What is left is other processes' load; the hypervisor's steal is kept apart. A busy
// host slows every timing of a run by a few percent, which the runs alone cannot tell
// from a slower build (compare/host-load.ts uses the figure). Linux only; elsewhere, or
// when /proc cannot be read, there is no figure and nothing is adjusted.
//
// Why the gate's descendants and its own cutime/cstime, not the child's rusage: Node hands
// out no rusage of a child, and a benchmark's workers are processes of their own. A child
// that exits is reaped by its parent, whose cutime/cstime then hold its time, so the sum
// over the live tree and the gate's own reaped children keeps every tick it used.
// A process that left the tree (a double fork, `setsid`, reparented to init) is the gate's
// still when it carries one of the gate's run markers (leftovers.ts): otherwise a
// benchmark could raise the "other" load itself and have its own slowdown adjusted away.
// Only processes of the gate's own uid are read for markers (any uid's when it is root).
// One that also cleared its environment is not told apart without a sandbox (docs/security.md).

import { readdir, readFile, stat } from 'node:fs/promises';
import type { HostLoad } from '../model.js';
import { environHolds } from './environ-entry.js';
import { issuedMarkerEntries } from './leftovers.js';

/** CPU ticks of the whole host and of the gate's own process tree at one moment. */
export interface HostTicks {
  /** Every CPU's time (guest time is inside user and nice). */
  total: number;
  /** Time not idle, not waiting for I/O and not stolen. */
  busy: number;
  /** Time the hypervisor gave to other guests. */
  steal: number;
  /** The gate's and its live descendants' time, with what they reaped. */
  own: number;
}

/** Fewer ticks between two readings than this (0.2 s of one CPU) say nothing of the load. */
const MIN_TICKS = 20;

/** The aggregate `cpu` line of /proc/stat as ticks; undefined when it is not there. */
export function parseCpuLine(procStat: string): Omit<HostTicks, 'own'> | undefined {
  const line = procStat.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return undefined;
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const fields = [user, nice, system, idle, iowait, irq, softirq, steal];
  if (fields.some((v) => v === undefined || !Number.isFinite(v))) return undefined;
  const busy = user! + nice! + system! + irq + softirq;
  return { total: busy + idle! + iowait + steal, busy, steal };
}

/** A /proc/<pid>/stat line: its parent and its time with its reaped children's, in ticks. */
export function parseProcessStat(text: string): { ppid: number; ticks: number } | undefined {
  // The command name is in parentheses and may hold spaces or parentheses itself.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(rest[1]);
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(rest[i]), 0);
  return Number.isFinite(ppid) && Number.isFinite(ticks) ? { ppid, ticks } : undefined;
}

/**
 * The ticks of `root` and its live descendants, each with what it reaped, and of the
 * processes elsewhere of `uid` (undefined: of any uid) whose environment holds one of
 * `markers` (`NAME=value` entries).
 */
export async function treeTicks(
  root: number,
  proc = '/proc',
  markers: readonly string[] = issuedMarkerEntries(),
  uid: number | undefined = uidOfOwnProcesses(),
): Promise<number | undefined> {
  const names = await readdir(proc).catch(() => []);
  const stats = new Map<number, { ppid: number; ticks: number }>();
  await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        // A process may exit between the listing and the read: it is then not there.
        const text = await readFile(`${proc}/${name}/stat`, 'utf8').catch(() => undefined);
        const stat = text === undefined ? undefined : parseProcessStat(text);
        if (stat) stats.set(Number(name), stat);
      }),
  );
  if (!stats.has(root)) return undefined;
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const tree = new Set<number>();
  const stack = [root];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    tree.add(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  const outside = [...stats.keys()].filter((pid) => !tree.has(pid));
  const marked = await markedProcesses(outside, markers, proc, uid);
  return [...tree, ...marked].reduce((sum, pid) => sum + stats.get(pid)!.ticks, 0);
}

/**
 * The uid whose processes outside the tree may be the gate's: its own. Root's are any
 * uid's: a benchmark run as root may switch to another user (and root reads them all).
 */
export function uidOfOwnProcesses(): number | undefined {
  const uid = process.getuid?.();
  return uid === 0 ? undefined : uid;
}

/**
 * Those of `pids` owned by `uid` (any, when undefined) whose environment holds one of
 * `markers` as a whole entry. Another user's environment is never read: it cannot be the
 * gate's, and reading it would only be refused; its time stays other processes' load.
 */
async function markedProcesses(
  pids: readonly number[],
  markers: readonly string[],
  proc: string,
  uid: number | undefined,
): Promise<number[]> {
  if (markers.length === 0) return [];
  const found = await Promise.all(
    pids.map(async (pid) => {
      if (uid !== undefined && (await ownerOf(pid, proc)) !== uid) return [];
      // Gone since the listing, or not readable (not ours to read): not the gate's.
      const environ = await readFile(`${proc}/${pid}/environ`).catch(() => undefined);
      return environ && markers.some((entry) => environHolds(environ, entry)) ? [pid] : [];
    }),
  );
  return found.flat();
}

/** The uid that owns /proc/<pid> (the process's effective uid); undefined once it is gone. */
async function ownerOf(pid: number, proc: string): Promise<number | undefined> {
  return stat(`${proc}/${pid}`).then(
    (info) => info.uid,
    () => undefined,
  );
}

/** The host's ticks and the gate's own now; undefined where /proc cannot tell them. */
export async function readHostTicks(
  root = process.pid,
  proc = '/proc',
): Promise<HostTicks | undefined> {
  if (process.platform !== 'linux') return undefined;
  const [text, own] = await Promise.all([
    readFile(`${proc}/stat`, 'utf8').catch(() => undefined),
    treeTicks(root, proc),
  ]);
  const cpu = text === undefined ? undefined : parseCpuLine(text);
  return cpu && own !== undefined ? { ...cpu, own } : undefined;
}

/** Other processes' share and the steal's share of the host's CPU time between two readings. */
export function hostLoadBetween(start: HostTicks, end: HostTicks): HostLoad | undefined {
  const total = end.total - start.total;
  if (!(total >= MIN_TICKS)) return undefined;
  const other = end.busy - start.busy - (end.own - start.own);
  return {
    other: round(Math.min(1, Math.max(0, other / total))),
    steal: round(Math.min(1, Math.max(0, (end.steal - start.steal) / total))),
  };
}

/** Starts measuring; `stop` gives the load since, undefined where it cannot be told. */
export async function startHostLoad(): Promise<{ stop(): Promise<HostLoad | undefined> }> {
  const start = await readHostTicks();
  return {
    stop: async () => {
      const end = start && (await readHostTicks());
      return start && end ? hostLoadBetween(start, end) : undefined;
    },
  };
}

function round(share: number): number {
  return Math.round(share * 10_000) / 10_000;
}
