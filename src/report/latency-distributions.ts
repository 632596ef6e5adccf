// Each benchmark's TTFT, ITL and E2E latency distributions for report.json: histograms of
// bounded size (stats/histogram.ts) of this run's requests, pooled over its runs, and of
// the baseline's where it kept per-request samples. The dashboard draws a sweep's CDFs
// per rate from the same histograms in its stored records.

import type { BenchmarkResult, LatencyDistributions } from '../model.js';
import { latencyHistogramsOf } from '../stats/latency-histograms.js';

/** Undefined when this run kept no per-request samples. */
export function distributionsOf(
  current: BenchmarkResult | undefined,
  baseline: BenchmarkResult | undefined,
): LatencyDistributions | undefined {
  const now = current ? latencyHistogramsOf(current.metrics) : undefined;
  if (!now) return undefined;
  const before = baseline ? latencyHistogramsOf(baseline.metrics) : undefined;
  return { unit: 'ms', current: now, ...(before ? { baseline: before } : {}) };
}
