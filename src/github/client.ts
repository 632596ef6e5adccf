// The gate's one way to reach GitHub's REST API: @actions/github's octokit with the retry
// and throttling plugins, so a 5xx from GitHub or a rate limit costs a wait instead of the
// PR comment, and writes are spaced the way GitHub asks integrations to space them. Every
// attempt has a time limit, and a phase deadline stops the rest (src/net/deadline.ts).
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import type { Logger } from '../log.js';
import { DEFAULT_NETWORK_TIMEOUT_MS, type Deadline } from '../net/deadline.js';
import { formatDuration } from '../text/duration.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';

export type GitHubClient = ReturnType<typeof getOctokit>;

type BottleneckGroup = NonNullable<ThrottlingOptions['write']>;

export type GitHubLog = Pick<Logger, 'info' | 'warning'>;

export interface GitHubClientOptions {
  token: string;
  /** Defaults to GITHUB_API_URL, then https://api.github.com. */
  baseUrl?: string;
  log?: GitHubLog;
  /** Retries after a 5xx answer or a failed connection (default 3). */
  retries?: number;
  /**
   * How long one second of waiting lasts, in milliseconds: the retry back-off (1 s, 4 s,
   * 9 s) and the waits a rate limit asks for are counted in it. 1000 for real; tests pass a
   * few milliseconds.
   */
  waitUnitMs?: number;
  /**
   * Space writes as GitHub asks integrations to (one a second, one every three seconds for
   * writes that notify people). Default true; tests turn it off.
   */
  paceWrites?: boolean;
  /** Time limit of one attempt of a request, answer included (default 30 s). */
  timeoutMs?: number;
  /** When it passes, requests under way are stopped and new ones refused, without retries. */
  deadline?: Deadline;
}

/** Rate-limit waits each request may sit through before its error is thrown. */
const RATE_LIMIT_RETRIES = 2;
/** A primary rate limit that resets later than this is not waited for: the job would idle. */
const MAX_RATE_LIMIT_WAIT_SECONDS = 300;
/**
 * Statuses the retry plugin leaves alone. Rate limits (403, 429) are the throttling
 * plugin's: it waits as long as GitHub says, where a quick retry would only prolong them.
 */
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const log = options.log ?? { info: () => {}, warning: () => {} };
  const waitUnitMs = options.waitUnitMs ?? 1000;

  const onLimit =
    (kind: string) =>
    (
      seconds: number,
      request: { method: string; url: string },
      _octokit: unknown,
      count: number,
    ) => {
      const subject = `GitHub's ${kind} rate limit stopped ${request.method} ${request.url}`;
      if (options.deadline && seconds * 1000 > options.deadline.remainingMs()) {
        log.warning(
          `${subject}; it resets in ${seconds} s, after the ${options.deadline.phase} deadline`,
        );
        return false;
      }
      if (count >= RATE_LIMIT_RETRIES) {
        log.warning(`${subject}; giving up after ${count} waits`);
        return false;
      }
      if (seconds > MAX_RATE_LIMIT_WAIT_SECONDS) {
        log.warning(`${subject}; it resets in ${seconds} s, which is too long to wait`);
        return false;
      }
      log.warning(`${subject}; retrying in ${seconds} s (${count + 1} of ${RATE_LIMIT_RETRIES})`);
      return true;
    };

  return getOctokit(
    options.token,
    {
      baseUrl: apiBaseUrl(options.baseUrl),
      userAgent: `${TOOL_NAME}/${TOOL_VERSION}`,
      log: {
        debug: () => {},
        info: () => {},
        warn: (message: string) => log.warning(message),
        error: (message: string) => log.warning(message),
      },
      retry: {
        retries: options.retries ?? 3,
        retryAfterBaseValue: waitUnitMs,
        doNotRetry: DO_NOT_RETRY,
      },
      throttle: {
        onRateLimit: onLimit('primary'),
        onSecondaryRateLimit: onLimit('secondary'),
        retryAfterBaseValue: waitUnitMs,
        ...(options.paceWrites === false ? { write: unpaced(), notifications: unpaced() } : {}),
      },
    },
    // Before retry: each attempt gets its own time limit.
    timeLimits(options.timeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS, options.deadline),
    retry,
    throttling,
  );
}

type RequestOptions = {
  method: string;
  url: string;
  request?: { signal?: AbortSignal } & Record<string, unknown>;
};
type WrappedRequest = (options: RequestOptions) => Promise<unknown>;
interface HookedOctokit {
  hook: {
    wrap(
      name: 'request',
      hook: (request: WrappedRequest, options: RequestOptions) => Promise<unknown>,
    ): void;
  };
}

/**
 * A plugin that gives each attempt of a request `timeoutMs` (fetch itself would wait five
 * minutes for headers, then the retries again), and fails every request at once when the
 * deadline passes. A timed-out attempt fails as a 500, which the retry plugin retries; a
 * passed deadline is not retried.
 */
function timeLimits(timeoutMs: number, deadline: Deadline | undefined) {
  // The signal a caller gave, before the first attempt replaced it with its own.
  const callerSignals = new WeakMap<RequestOptions, AbortSignal | undefined>();
  return (octokit: unknown): void => {
    (octokit as HookedOctokit).hook.wrap('request', async (request, options) => {
      const action = `GitHub request ${options.method} ${options.url}`;
      if (deadline?.expired) throw deadline.error(`${action} not sent`);
      const limit = deadline ? deadline.limitFor(timeoutMs) : timeoutMs;
      const timeout = AbortSignal.timeout(limit);
      if (!callerSignals.has(options)) callerSignals.set(options, options.request?.signal);
      const signals = [timeout, deadline?.signal, callerSignals.get(options)].filter(
        (signal): signal is AbortSignal => signal !== undefined,
      );
      // Hooks pass options on by changing them: the next hook was bound to this object.
      options.request = { ...options.request, signal: AbortSignal.any(signals) };
      const timedOut = () => {
        if (deadline?.signal.aborted) return deadline.error(action);
        // Shaped as octokit's RequestError (a status and the request), so it is retried.
        return Object.assign(
          new Error(
            `GitHub did not answer ${options.method} ${options.url} within ${formatDuration(limit)}`,
          ),
          { name: 'HttpError', status: 500, request: options },
        );
      };
      let response: unknown;
      try {
        response = await request(options);
      } catch (error) {
        if (timeout.aborted || deadline?.signal.aborted) throw timedOut();
        throw error;
      }
      // Octokit reads a body cut off by the signal as empty: never pass that on.
      if (timeout.aborted || deadline?.signal.aborted) throw timedOut();
      return response;
    });
  };
}

/** The API's root without a trailing slash; an empty GITHUB_API_URL counts as unset. */
function apiBaseUrl(explicit: string | undefined): string {
  const url = explicit || process.env.GITHUB_API_URL || 'https://api.github.com';
  return url.replace(/\/+$/, '');
}

/**
 * Takes the place of one of the throttling plugin's Bottleneck groups and runs each job at
 * once. The plugin only calls `key(id).schedule(options, task, ...args)` on its groups.
 */
function unpaced(): BottleneckGroup {
  const limiter = {
    schedule: (...args: unknown[]) => {
      const [task, ...rest] = (typeof args[0] === 'function' ? args : args.slice(1)) as [
        (...a: unknown[]) => unknown,
        ...unknown[],
      ];
      return Promise.resolve().then(() => task(...rest));
    },
  };
  return { key: () => limiter } as unknown as BottleneckGroup;
}
