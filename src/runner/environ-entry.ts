// Whether a process's environment holds one whole `NAME=value` entry: how the gate tells
// its own processes (a run's marker, its PERF_GATE_OUTPUT) from every other process on the
// host, wherever they went in the process tree (leftovers.ts, host-load.ts, host-rss.ts).

import { readFileSync } from 'node:fs';

/**
 * Whether `environ` (NUL-separated entries, as /proc/<pid>/environ) holds `entry` as one
 * whole entry: not the tail of a longer name, nor the head of a longer value. Every
 * occurrence is tried, so a longer entry that happens to hold it first does not hide it.
 */
export function environHolds(environ: Buffer, entry: string): boolean {
  const needle = Buffer.from(entry);
  for (let at = environ.indexOf(needle); at >= 0; at = environ.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0)) {
      return true;
    }
  }
  return false;
}

/** Whether process `pid`'s environment holds `entry`; false when it cannot be read. */
export function processEnvironHolds(pid: number | string, entry: string, proc = '/proc'): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`${proc}/${pid}/environ`);
  } catch {
    return false; // another user's process, or gone since the listing
  }
  return environHolds(environ, entry);
}
