// Pushing without force to a branch other jobs write too: a push rejected because another
// writer got there first is tried again on the new tip, after a random pause.

import { setTimeout as delay } from 'node:timers/promises';

export const DEFAULT_MAX_ATTEMPTS = 10;

/** Push output that means another writer moved or held the branch: try again. */
const CONTENTION =
  /\[rejected\]|non-fast-forward|fetch first|cannot lock ref|failed to update ref|unable to create .*\.lock|reference already exists|incorrect old value|stale info/i;

export function isContention(pushOutput: string): boolean {
  return CONTENTION.test(pushOutput);
}

/**
 * Push output that means the server failed this once (a 5xx, a dropped connection), not
 * that it refused: worth another try or two. A refusal (403, a protected branch, a hook)
 * is not in it.
 */
const TRANSIENT =
  /\b(50[0-4]|429)\b|RPC failed|remote end hung up unexpectedly|early EOF|Internal Server Error|Service Unavailable|Bad Gateway|connection (reset|timed out)|Operation timed out|unexpected disconnect/i;

/** How many times a transient server failure is tried again, in one store. */
export const MAX_TRANSIENT_RETRIES = 3;

export function isTransientFailure(pushOutput: string): boolean {
  return (
    TRANSIENT.test(pushOutput) && !/\b403\b|permission|denied|protected branch/i.test(pushOutput)
  );
}

export interface RetryPacing {
  /** For tests: the source of the jitter (Math.random) and the pause itself. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Waits before push attempt `attempt + 1`: 50 ms plus up to 0.2 s, 0.4 s, … 3 s of jitter. */
export async function pauseBeforeRetry(attempt: number, pacing: RetryPacing = {}): Promise<void> {
  const random = pacing.random ?? Math.random;
  const ceiling = Math.min(3_000, 100 * 2 ** attempt);
  const ms = Math.round(50 + random() * ceiling);
  await (pacing.sleep ?? ((t: number) => delay(t)))(ms);
}
