import { compareMetric } from '../compare/compare.js';
import type { Direction, Metric } from '../model.js';
import { normal, seededRandom, type Random } from '../stats/rng.js';

export interface GateShape {
  /** Clean runs per gate run. */
  runs: number;
  /** Baseline records pooled into the baseline; each has `runs` runs. */
  baselineWindow: number;
  confirmRuns: number;
  confidence: number;
}

export interface Recommendation {
  /** Smallest threshold (fraction) whose simulated false-alarm rate is under the target. */
  threshold: number;
  /** The simulated false-alarm rate at that threshold. */
  falseAlarmRate: number;
}

const TARGET_RATE = 0.01;
/** Candidate thresholds: 0.5% steps to 20%, then 1% steps to 100%. */
const CANDIDATES = [
  ...Array.from({ length: 40 }, (_, i) => (i + 1) * 0.005),
  ...Array.from({ length: 80 }, (_, i) => 0.21 + i * 0.01),
];

/**
 * The smallest threshold that keeps the gate's false-alarm rate under 1% for a metric with
 * this much run-to-run noise: A/A pairs (nothing changed) are simulated with lognormal
 * run values and judged by the gate's own rule, confirmation runs included.
 */
export function recommendThreshold(
  logSd: number,
  direction: Direction,
  shape: GateShape,
  pairs = 4000,
  seed = 'calibrate',
): Recommendation {
  const random = seededRandom(seed);
  // The intervals do not depend on the threshold, so each pair is judged once and the
  // candidate thresholds are tried on the stored changes.
  const trials = Array.from({ length: pairs }, () => simulatePair(logSd, direction, shape, random));
  for (const threshold of CANDIDATES) {
    const alarms = trials.filter(
      (t) => fails(t.first, threshold) && (!t.confirmed || fails(t.confirmed, threshold)),
    );
    const rate = alarms.length / pairs;
    if (rate < TARGET_RATE) return { threshold, falseAlarmRate: rate };
  }
  const largest = CANDIDATES[CANDIDATES.length - 1]!;
  return { threshold: largest, falseAlarmRate: Number.NaN };
}

/** A judged change as "how much worse" with the low end of its interval. */
interface Judged {
  worse: number;
  worseLow: number | null;
}

interface Trial {
  first: Judged;
  confirmed?: Judged;
}

function fails(judged: Judged, threshold: number): boolean {
  if (judged.worse <= threshold) return false;
  return judged.worseLow === null || judged.worseLow > 0;
}

function simulatePair(
  logSd: number,
  direction: Direction,
  shape: GateShape,
  random: Random,
): Trial {
  const draw = (count: number) =>
    Array.from({ length: count }, () => Math.exp(logSd * normal(random)));
  const baseline = draw(shape.runs * shape.baselineWindow);
  const current = draw(shape.runs);
  const first = judge(current, baseline, direction, shape.confidence);
  if (shape.confirmRuns === 0) return { first };
  return {
    first,
    confirmed: judge(
      [...current, ...draw(shape.confirmRuns)],
      baseline,
      direction,
      shape.confidence,
    ),
  };
}

function judge(
  current: number[],
  baseline: number[],
  direction: Direction,
  confidence: number,
): Judged {
  const metric = (values: number[]): Metric => ({ id: 'simulated', unit: '', direction, values });
  // Threshold 0 makes compareMetric compute the change and interval; the verdict is ours.
  const comparison = compareMetric(metric(current), metric(baseline), 0, {
    confidence,
    seed: 'unused',
  });
  const sign = direction === 'higher-is-better' ? -1 : 1;
  const worse = sign * (comparison.change ?? 0);
  const ends = comparison.ci?.map((end) => sign * end);
  return { worse, worseLow: ends ? Math.min(...ends) : null };
}
