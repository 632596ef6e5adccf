// What the comment's charts show, taken while the gate still holds the stored records and
// the per-request samples: report.json carries only these few numbers, so comment mode
// can draw the same charts from it.

import type { BaselineRecord } from '../baseline/record.js';
import type {
  BenchmarkReport,
  BenchmarkResult,
  MetricTrends,
  PercentileCurve,
  SampleRun,
} from '../model.js';
import { percentiles } from '../stats/percentile.js';
import { pooledSorted } from '../stats/sorted.js';

/** Stored records shown before this run in a trend chart. */
export const TREND_RECORDS = 20;
/** The points of a latency percentile curve. */
export const CURVE_PERCENTILES = [1, 5, 10, 25, 50, 75, 90, 95, 99];

/**
 * The gated metrics (those with a threshold and a value this run) over the newest stored
 * records, oldest first, and this run last. Records of pull requests are left out: the
 * trend is the default branch's. Undefined without a record to draw a line from.
 */
export function trendOf(
  report: BenchmarkReport,
  history: readonly BaselineRecord[],
  now: string,
  max = TREND_RECORDS,
): MetricTrends | undefined {
  const gated = report.metrics.filter((m) => m.threshold !== null && m.current !== null);
  if (gated.length === 0) return undefined;
  const records = history
    .filter((record) => record.event !== 'pull_request' && record.verdict !== 'error')
    .filter((record) => gated.some((m) => Object.hasOwn(record.summary, m.id)))
    .slice(0, max)
    .reverse();
  if (records.length === 0) return undefined;
  // A metric some record lacks would leave a gap a Mermaid line cannot draw: left out.
  const metrics = gated
    .filter((m) => records.every((record) => Object.hasOwn(record.summary, m.id)))
    .map((m) => ({
      id: m.id,
      unit: m.unit,
      values: [...records.map((record) => record.summary[m.id]!.mean), m.current!],
    }));
  if (metrics.length === 0) return undefined;
  return { at: [...records.map((record) => record.createdAt), now], metrics };
}

/** Latency metrics whose samples are request latencies, preferred in this order. */
const LATENCY_METRICS = ['latency_p50', 'latency_p95', 'latency_p99', 'e2el_p50', 'ttft_p50'];

/**
 * Percentiles of the request latencies of the baseline and of this run, for the first
 * latency metric both sides hold samples of. Undefined when either side has none.
 */
export function latencyCurveOf(
  current: BenchmarkResult | undefined,
  baseline: BenchmarkResult | undefined,
): PercentileCurve | undefined {
  if (!current || !baseline) return undefined;
  for (const id of LATENCY_METRICS) {
    const now = pooledOf(current.metrics.find((m) => m.id === id)?.samples);
    const before = pooledOf(baseline.metrics.find((m) => m.id === id)?.samples);
    if (now.length === 0 || before.length === 0) continue;
    return {
      id,
      unit: current.metrics.find((m) => m.id === id)!.unit,
      percentiles: CURVE_PERCENTILES,
      baseline: percentiles(before, CURVE_PERCENTILES),
      current: percentiles(now, CURVE_PERCENTILES),
    };
  }
  return undefined;
}

/** All runs' samples together, sorted (shared with the compare stage, not copied again). */
function pooledOf(samples: readonly SampleRun[] | undefined): SampleRun {
  return samples && samples.length > 0 ? pooledSorted(samples) : [];
}
