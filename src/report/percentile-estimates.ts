// Which estimator each percentile figure of a table is, in words. A side's percentile is
// the percentile of all its requests pooled when enough lie beyond it, else the median of
// its runs' own percentiles (stats/estimate.ts), so a table may show a pooled P95 above a
// P99 that is a median of runs; a table whose percentile rows mix estimators says which
// row is which (docs/statistics.md: Estimates).

import type { Comparison } from '../model.js';
import { escapeMarkdown } from './escape.js';

/** How one percentile figure stands for its runs. */
export type PercentileEstimator = 'pooled-requests' | 'median-of-runs' | 'geometric-mean';

/** Comparison.estimate read defensively: a report.json from a pull request's run is untrusted. */
export function estimateOf(m: Comparison): NonNullable<Comparison['estimate']> | undefined {
  const estimate: unknown = m.estimate;
  if (typeof estimate !== 'object' || estimate === null) return undefined;
  const { of, percentile, runs, requestCount } = estimate as Record<string, unknown>;
  if (of !== 'pooled-requests' && of !== 'median-of-runs') return undefined;
  if (!isCount(runs) || typeof percentile !== 'number' || !Number.isFinite(percentile)) {
    return undefined;
  }
  return { of, percentile, runs, ...(isCount(requestCount) ? { requestCount } : {}) };
}

/** One row of a table: its id, the estimator its figures are, and its current side's counts. */
export interface EstimatedRow {
  id: string;
  estimator: PercentileEstimator;
  estimate: NonNullable<Comparison['estimate']>;
}

/**
 * A line under a table naming each percentile row's estimator, when the rows use more than
 * one; undefined when they use one (or none is known).
 */
export function estimatorLegend(rows: readonly EstimatedRow[]): string | undefined {
  const kinds = new Set(rows.map((r) => r.estimator));
  if (kinds.size < 2) return undefined;
  const order: PercentileEstimator[] = ['pooled-requests', 'median-of-runs', 'geometric-mean'];
  const groups = order
    .map((kind) => rows.filter((r) => r.estimator === kind))
    .filter((group) => group.length > 0)
    .map(
      (group) =>
        `${group.map((r) => escapeMarkdown(r.id)).join(', ')}: ${describeEstimator(group)}.`,
    );
  return `<sub>The percentile rows use different estimators, so a higher percentile can read below a lower one. ${groups.join(' ')}</sub>`;
}

/** What a group of rows of one estimator shows, with the current side's counts. */
function describeEstimator(group: readonly EstimatedRow[]): string {
  const { estimator } = group[0]!;
  const runs = shared(group.map((r) => r.estimate.runs));
  const requests = shared(group.map((r) => r.estimate.requestCount));
  const tail = beyond(group);
  if (estimator === 'pooled-requests') {
    const counts =
      requests !== undefined && runs !== undefined
        ? ` (this gate run: ${count(requests, 'request')} in ${count(runs, 'run')})`
        : '';
    return `the percentile of each side's requests, all its runs pooled${counts}`;
  }
  if (estimator === 'geometric-mean') {
    return "the geometric mean of each side's runs' own percentiles, what Change is computed from";
  }
  const of = runs === undefined ? '' : ` (this gate run: ${count(runs, 'run')})`;
  const why = group.every((r) => r.estimate.requestCount !== undefined)
    ? `fewer than 10 requests lie beyond ${tail} on a side, too few to pool`
    : 'the result files give one figure a run, not the requests';
  const own = tail === 'the percentile' ? 'percentiles' : tail;
  return `the median of each side's runs' own ${own}${of}, as ${why}`;
}

/** "P99", or "the percentile" for a group of several. */
function beyond(group: readonly EstimatedRow[]): string {
  const percentile = shared(group.map((r) => r.estimate.percentile));
  return percentile === undefined ? 'the percentile' : `P${Number(percentile.toFixed(4))}`;
}

function shared<T>(values: readonly T[]): T | undefined {
  return values.every((v) => v === values[0]) ? values[0] : undefined;
}

function count(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
