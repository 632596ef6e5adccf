// The server's view of a benchmark's clean runs as metrics, one value per run, so each has
// an interval: queue time, time to first token as the server measured it, preemptions,
// KV-cache usage peak, prefix-cache hit rate, requests waiting at the peak. None is gated
// by default (config/default-thresholds.ts): the client's latency is, and these explain
// it. Pure.

import type { Metric, RunOutcome } from '../model.js';

type Figure = Exclude<
  keyof Extract<NonNullable<RunOutcome['serverView']>, { scraped: true }>,
  'scraped' | 'samples' | 'requests'
>;

/** The metrics the server's /metrics adds, in the order the report shows them. */
export const SERVER_VIEW_METRICS: readonly (Pick<Metric, 'id' | 'unit' | 'direction'> & {
  figure: Figure;
})[] = [
  { id: 'server_queue_time', unit: 's', direction: 'lower-is-better', figure: 'queueTimeMean' },
  { id: 'server_ttft_mean', unit: 's', direction: 'lower-is-better', figure: 'ttftMean' },
  {
    id: 'server_preemptions',
    unit: 'preemptions',
    direction: 'lower-is-better',
    figure: 'preemptions',
  },
  {
    id: 'kv_cache_usage_peak',
    unit: '%',
    direction: 'lower-is-better',
    figure: 'kvCacheUsagePeak',
  },
  {
    id: 'prefix_cache_hit_rate',
    unit: '%',
    direction: 'higher-is-better',
    figure: 'prefixCacheHitRate',
  },
  {
    id: 'server_waiting_peak',
    unit: 'requests',
    direction: 'lower-is-better',
    figure: 'waitingPeak',
  },
];

export interface ServerViewMetrics {
  metrics: Metric[];
  /** Why there are none (or fewer): each reason once, with its runs. */
  warnings: string[];
}

/**
 * A figure every clean run has becomes a metric; a run whose server was not scraped adds
 * a warning with the reason and no metric (a figure the server does not export, such as
 * the prefix-cache hit rate with prefix caching off, is simply absent).
 */
export function serverViewMetrics(clean: readonly RunOutcome[]): ServerViewMetrics {
  const views = clean.map((run) => run.serverView);
  if (views.every((view) => view === undefined)) return { metrics: [], warnings: [] };
  const reasons = new Map<string, number[]>();
  clean.forEach((run, i) => {
    const view = views[i];
    const reason =
      view === undefined ? 'it was not watched' : view.scraped ? undefined : view.reason;
    if (reason !== undefined) reasons.set(reason, [...(reasons.get(reason) ?? []), run.index]);
  });
  const warnings = [...reasons].map(
    ([reason, runs]) =>
      `the server's /metrics was not scraped in clean run ${runs.join(', ')}, so the server's view is missing: ${reason}`,
  );
  if (reasons.size > 0) return { metrics: [], warnings };
  const metrics: Metric[] = [];
  for (const { figure, ...metric } of SERVER_VIEW_METRICS) {
    const values = views.map((view) => (view?.scraped ? view[figure] : undefined));
    if (values.every((value): value is number => value !== undefined)) {
      metrics.push({ ...metric, values: values.map(round) });
    }
  }
  return { metrics, warnings };
}

/** Six significant digits: a scrape's float noise is not a change. */
function round(value: number): number {
  return value === 0 ? 0 : Number(value.toPrecision(6));
}
