import { OPEN_LEVEL, worseLog } from '../compare/compare.js';
import { correlatedLooks, lookSchedule, sequentialPlan } from '../compare/sequential.js';
import { GATE_FALSE_ALARM_RATE } from '../config/defaults.js';
import type { Direction, Metric } from '../model.js';
import { changeInterval } from '../stats/interval.js';
import { runsForPower, tTestPower } from '../stats/power.js';
import { sidakLevel } from '../stats/multiplicity.js';
import { median } from '../stats/percentile.js';
import { normal, seededRandom, type Random } from '../stats/rng.js';

export interface GateShape {
  /** Clean runs per gate run. */
  runs: number;
  /** Baseline records pooled into the baseline; each has `runs` runs. */
  baselineWindow: number;
  confirmRuns: number;
  confidence: number;
  /** Gated metrics of the benchmark that share the false-alarm budget (1 when unknown). */
  gatedMetrics?: number;
}

export interface Recommendation {
  /**
   * Smallest threshold (fraction) at which a true regression of twice the threshold is
   * caught 95% of the time, with false alarms under 1%.
   */
  threshold: number;
  /** Simulated false-alarm rate of this metric at that threshold (nothing changed). */
  falseAlarmRate: number;
  /** Simulated share of gate runs that fail on a true regression of twice the threshold. */
  power: number;
  /** True when no threshold tried reaches 95%: `threshold` is the largest tried, `power` its. */
  capped?: boolean;
}

const MAX_FALSE_ALARMS = 0.01;
const MIN_POWER = 0.95;
/** Candidate thresholds: 0.5% steps to 20%, then 1% steps to 45%. */
const CANDIDATES = [
  ...Array.from({ length: 40 }, (_, i) => (i + 1) * 0.005),
  ...Array.from({ length: 25 }, (_, i) => 0.21 + i * 0.01),
];

/**
 * Each look's per-metric test level, as the gate plans the looks for runs of one pooled
 * variance (sequential.ts: planLooks): Bonferroni's parts, the last raised by what the
 * correlation of the looks leaves (correlatedLooks), each at Šidák's level for the metrics.
 */
function gateLookLevels(shape: GateShape): number[] {
  const tests = Math.max(1, shape.gatedMetrics ?? 1);
  const baselineRuns = shape.runs * shape.baselineWindow;
  const pooled = {
    se: Math.sqrt(1 / shape.runs + 1 / baselineRuns),
    df: shape.runs + baselineRuns - 2,
    perRun: 1,
    runs: shape.runs,
  };
  const plan = sequentialPlan(GATE_FALSE_ALARM_RATE, shape.confirmRuns);
  return correlatedLooks(plan, [pooled], tests).budgets.map((b) => sidakLevel(b, tests));
}

/** What a threshold in use lets the gate see at this noise (the comment's "what this noise allows"). */
export interface Reach {
  threshold: number;
  /** Chance a regression of twice the threshold fails the gate with every run it may take. */
  power: number;
  /** Those runs: `runs` + `confirm-runs`. */
  runs: number;
  /** Clean runs a gate run would need for 95%; null when no number of them would. */
  runsFor95: number | null;
}

/**
 * The chance that a regression of twice `threshold` fails the gate when it takes every
 * run it may, at the last look's level, and the runs that would make it 95% (more runs a
 * side against the same baseline window): the t test's power for runs of this spread.
 */
export function reachAt(
  logSd: number,
  direction: Direction,
  threshold: number,
  shape: GateShape,
): Reach {
  const levels = gateLookLevels(shape);
  const level = levels[levels.length - 1]!;
  const baselineRuns = shape.runs * shape.baselineWindow;
  const runs = shape.runs + shape.confirmRuns;
  // Runs of one pooled variance against the baseline window's (interval.ts: logSpread).
  const spreadOf = (count: number) => ({
    se: logSd * Math.sqrt(1 / count + 1 / baselineRuns),
    df: count + baselineRuns - 2,
    perRun: logSd ** 2,
    runs: count,
  });
  const effect = worseLog(2 * threshold, direction);
  const floor = worseLog(threshold, direction);
  const power = tTestPower(effect, spreadOf(runs), level, floor);
  const needed = runsForPower(effect, spreadOf(2), level, 0.95, floor);
  return { threshold, power, runs, runsFor95: needed ?? null };
}

