// The server's view of one clean run: its Prometheus /metrics (vLLM's names, see
// examples/simulated-inf2/lib/serve-metrics.mjs for their source) scraped before the run,
// every 0.5 s while it runs (the gauges' peaks: KV-cache usage, requests waiting and
// running) and after it; the counters' and histograms' deltas give the run's queue time,
// preemptions and prefix-cache hit rate. The address is the `server:` block's ready-url's
// host and port, loopback only, each scrape within a short deadline. A server without
// /metrics, or one that answers something else, gives "not scraped" and the reason, never
// a failed run.

import type { ServerSpec } from '../config/types.js';
import { errorMessage } from '../errors.js';
import type { ServerView } from '../model.js';
import { parsePrometheusText, sampleSum, type PrometheusText } from './prometheus-text.js';

/** Each scrape's deadline: a server busy serving the run still answers /metrics in this. */
const SCRAPE_TIMEOUT_MS = 2_000;
const POLL_MS = 500;
/** Larger answers are not a metrics page (a few hundred KB at most). */
const MAX_BYTES = 4 * 1024 * 1024;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The /metrics URL of a server, or why there is none to scrape. */
export function metricsUrlOf(server: ServerSpec): { url: string } | { reason: string } {
  const ready = 'url' in server.readiness ? server.readiness.url : undefined;
  if (ready === undefined) {
    return { reason: 'the server block has no ready-url, so the gate does not know its address' };
  }
  let parsed: URL;
  try {
    parsed = new URL(ready);
  } catch {
    return { reason: `its ready-url ${ready} is not a URL` };
  }
  if (!LOOPBACK.has(parsed.hostname) || parsed.protocol !== 'http:') {
    return {
      reason: `its ready-url ${ready} is not http on loopback; only a server on this runner is scraped`,
    };
  }
  return { url: `http://${parsed.host}/metrics` };
}

/** One scrape: the parsed page, or why not. */
export async function scrapeMetrics(
  url: string,
  timeoutMs = SCRAPE_TIMEOUT_MS,
): Promise<PrometheusText | { reason: string }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return { reason: `${url} answered HTTP ${response.status}` };
    const text = await response.text();
    if (text.length > MAX_BYTES) return { reason: `${url} answered more than 4 MiB` };
    const page = parsePrometheusText(text);
    if (page.samples.length === 0) {
      return {
        reason: `${url} answered no Prometheus sample (${page.unreadLines} unreadable lines)`,
      };
    }
    return page;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return { reason: `${url} did not answer: ${errorMessage(cause ?? error)}` };
  }
}

/** Names of one figure, newest first (vLLM V1, then V0's). */
const NAMES = {
  queueSum: ['vllm:request_queue_time_seconds_sum'],
  queueCount: ['vllm:request_queue_time_seconds_count'],
  ttftSum: ['vllm:time_to_first_token_seconds_sum'],
  ttftCount: ['vllm:time_to_first_token_seconds_count'],
  preemptions: ['vllm:num_preemptions_total'],
  prefixQueries: ['vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'],
  prefixHits: ['vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'],
  kvUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
  waiting: ['vllm:num_requests_waiting'],
  running: ['vllm:num_requests_running'],
} as const;

function read(page: PrometheusText, names: readonly string[]): number | undefined {
  for (const name of names) {
    const value = sampleSum(page, name);
    if (value !== undefined && Number.isFinite(value)) return value;
  }
  return undefined;
}

/** The run's figures from the scrape before, those during and the one after. Pure. */
export function serverViewOf(
  before: PrometheusText,
  during: readonly PrometheusText[],
  after: PrometheusText,
): ServerView {
  const delta = (names: readonly string[]) => {
    const [a, b] = [read(before, names), read(after, names)];
    // A counter that went down was reset (the server restarted): no delta.
    return a === undefined || b === undefined || b < a ? undefined : b - a;
  };
  const ratio = (top: number | undefined, bottom: number | undefined) =>
    top === undefined || bottom === undefined || bottom <= 0 ? undefined : top / bottom;
  const peak = (names: readonly string[]) => {
    const seen = [before, ...during, after]
      .map((page) => read(page, names))
      .filter((value): value is number => value !== undefined);
    return seen.length === 0 ? undefined : Math.max(...seen);
  };
  const requests = delta(NAMES.queueCount);
  const kv = peak(NAMES.kvUsage);
  const hitRate = ratio(delta(NAMES.prefixHits), delta(NAMES.prefixQueries));
  const figures = {
    requests,
    queueTimeMean: ratio(delta(NAMES.queueSum), requests),
    ttftMean: ratio(delta(NAMES.ttftSum), delta(NAMES.ttftCount)),
    preemptions: delta(NAMES.preemptions),
    kvCacheUsagePeak: kv === undefined ? undefined : kv * 100,
    prefixCacheHitRate: hitRate === undefined ? undefined : hitRate * 100,
    waitingPeak: peak(NAMES.waiting),
    runningPeak: peak(NAMES.running),
  };
  const known = Object.fromEntries(
    Object.entries(figures).filter(([, value]) => value !== undefined),
  );
  return { scraped: true, ...known, samples: during.length + 2 };
}

/**
 * Starts watching: the scrape before (awaited, so it precedes the run's first request),
 * then one every 0.5 s until `stop`, which scrapes once more and never throws.
 */
export async function watchServerView(
  server: ServerSpec,
  options: { pollMs?: number; timeoutMs?: number } = {},
): Promise<{ stop(): Promise<ServerView> }> {
  const address = metricsUrlOf(server);
  if ('reason' in address) {
    return { stop: () => Promise.resolve({ scraped: false, reason: address.reason }) };
  }
  const scrape = () => scrapeMetrics(address.url, options.timeoutMs);
  const before = await scrape();
  if ('reason' in before) {
    return { stop: () => Promise.resolve({ scraped: false, reason: before.reason }) };
  }
  const during: PrometheusText[] = [];
  let polling: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    // One scrape at a time: a slow answer is not piled on.
    polling = polling.then(async () => {
      const page = await scrape();
      if (!('reason' in page)) during.push(page);
    });
  }, options.pollMs ?? POLL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await polling;
      const after = await scrape();
      if ('reason' in after) return { scraped: false, reason: after.reason };
      return serverViewOf(before, during, after);
    },
  };
}
