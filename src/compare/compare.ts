import type { Comparison, Direction, Metric, MetricVerdict } from '../model.js';
import { estimate, estimatePair } from '../stats/estimate.js';
import { changeInterval, type IntervalMethod } from '../stats/interval.js';
import { describeVerdict } from './reason.js';

export interface CompareOptions {
  /** Confidence level of the intervals as a fraction (0.95). */
  confidence: number;
  /** Seeds the bootstrap; the same seed and data always give the same interval. */
  seed: string;
}

/**
 * Compares one metric of the current run with the same metric of the baseline:
 * a regression is a change worse than the threshold whose interval lies entirely on the
 * worse side of zero; beyond the threshold with an interval that includes zero is
 * inconclusive. Without any interval (too little data) the threshold alone decides.
 */
export function compareMetric(
  current: Metric | undefined,
  baseline: Metric | undefined,
  threshold: number | null,
  options: CompareOptions,
): Comparison {
  const reference = current ?? baseline;
  if (!reference) throw new Error('compareMetric needs at least one side');
  const { current: currentValue, baseline: baselineValue } =
    current && baseline
      ? estimatePair(current, baseline)
      : {
          current: current ? estimate(current) : null,
          baseline: baseline ? estimate(baseline) : null,
        };
  const base = {
    id: reference.id,
    unit: reference.unit,
    direction: reference.direction,
    baseline: baselineValue,
    current: currentValue,
    threshold,
    confidence: options.confidence,
  };
  if (currentValue === null) {
    return {
      ...base,
      change: null,
      ci: null,
      method: 'none',
      verdict: 'missing',
      reason: 'not measured in this run',
    };
  }
  if (baselineValue === null) {
    return {
      ...base,
      change: null,
      ci: null,
      method: 'none',
      verdict: 'new',
      reason: 'no baseline value to compare with',
    };
  }
  if (baselineValue <= 0 || currentValue < 0) {
    return {
      ...base,
      change: null,
      ci: null,
      method: 'none',
      verdict: 'unchanged',
      reason: 'the baseline is 0, so a relative change is undefined',
    };
  }
  const change = currentValue / baselineValue - 1;
  const { ci, method } = changeInterval(current!, baseline!, {
    confidence: options.confidence,
    seed: `${options.seed}/${reference.id}`,
  });
  const verdict = decide(change, ci, reference.direction, threshold);
  return {
    ...base,
    change,
    ci,
    method,
    verdict,
    reason: describeVerdict({
      change,
      ci,
      threshold,
      verdict,
      unit: reference.unit,
      confidence: options.confidence,
      method,
    }),
  };
}

/** Positive when the change is for the worse, whichever way the metric points. */
export function worsening(change: number, direction: Direction): number {
  return direction === 'higher-is-better' ? -change : change;
}

/** A change of exactly the threshold is within it, whatever floating point says. */
const FLOAT_TOLERANCE = 1e-9;

function decide(
  change: number,
  ci: [number, number] | null,
  direction: Direction,
  threshold: number | null,
): MetricVerdict {
  if (threshold === null) return 'unchanged';
  const worse = worsening(change, direction);
  const limit = threshold + FLOAT_TOLERANCE;
  // The interval in "worse" terms: both ends positive means surely worse.
  const worseInterval = ci
    ? ([worsening(ci[0], direction), worsening(ci[1], direction)].sort((a, b) => a - b) as [
        number,
        number,
      ])
    : null;
  if (worse > limit) {
    if (!worseInterval) return 'regression';
    return worseInterval[0] > 0 ? 'regression' : 'inconclusive';
  }
  if (-worse > limit) {
    if (!worseInterval) return 'improvement';
    // A possible improvement that might be noise is not worth a warning.
    return worseInterval[1] < 0 ? 'improvement' : 'unchanged';
  }
  return 'unchanged';
}

export type { IntervalMethod };
