// The two ends of a bisection, measured first: do they differ, and on which metric? A
// bisection is only as good as the difference it walks towards, so the ends must differ
// surely (the interval of the change excludes none) before any commit between is judged.

import { worsening } from '../compare/compare.js';
import type { Direction, Metric } from '../model.js';
import { changeInterval } from '../stats/interval.js';
import { meanOf } from '../stats/mean.js';
import { logsOf } from '../stats/pooled.js';

/** How the bad end differs from the good end on one metric. */
export interface EndsChange {
  id: string;
  unit: string;
  direction: Direction;
  /** Set when the metric is a percentile of requests (50, 95, ...). */
  percentile?: number;
  /** bad / good − 1, from the mean logs of their runs. */
  change: number;
  /** Interval of `change` at the confidence asked for (Student-t on log values). */
  ci: [number, number] | null;
  /** The interval excludes no change. */
  differs: boolean;
  /** The bad end is worse (slower, lower throughput). */
  worse: boolean;
}

/** One metric of the ends compared; `null` when a side has no positive value. */
export function compareEnds(good: Metric, bad: Metric, confidence: number): EndsChange | null {
  const change = logMeanRatio(bad.values, good.values);
  if (change === null) return null;
  const { ci } = changeInterval(bad, good, { confidence, seed: `bisect/${good.id}` });
  const differs = ci !== null && (ci[0] > 0 || ci[1] < 0);
  return {
    id: good.id,
    unit: good.unit,
    direction: good.direction,
    ...(good.percentile !== undefined ? { percentile: good.percentile } : {}),
    change,
    ci,
    differs,
    worse: differs && worsening(change, good.direction) > 0,
  };
}

/**
 * The metric to bisect: `wanted` when given and the ends differ on it (either way), else
 * the worsened metric whose change stands out most from its own noise (the one that
 * decides commits in the fewest runs). Undefined when nothing qualifies yet.
 */
export function chooseMetric(
  good: readonly Metric[],
  bad: readonly Metric[],
  confidence: number,
  wanted?: string,
): EndsChange | undefined {
  const changes = allEndsChanges(good, bad, confidence).filter(
    (change) => wanted === undefined || change.id === wanted,
  );
  const eligible = changes.filter((c) => (wanted === undefined ? c.worse : c.differs));
  // A tail percentile of one run (P95 of ten requests) moves with a single stalled request,
  // so a commit's few runs judge it poorly: central figures go first when one qualifies.
  return eligible.sort((a, b) => tailRank(a) - tailRank(b) || clarity(b) - clarity(a))[0];
}

/** The ends' changes on every metric both measured, for a message when none qualifies. */
export function allEndsChanges(
  good: readonly Metric[],
  bad: readonly Metric[],
  confidence: number,
): EndsChange[] {
  return good
    .map((metric) => {
      const other = bad.find((m) => m.id === metric.id);
      return other ? compareEnds(metric, other, confidence) : null;
    })
    .filter((change): change is EndsChange => change !== null);
}

/** 0 for central figures (throughput, mean, median), 1 for tail percentiles. */
function tailRank(change: EndsChange): number {
  return change.percentile !== undefined && change.percentile > 50 ? 1 : 0;
}

/** The change in units of its own interval's half-width, on the log scale. */
function clarity(change: EndsChange): number {
  if (!change.ci) return 0;
  const low = Math.log1p(change.ci[0]);
  const high = Math.log1p(change.ci[1]);
  const half = (high - low) / 2;
  return half > 0 ? Math.abs(Math.log1p(change.change)) / half : Infinity;
}

/** exp(mean ln a − mean ln b) − 1 over the positive finite values; null when a side has none. */
export function logMeanRatio(a: readonly number[], b: readonly number[]): number | null {
  const [la, lb] = [logsOf(a), logsOf(b)];
  if (la.length === 0 || lb.length === 0) return null;
  return Math.expm1(meanOf(la) - meanOf(lb));
}
