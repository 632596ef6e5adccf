// The latency percentiles of a sweep's ranking, one estimator for the whole table. Each
// variant's judged figure is its requests pooled when enough lie beyond the percentile,
// else the median of its runs' own percentiles (stats/estimate.ts): at 100 requests a run
// and 3 runs a P95 pools and a P99 does not, and a pooled P95 can read above a P99 that
// is the median of the runs'. So the table shows the judged figures only when all pool,
// else the median of each variant's runs' own percentiles for every cell (a run's P95 is
// never above its P99, so neither is their median), and says which it shows.

import type { BenchmarkReport } from '../model.js';
import { median } from '../stats/percentile.js';
import { estimateOf, estimatorLegend, type EstimatedRow } from './percentile-estimates.js';

export const SWEEP_PERCENTILES = ['latency_p50', 'latency_p95', 'latency_p99'] as const;
type PercentileId = (typeof SWEEP_PERCENTILES)[number];

export interface SweepPercentiles {
  /** The figure of a variant's percentile in the table, or null. */
  value: (benchmark: BenchmarkReport, id: PercentileId) => number | null;
  /** The line under the table naming the estimator; undefined when nothing needs saying. */
  note?: string;
}

export function sweepPercentiles(variants: readonly BenchmarkReport[]): SweepPercentiles {
  const judged = (b: BenchmarkReport, id: PercentileId) =>
    b.metrics.find((m) => m.id === id) ?? undefined;
  const cells = variants.flatMap((b) =>
    SWEEP_PERCENTILES.flatMap((id) => {
      const m = judged(b, id);
      return m && typeof m.current === 'number' ? [{ b, id, m, estimate: estimateOf(m) }] : [];
    }),
  );
  const judgedValue = (b: BenchmarkReport, id: PercentileId) => {
    const current = judged(b, id)?.current;
    return typeof current === 'number' ? current : null;
  };
  // A report.json of an older gate says nothing of its estimators: shown as it is.
  if (cells.length === 0 || cells.every((c) => c.estimate === undefined)) {
    return { value: judgedValue };
  }
  if (cells.every((c) => c.estimate?.of === 'pooled-requests')) {
    return {
      value: judgedValue,
      note: "<sub>P50, P95, P99: the percentile of each variant's requests, all its runs pooled.</sub>",
    };
  }
  const medians = new Map(cells.map((c) => [c, runsMedian(c.b, c.id)]));
  if ([...medians.values()].every((v) => v !== null)) {
    const value = (b: BenchmarkReport, id: PercentileId) => {
      const cell = cells.find((c) => c.b === b && c.id === id);
      return cell ? medians.get(cell)! : null;
    };
    return { value, note: mediansNote(cells) };
  }
  // No per-run values to take medians of (a hand-made report.json): each column's estimators named.
  const rows: EstimatedRow[] = cells.flatMap((c) =>
    c.estimate ? [{ id: c.id, estimator: c.estimate.of, estimate: c.estimate }] : [],
  );
  const unique = rows.filter(
    (r, i) => rows.findIndex((o) => o.id === r.id && o.estimator === r.estimator) === i,
  );
  const legend = estimatorLegend(unique);
  return { value: judgedValue, ...(legend ? { note: legend } : {}) };
}

/** The median of a variant's runs' own values of `id`; null without any. */
function runsMedian(benchmark: BenchmarkReport, id: PercentileId): number | null {
  const metrics: unknown = benchmark.result?.metrics;
  if (!Array.isArray(metrics)) return null;
  const metric = (metrics as { id?: unknown; values?: unknown }[]).find((m) => m?.id === id);
  const values = Array.isArray(metric?.values) ? (metric.values as unknown[]) : [];
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return finite.length > 0 ? median(finite) : null;
}

/** "P50, P95, P99: the median of each variant's runs' own (3 runs each), …". */
function mediansNote(
  cells: readonly { id: PercentileId; estimate?: { of: string; percentile: number } }[],
): string {
  const kinds = [...new Set(cells.map((c) => c.estimate?.of))];
  const thin = [
    ...new Set(
      cells
        .filter((c) => c.estimate?.of === 'median-of-runs')
        .map((c) => `P${Number(c.estimate!.percentile.toFixed(4))}`),
    ),
  ];
  const why =
    thin.length > 0 && kinds.includes('pooled-requests')
      ? `: too few requests lie beyond ${thin.join(', ')} to pool them, and a pooled percentile beside a median of runs could read above a higher percentile. The benchmarks' own tables pool where they can`
      : '';
  return `<sub>P50, P95, P99: the median of each variant's runs' own percentiles, one estimator for every column${why}.</sub>`;
}
