import { readdirSync, readFileSync } from 'node:fs';
import { until } from './poll.js';

/**
 * Whether a process still runs. A zombie counts as gone: it has exited, and where PID 1
 * reaps orphans only lazily (this test container) it would otherwise linger.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * PIDs (as this process sees them) of the live processes whose command line holds `text`.
 * A process in a sandbox has a PID of its own there: a tag in its command line is how a
 * test outside finds it.
 */
export function livePidsWith(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (cmdline.includes(text) && isAlive(Number(entry))) found.push(Number(entry));
  }
  return found;
}

/**
 * Waits while `running()` holds, up to a deadline generous enough for a loaded host (the
 * kernel reaps a killed tree in milliseconds on an idle one).
 */
export async function whileRunning(running: () => boolean, ms = 30_000): Promise<void> {
  await until(() => !running(), ms);
}
