// How a command the gate ran for its own purpose (a bisect hook, an A/B side's setup)
// failed, in the words its error message uses, and the end of its output.

import type { ProcessResult } from './types.js';

/** "exited with code 2", "did not finish within <timedOut>", ... */
export function howItFailed(result: ProcessResult, timedOut: string): string {
  if (result.spawnError !== undefined) return `could not be started: ${result.spawnError}`;
  if (result.timedOut) return `did not finish within ${timedOut}`;
  if (result.exitCode === null) return `was killed by ${result.signal ?? 'a signal'}`;
  return `exited with code ${result.exitCode}`;
}

/** The last lines of its output, on lines of their own after the message; or nothing. */
export function outputTail(result: ProcessResult): string {
  return result.tail.length > 0 ? `\nLast lines of its output:\n${result.tail.join('\n')}` : '';
}
