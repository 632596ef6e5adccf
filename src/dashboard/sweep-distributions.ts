// A sweep's latency distributions per rate on the dashboard: for TTFT and ITL, one CDF line
// per variant from the histograms its newest default-branch record keeps (stats/histogram.ts),
// all on one grid of latencies so that one chart draws them; and beside them the trade-off
// between a user's and the instance's tokens per second (vLLM's plot_pareto): the decode
// speed one request sees (1000 / median TPOT) against the output tokens/s of the server.

import type { LatencyHistogram, LatencyHistograms } from '../model.js';
import type { StoredRecordRef } from '../history/series.js';
import { inHistory } from '../history/series.js';

/** One metric's CDFs, a line per variant on a shared grid of latencies (ms). */
export interface DistributionChart {
  metric: 'ttft' | 'itl';
  /** Latencies (ms), ascending: every edge of every variant's histogram. */
  x: number[];
  /** Per variant, the share of requests (0–1) at or below each x. */
  shares: number[][];
}

export interface SweepDistributions {
  gate: string;
  sweep: string;
  /** The variants drawn, by load (request rate, else name). */
  variants: string[];
  /** Unix seconds of each variant's record. */
  at: number[];
  charts: DistributionChart[];
  /** Per variant: output tokens/s of the server and 1000 / median TPOT; absent without them. */
  pareto?: { perInstance: (number | null)[]; perUser: (number | null)[] };
}

const METRICS = ['ttft', 'itl'] as const;

/** The distributions of each sweep whose newest records keep histograms. */
export function sweepDistributions(
  records: readonly StoredRecordRef[],
  defaultBranch?: string,
): SweepDistributions[] {
  const newest = new Map<string, StoredRecordRef['record']>();
  for (const { record } of records) {
    if (!record.result.sweep || record.ab !== undefined || record.verdict === 'error') continue;
    if (!inHistory(record, defaultBranch) || !record.result.distributions) continue;
    const key = JSON.stringify([record.gateKey, record.benchmark]);
    const known = newest.get(key);
    if (!known || known.createdAt < record.createdAt) newest.set(key, record);
  }
  const bySweep = new Map<string, StoredRecordRef['record'][]>();
  for (const record of newest.values()) {
    const key = JSON.stringify([record.gateKey, record.result.sweep!.name]);
    bySweep.set(key, [...(bySweep.get(key) ?? []), record]);
  }
  return [...bySweep.values()]
    .map((variants) => sweepOf(variants.sort(byLoad)))
    .sort((a, b) => a.gate.localeCompare(b.gate) || a.sweep.localeCompare(b.sweep));
}

type StoredRecord = StoredRecordRef['record'];

function sweepOf(records: StoredRecord[]): SweepDistributions {
  const first = records[0]!;
  const charts = METRICS.flatMap((metric) => {
    const chart = chartOf(
      metric,
      records.map((record) => record.result.distributions as LatencyHistograms),
    );
    return chart ? [chart] : [];
  });
  const perInstance = records.map((r) => r.summary.tokens_per_second?.mean ?? null);
  const perUser = records.map((r) => {
    const tpot = r.summary.tpot_p50?.mean;
    return tpot !== undefined && tpot > 0 ? round(1000 / tpot) : null;
  });
  const pareto = perInstance.some((v, i) => v !== null && perUser[i] !== null);
  return {
    gate: first.gateKey,
    sweep: first.result.sweep!.name,
    variants: records.map((record) => record.result.sweep!.variant),
    at: records.map((record) => Math.round(Date.parse(record.createdAt) / 1000)),
    charts,
    ...(pareto ? { pareto: { perInstance: perInstance.map(roundOrNull), perUser } } : {}),
  };
}

/** A variant's load: its request rate or concurrency parameter, else none (by name then). */
function loadOf(record: StoredRecord): number | undefined {
  const params = record.result.sweep?.params ?? {};
  for (const key of ['request-rate', 'request_rate', 'max-concurrency', 'max_concurrency']) {
    const value = Number(params[key]);
    if (params[key] !== undefined && Number.isFinite(value)) return value;
  }
  return undefined;
}

function byLoad(a: StoredRecord, b: StoredRecord): number {
  const [x, y] = [loadOf(a), loadOf(b)];
  if (x !== undefined && y !== undefined && x !== y) return x - y;
  return a.result.sweep!.variant.localeCompare(b.result.sweep!.variant, 'en', { numeric: true });
}

/** The CDF of each variant that has the metric, on the union of their edges. */
function chartOf(
  metric: DistributionChart['metric'],
  histograms: LatencyHistograms[],
): DistributionChart | undefined {
  const drawn = histograms.map((h) => h[metric]);
  if (!drawn.some((h) => h && h.count > 0)) return undefined;
  // Positive latencies only: the chart's latency axis is logarithmic.
  const edges = drawn.flatMap((h) => h?.edges.filter((edge) => edge > 0).map(round) ?? []);
  const grid = [...new Set(edges)].sort((a, b) => a - b);
  return {
    metric,
    x: grid,
    shares: drawn.map((h) => grid.map((value) => (h ? round(shareAtOrBelow(h, value)) : 0))),
  };
}

/** The histogram's CDF at `value`, linear within a bucket (the bucket's requests spread evenly). */
export function shareAtOrBelow(histogram: LatencyHistogram, value: number): number {
  const { edges, counts, count } = histogram;
  if (count === 0 || value < edges[0]!) return 0;
  if (value >= edges.at(-1)!) return 1;
  let below = 0;
  for (let bucket = 0; bucket < counts.length; bucket += 1) {
    const low = edges[bucket]!;
    const high = edges[bucket + 1]!;
    if (value < high) {
      const within = high > low ? (value - low) / (high - low) : 1;
      return (below + within * counts[bucket]!) / count;
    }
    below += counts[bucket]!;
  }
  return 1;
}

/** Five significant digits: enough for a chart, and short in JSON. */
function round(value: number): number {
  return Number(value.toPrecision(5));
}

function roundOrNull(value: number | null): number | null {
  return value === null ? null : round(value);
}
