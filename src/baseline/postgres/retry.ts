// Which failures are worth another try, and the tries themselves: each attempt is a whole
// transaction (idempotent: a record already stored is not stored again), so a connection
// dropped at any point is retried from the start, after a jittered pause, until the deadline.

import { setTimeout as delay } from 'node:timers/promises';

/** How long a call keeps retrying by default: as long as the data branch's push retries. */
export const DEFAULT_DEADLINE_MS = 120_000;

/**
 * SQLSTATEs that say "this once": a lost serialization race or deadlock, too many
 * connections, a server shutting down, restarting or cancelling (statement_timeout,
 * pg_terminate_backend). Class 08 (connection exceptions) is matched as a class.
 */
const RETRIABLE_STATES = new Set(['40001', '40P01', '53300', '57014', '57P01', '57P02', '57P03']);

/** Node's and the driver's words for a connection that failed or went away. */
const DROPPED =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|Connection terminated|connection error|Query read timeout|timeout exceeded when trying to connect/i;

export function isRetriable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return code.startsWith('08') || RETRIABLE_STATES.has(code);
  }
  if (error.name === 'ConnectTimeoutError') return true;
  return (typeof code === 'string' && DROPPED.test(code)) || DROPPED.test(error.message);
}

export class RetriesExhausted extends Error {
  override readonly name = 'RetriesExhausted';
  constructor(
    readonly last: Error,
    readonly attempts: number,
    readonly elapsedMs: number,
    readonly retriable: boolean,
  ) {
    super(last.message, { cause: last });
  }
}

export interface RetryOptions {
  deadlineMs: number;
  /** For tests: the jitter's source (Math.random). */
  random?: () => number;
}

/**
 * Runs `attempt` (given its number and when it must end) until it succeeds, fails in a way
 * not worth retrying, or the deadline passes; then throws RetriesExhausted.
 */
export async function withRetries<T>(
  attempt: (number: number, endsAt: number) => Promise<T>,
  options: RetryOptions,
): Promise<{ value: T; attempts: number }> {
  const started = performance.now();
  const endsAt = started + options.deadlineMs;
  const random = options.random ?? Math.random;
  for (let number = 1; ; number += 1) {
    try {
      return { value: await attempt(number, endsAt), attempts: number };
    } catch (error) {
      const last = error instanceof Error ? error : new Error(String(error));
      const retriable = isRetriable(last);
      const pause = Math.round(50 + random() * Math.min(2_000, 100 * 2 ** number));
      if (!retriable || performance.now() + pause >= endsAt) {
        throw new RetriesExhausted(last, number, performance.now() - started, retriable);
      }
      await delay(pause);
    }
  }
}
