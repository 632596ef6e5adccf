// The TTFT, ITL and E2E latency histograms of a serving benchmark, from its metrics'
// per-request samples pooled over the runs: what report.json, a stored record and the
// dashboard's CDFs keep of each rate's distributions.

import type { LatencyHistograms, Metric } from '../model.js';
import { histogramOf } from './histogram.js';

/**
 * The metric-id prefixes whose samples are each distribution, preferred in this order:
 * vLLM's serving files give e2el_* and latency_* the same samples.
 */
const SAMPLE_PREFIXES: Record<keyof LatencyHistograms, readonly string[]> = {
  ttft: ['ttft_'],
  itl: ['itl_'],
  e2el: ['e2el_', 'latency_'],
};

/** The histograms of the samples the metrics hold, in ms; undefined when none has samples. */
export function latencyHistogramsOf(
  metrics: readonly Pick<Metric, 'id' | 'unit' | 'samples'>[],
): LatencyHistograms | undefined {
  const histograms: LatencyHistograms = {};
  for (const [name, prefixes] of Object.entries(SAMPLE_PREFIXES)) {
    const sampled = prefixes
      .flatMap((prefix) => metrics.filter((m) => m.id.startsWith(prefix)))
      .find((m) => m.unit === 'ms' && m.samples?.some((run) => run.length > 0));
    const histogram = sampled?.samples ? histogramOf(sampled.samples) : undefined;
    if (histogram) histograms[name as keyof LatencyHistograms] = histogram;
  }
  return Object.keys(histograms).length > 0 ? histograms : undefined;
}
