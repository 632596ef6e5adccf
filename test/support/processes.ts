import { readFileSync } from 'node:fs';

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
