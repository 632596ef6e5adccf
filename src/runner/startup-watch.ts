// How long a benchmark run takes to become ready (`startup:`): from its launch to the first
// line of its output that matches `ready-log`, or else to the first complete line of its
// result file, which the gate looks for while the run runs. A sign that only came as the
// run ended (output a buffer held back, a result written at exit: see cameWithExit) marks
// the end of the run, not of its start-up: the run's start-up is then not measured, and the
// reading says why.

import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { StartupSpec } from '../config/types.js';
import { LineMatcher } from './readiness.js';
import { compileLinePattern } from '../text/line-pattern.js';

/** A run's start-up in ms from its launch, or why it has none. */
export type StartupReading = { ms: number } | { note: string };

export interface StartupWatch {
  /** Each chunk of the run's output, as it arrives. */
  onOutput(chunk: string): void;
  /**
   * Once the run has ended (`exitedMs` after its launch, before the rest of its output was
   * read): its start-up, or why it was not measured. Never throws.
   */
  stop(exitedMs: number): Promise<StartupReading>;
}

/** Most read from the result file in one look: a long first line is read over several. */
const READ_BYTES = 1 << 16;

/**
 * Whether a sign came with the run's end: in its last 5% (at least 50 ms). The flush of a
 * buffer at exit arrives a moment before the exit is seen, later still when a wrapper script
 * copies the result after it; a benchmark whose measured part is under 5% of it is rare.
 */
export function cameWithExit(readyMs: number, exitedMs: number): boolean {
  return readyMs > exitedMs - Math.max(50, 0.05 * exitedMs);
}

/**
 * Time between two looks at the result file, growing with the time waited: the start-up is
 * read within about 2% (a minute's wait to 1 s) without a look every few ms for an hour.
 */
export function resultPollInterval(waitedMs: number): number {
  return Math.min(1_000, Math.max(10, waitedMs / 50));
}

export function watchStartup(
  how: StartupSpec,
  resultPath: string,
  clock: { now: () => number; launchedAt: number },
): StartupWatch {
  const since = () => clock.now() - clock.launchedAt;
  return how.readyLog === undefined
    ? watchResultFile(resultPath, since)
    : watchReadyLog(how.readyLog, since);
}

function watchReadyLog(pattern: string, since: () => number): StartupWatch {
  const matcher = new LineMatcher(compileLinePattern(pattern));
  let readyMs: number | undefined;
  void matcher.matched().then(() => (readyMs ??= since()));
  return {
    onOutput: (chunk) => matcher.push(chunk),
    stop: async (exitedMs) => {
      // Let the match's callback run: it is a microtask behind the last chunk.
      await Promise.resolve();
      if (readyMs === undefined) {
        return {
          note: `no line of its output matched ready-log ${JSON.stringify(pattern)}`,
        };
      }
      if (cameWithExit(readyMs, exitedMs)) {
        return {
          note:
            'the ready-log line came only as the run ended: its output was held back in a buffer ' +
            "(Python's stdout into a pipe is: set PYTHONUNBUFFERED: '1' in env)",
        };
      }
      return { ms: readyMs };
    },
  };
}

function watchResultFile(resultPath: string, since: () => number): StartupWatch {
  const file = new FirstLine(resultPath);
  let readyMs: number | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> = Promise.resolve();
  const look = async () => {
    if (await file.hasLine()) readyMs ??= since();
  };
  const schedule = () => {
    if (stopped || readyMs !== undefined) return;
    timer = setTimeout(() => {
      looking = look().then(schedule);
    }, resultPollInterval(since()));
    // Never what keeps the gate alive, should the run's end go unseen.
    timer.unref();
  };
  schedule();
  return {
    onOutput: () => {},
    stop: async (exitedMs) => {
      stopped = true;
      clearTimeout(timer);
      await looking;
      if (readyMs !== undefined && !cameWithExit(readyMs, exitedMs)) return { ms: readyMs };
      const name = basename(resultPath);
      if (readyMs !== undefined || (await file.hasLine())) {
        return {
          note:
            `its result file ${name} got its first line only as the run ended, which marks the end ` +
            'of the run, not of its start-up: name a line of its output in startup: { ready-log: … }',
        };
      }
      return { note: `its result file ${name} got no complete line` };
    },
  };
}

/** Whether a growing file holds a whole first line yet; what was read is not read again. */
class FirstLine {
  private scanned = 0;
  private found = false;
  private readonly buffer = Buffer.alloc(READ_BYTES);

  constructor(private readonly path: string) {}

  async hasLine(): Promise<boolean> {
    if (this.found) return true;
    let handle;
    try {
      // The run folder is the benchmark's to write: never follow a link it put there.
      handle = await open(this.path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    } catch {
      return false; // not written yet
    }
    try {
      const { buffer } = this;
      const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, this.scanned);
      if (buffer.subarray(0, bytesRead).includes(0x0a)) this.found = true;
      else this.scanned += bytesRead;
      return this.found;
    } catch {
      return false;
    } finally {
      await handle.close();
    }
  }
}
