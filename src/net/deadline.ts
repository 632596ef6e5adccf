// Bounds on the gate's network work, so that a server that accepts and never answers costs
// a known time instead of the job's timeout-minutes (and the verdict with it): each request
// and git call has a time limit, and the publish phase as a whole a deadline after which no
// network work starts and what is under way is stopped.

import { formatDuration } from '../text/duration.js';

/** One HTTP request (each attempt of it) or one git network call. */
export const DEFAULT_NETWORK_TIMEOUT_MS = 30_000;
/** Everything after the benchmarks: artifact uploads, baseline store, comment, issues. */
export const DEFAULT_PUBLISH_TIMEOUT_MS = 600_000;

/** Seconds; for a slow GitHub Enterprise server (and for tests, which shorten them). */
export const NETWORK_TIMEOUT_VARIABLE = 'PERF_GATE_NETWORK_TIMEOUT';
export const PUBLISH_TIMEOUT_VARIABLE = 'PERF_GATE_PUBLISH_TIMEOUT';

export interface NetworkLimits {
  networkTimeoutMs: number;
  publishTimeoutMs: number;
}

/** The limits, from the environment where set (positive seconds), else the defaults. */
export function networkLimits(env: Readonly<Record<string, string | undefined>>): NetworkLimits {
  return {
    networkTimeoutMs: seconds(env, NETWORK_TIMEOUT_VARIABLE) ?? DEFAULT_NETWORK_TIMEOUT_MS,
    publishTimeoutMs: seconds(env, PUBLISH_TIMEOUT_VARIABLE) ?? DEFAULT_PUBLISH_TIMEOUT_MS,
  };
}

function seconds(env: Readonly<Record<string, string | undefined>>, name: string) {
  const text = env[name]?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a number of seconds above 0, got '${text}'`);
  }
  return Math.round(value * 1000);
}

/** Work refused or stopped because a phase's deadline passed. Not worth a retry. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

/**
 * A phase's deadline. Created early (the GitHub client and the stores hold it), started
 * when the phase begins; until then it never expires.
 */
export class Deadline {
  /** What the phase is, for messages: "publishing". */
  readonly phase: string;
  private endsAt = Number.POSITIVE_INFINITY;
  private limitMs = 0;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  /** Set when work was given up on while still running (it cannot be stopped). */
  abandoned = false;

  constructor(phase: string) {
    this.phase = phase;
  }

  start(limitMs: number): void {
    this.limitMs = limitMs;
    this.endsAt = performance.now() + limitMs;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(this.error()), limitMs);
    // An armed deadline must not keep a finished gate alive.
    this.timer.unref();
  }

  /** Aborted when the deadline passes. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  get expired(): boolean {
    return this.remainingMs() === 0;
  }

  /** The time limit for one more call: `callMs`, or less when the phase ends sooner. */
  limitFor(callMs: number): number {
    // Whole milliseconds, at least one: timers take nothing else.
    return Math.max(1, Math.ceil(Math.min(callMs, this.remainingMs())));
  }

  error(action?: string): DeadlineError {
    return new DeadlineError(
      `${action ? `${action}: ` : ''}${this.phase} ran out of its ${formatDuration(this.limitMs)} bound, so the gate stopped waiting for the network`,
    );
  }

  /**
   * `work`, or a DeadlineError when the deadline passes first. For work that takes no
   * signal (artifact uploads): it is left running, and `abandoned` says so.
   */
  async race<T>(work: Promise<T>, action: string): Promise<T> {
    if (this.expired) throw this.error(action);
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      onAbort = () => {
        this.abandoned = true;
        reject(this.error(action));
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, stopped]);
    } finally {
      if (onAbort) this.signal.removeEventListener('abort', onAbort);
    }
  }
}
