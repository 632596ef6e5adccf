import type { Comparison, Direction, Metric, MetricVerdict } from '../model.js';
import { estimate } from '../stats/estimate.js';

/**
 * Compares one metric of the current run with the same metric of the baseline.
 * The decision is by threshold: a change worse than the threshold is a regression, one
 * better than it an improvement. `ci` stays null until intervals are computed.
 */
export function compareMetric(
  current: Metric | undefined,
  baseline: Metric | undefined,
  threshold: number | null,
): Comparison {
  const reference = current ?? baseline;
  if (!reference) throw new Error('compareMetric needs at least one side');
  const currentValue = current ? estimate(current) : null;
  const baselineValue = baseline ? estimate(baseline) : null;
  const base = {
    id: reference.id,
    unit: reference.unit,
    direction: reference.direction,
    baseline: baselineValue,
    current: currentValue,
    ci: null,
    threshold,
  };
  if (currentValue === null) {
    return {
      ...base,
      change: null,
      verdict: 'missing',
      reason: 'not measured in this run',
    };
  }
  if (baselineValue === null) {
    return { ...base, change: null, verdict: 'new', reason: 'no baseline value to compare with' };
  }
  if (baselineValue === 0) {
    return {
      ...base,
      change: null,
      verdict: 'unchanged',
      reason: 'the baseline is 0, so a relative change is undefined',
    };
  }
  const change = currentValue / baselineValue - 1;
  const verdict = thresholdVerdict(change, reference.direction, threshold);
  return { ...base, change, verdict, reason: describe(change, reference, threshold, verdict) };
}

const FLOAT_TOLERANCE = 1e-9;

/** Positive when the change is for the worse, whichever way the metric points. */
export function worsening(change: number, direction: Direction): number {
  return direction === 'higher-is-better' ? -change : change;
}

function thresholdVerdict(
  change: number,
  direction: Direction,
  threshold: number | null,
): MetricVerdict {
  if (threshold === null) return 'unchanged';
  const worse = worsening(change, direction);
  // A change of exactly the threshold is within it; floating point must not say otherwise
  // (105 / 100 − 1 is 0.05000000000000004).
  const limit = threshold + FLOAT_TOLERANCE;
  if (worse > limit) return 'regression';
  if (-worse > limit) return 'improvement';
  return 'unchanged';
}

function describe(
  change: number,
  metric: { direction: Direction; unit: string },
  threshold: number | null,
  verdict: MetricVerdict,
): string {
  const what =
    change === 0
      ? 'no change'
      : `${(Math.abs(change) * 100).toFixed(1)}% ${changeWord(change, metric.unit)}`;
  if (threshold === null) return `${what}; not gated (no threshold set)`;
  const beyond = verdict === 'regression' || verdict === 'improvement';
  return `${what}, ${beyond ? 'beyond' : 'within'} the ${formatPercent(threshold)} threshold`;
}

/** Latencies read better as slower/faster; everything else as higher/lower. */
function changeWord(change: number, unit: string): string {
  if (unit === 'ms') return change > 0 ? 'slower' : 'faster';
  return change > 0 ? 'higher' : 'lower';
}

function formatPercent(fraction: number): string {
  const percent = fraction * 100;
  return `${Number.isInteger(percent) ? percent : Number(percent.toPrecision(3))}%`;
}