/**
 * The threshold to set for a metric with this much run-to-run noise. The gate's false
 * alarms are held by its budget whatever the threshold, so the threshold says which
 * change is worth failing for; below what the noise lets the gate see, a real regression
 * would pass as inconclusive. So: the smallest threshold at which a regression of twice
 * the threshold fails the gate 95% of the time, by the gate's own rule (its per-metric
 * test level, sequential confirmation runs), simulated with lognormal run values.
 */
export function recommendThreshold(
  logSd: number,
  direction: Direction,
  shape: GateShape,
  pairs = 2000,
  seed = 'calibrate',
): Recommendation {
  const random = seededRandom(seed);
  const levels = gateLookLevels(shape);
  // An interval on log values moves with a shift of every current run, so each pair is
  // simulated once, unchanged, and every threshold and regression are tried by shifting.
  const trials = Array.from({ length: pairs }, () =>
    simulatePair(logSd, direction, shape, levels, random),
  );
  const evaluate = (threshold: number) => {
    const limit = worseLog(threshold, direction);
    const reach = worseLog(2 * threshold, direction);
    return {
      falseAlarmRate: failRate(trials, limit, reach, 0),
      power: failRate(trials, limit, reach, reach),
    };
  };
  for (const threshold of CANDIDATES) {
    const rates = evaluate(threshold);
    if (rates.power >= MIN_POWER && rates.falseAlarmRate < MAX_FALSE_ALARMS) {
      return { threshold, ...rates };
    }
  }
  const largest = CANDIDATES[CANDIDATES.length - 1]!;
  return { threshold: largest, ...evaluate(largest), capped: true };
}

/**
 * One look at a pair, as log "worse": the change, the low end of the test interval and
 * the high end of the interval that says whether the answer is still open (compare.ts).
 */
interface Look {
  worse: number;
  worseLow: number | null;
  openHigh: number | null;
}

/** Share of pairs the gate fails when every current run is `shift` (log) worse. */
function failRate(trials: Look[][], limit: number, reach: number, shift: number): number {
  let fails = 0;
  for (const looks of trials) {
    for (const look of looks) {
      const beyond = look.worse + shift > limit + 1e-12;
      if (beyond && (look.worseLow === null || look.worseLow + shift > 0)) {
        fails += 1;
        break;
      }
      // The next batch of runs only while the answer is open: the interval reaches past
      // twice the threshold (compare.ts, OPEN_LEVEL).
      if (look.openHigh === null || look.openHigh + shift <= reach) break;
    }
  }
  return fails / trials.length;
}

function simulatePair(
  logSd: number,
  direction: Direction,
  shape: GateShape,
  levels: number[],
  random: Random,
): Look[] {
  const draw = (count: number) =>
    Array.from({ length: count }, () => Math.exp(logSd * normal(random)));
  const baseline = draw(shape.runs * shape.baselineWindow);
  const current = draw(shape.runs + shape.confirmRuns);
  const schedule = lookSchedule(shape.confirmRuns);
  return levels.map((level, look) =>
    judge(current.slice(0, shape.runs + schedule[look]!), baseline, direction, level),
  );
}

function judge(current: number[], baseline: number[], direction: Direction, level: number): Look {
  const metric = (values: number[]): Metric => ({ id: 'simulated', unit: '', direction, values });
  const sign = direction === 'higher-is-better' ? -1 : 1;
  const endsAt = (confidence: number) => {
    const { ci, change } = changeInterval(metric(current), metric(baseline), {
      confidence,
      seed: 'unused',
    });
    const ends = ci?.map((end) => sign * Math.log1p(end));
    return {
      low: ends ? Math.min(...ends) : null,
      high: ends ? Math.max(...ends) : null,
      change,
    };
  };
  const test = endsAt(1 - 2 * level);
  // The gate reports and judges the change of the interval's own estimator.
  const worse = sign * Math.log1p(test.change ?? median(current) / median(baseline) - 1);
  return { worse, worseLow: test.low, openHigh: endsAt(1 - 2 * OPEN_LEVEL).high };
}
