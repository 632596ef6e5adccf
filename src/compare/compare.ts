import type { Comparison, Direction, Metric, MetricVerdict } from '../model.js';
import { estimate, estimatePair } from '../stats/estimate.js';
import { studentTQuantile } from '../stats/distributions.js';
import { optimisticSpread, runsForPower, tTestPower } from '../stats/power.js';
import {
  changeInterval,
  type ChangeInterval,
  type IntervalMethod,
  type StatedSpreads,
} from '../stats/interval.js';
import { withMoreRuns, type LogSpread } from '../stats/spread.js';
import type { WildRuns } from '../stats/outliers.js';
import {
  isOneValueSeries,
  ONE_VALUE_LEVEL,
  previousApart,
  type OneValueStep,
} from './one-value.js';
import { describeVerdict, type VerdictFacts } from './reason.js';
import { FEW_RUNS } from '../stats/history-spread.js';
import { figureEstimate } from './figure-estimate.js';

export interface CompareOptions {
  /** Confidence level of the intervals as a fraction (0.95). */
  confidence: number;
  /** Seeds the bootstrap; the same seed and data always give the same interval. */
  seed: string;
  /**
   * One-sided level of the regression test: the gate's false-alarm budget shared by every
   * gated metric (see family.ts). Without it, the shown interval decides, at (1 − confidence) / 2.
   */
  testLevel?: number;
  /**
   * Clean runs the action could still add (its confirmation runs left). Only with some
   * left is a metric marked open (worthConfirming) for more runs.
   */
  moreRuns?: number;
  /**
   * One-sided level the last look will test at (its part of the budget, family.ts), which
   * decides whether the runs left could settle an open metric. Without it, this look's.
   */
  settleLevel?: number;
  /**
   * This look may not fail the metric (an early look holds the tail metrics beside the
   * favoured one, judge.ts: JudgeOptions.holdTailMetrics): a regression it sees stays open
   * for the runs left.
   */
  held?: boolean;
  /** The benchmark's wild runs (stats/outliers.ts: wildRuns), for a second opinion without them. */
  wildRuns?: WildRuns;
  /** The spread each side's file states for this metric (compare/stated.ts). */
  stated?: StatedSpreads;
}

/**
 * Compares one metric of the current run with the same metric of the baseline:
 * a regression is a change worse than the threshold whose interval lies entirely on the
 * worse side of zero; beyond the threshold with an interval that includes zero is
 * inconclusive. With a `testLevel` below (1 − confidence) / 2 the worse side of zero is
 * judged on the wider interval of that level (the gate's budget for false alarms), while
 * the report shows the `confidence` interval. Without any interval (too little data) the
 * threshold alone decides.
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
  const estimated = currentValue === null ? undefined : figureEstimate(current, baseline);
  const base = {
    id: reference.id,
    unit: reference.unit,
    direction: reference.direction,
    baseline: baselineValue,
    current: currentValue,
    threshold,
    confidence: options.confidence,
    ...(estimated ? { estimate: estimated } : {}),
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
      reason:
        baselineValue === 0
          ? 'the baseline is 0, so a relative change is undefined'
          : 'a side is negative (a delta), so a relative change is undefined; shown, not judged',
    };
  }
  const shown = (1 - options.confidence) / 2;
  const levels: Levels = { shown, test: Math.min(options.testLevel ?? shown, shown) };
  const ratio = currentValue / baselineValue - 1;
  const { judged, oneValue, against } = withPreviousCommit(
    current!,
    baseline!,
    threshold,
    options,
    levels,
    judgeChange(current!, baseline!, threshold, options, levels, ratio),
  );
  // Confirmed by the previous commit's value: judged against the records without it.
  if (against !== baseline) base.baseline = estimate(against);
  // Wild runs (a noisy neighbour) widen the interval of all the runs until a 10% regression
  // hides in it. A second opinion without them (stats/outliers.ts) may add a regression,
  // never take one away: a slow current run may be the regression itself (a build that
  // makes some runs slow), so all the runs still decide everything but "regression".
  // One value a commit has no runs to leave out: its stored values' spikes are the noise
  // the previous commit's value tells a step from (one-value.ts).
  const wild = isOneValueSeries(current!, baseline!) ? undefined : options.wildRuns;
  const strict =
    wild && wild.baseline.length + wild.current.length > 0 && judged.verdict !== 'regression'
      ? judgeChange(current!, baseline!, threshold, options, levels, ratio, wild)
      : undefined;
  const chosen = holdRegression(strict?.verdict === 'regression' ? strict : judged, options);
  const { interval, verdict } = chosen;
  const { ci, method } = interval;
  // The change of the interval's own estimator, so that it always lies inside it; the
  // figures beside it (median, pooled percentile) only speak for each side.
  const change = interval.change ?? ratio;
  const basis = basisOf(interval);
  const worthConfirming =
    verdict !== 'regression' &&
    (chosen.worthConfirming || judged.worthConfirming || strict?.worthConfirming === true);
  // A regression was caught; otherwise the runs' noise without the wild runs, when there
  // are some, is what the gate sees a regression through (the second opinion above).
  const reach =
    verdict === 'regression'
      ? undefined
      : reachOf(
          (strict ?? judged).interval.spread,
          reference.direction,
          threshold,
          options,
          levels,
        );
  const settle =
    verdict === 'inconclusive' && !chosen.held && !oneValue
      ? settleRunsOf(interval.spread, reference.direction, change, threshold, options, levels)
      : undefined;
  return {
    ...base,
    change,
    ci,
    ...(basis ? { basis } : {}),
    method,
    verdict,
    ...(worthConfirming ? { worthConfirming } : {}),
    ...(interval.excluded ? { excludedRuns: interval.excluded } : {}),
    ...(reach ? { reach } : {}),
    ...noiseOf(interval),
    ...(oneValue ? { oneValue: oneValue.step } : {}),
    reason: describeVerdict({
      change,
      ci,
      threshold,
      verdict,
      unit: reference.unit,
      direction: reference.direction,
      confidence: options.confidence,
      method,
      testConfidence: 1 - 2 * levels.test,
      ...(chosen.held ? { held: true } : {}),
      ...(interval.drift ? { drift: true } : {}),
      ...(interval.spread?.history ? { history: interval.spread.history } : {}),
      ...(interval.spread?.historyRuns ? { historyRuns: interval.spread.historyRuns } : {}),
      ...(settle ? { settleRuns: settle } : {}),
      ...(interval.spread?.stated ? { stated: interval.spread.stated } : {}),
      ...(oneValue ? { oneValue } : {}),
      ...(interval.excluded ? { excluded: interval.excluded } : {}),
      ...(interval.pairing ? { pairing: interval.pairing } : {}),
      ...(ci ? {} : { samples: sampleCounts(current!, baseline!) }),
    }),
  };
}

/** The level the last look will test at (settleLevel), never stricter than this look's. */
function settleLevelOf(options: CompareOptions, levels: Levels): number {
  return Math.max(levels.test, Math.min(options.settleLevel ?? 0, levels.shown));
}

/** The power the users' runs should reach at twice a threshold (docs/statistics.md). */
const REACH_TARGET = 0.95;

/**
 * What this metric's noise allows (Comparison.reach): the chance that a regression of
 * twice the threshold fails the gate with every run it may take, at the level the last
 * look tests at, when under REACH_TARGET; undefined otherwise or without a t spread.
 */
function reachOf(
  spread: LogSpread | undefined,
  direction: Direction,
  threshold: number | null,
  options: CompareOptions,
  levels: Levels,
): Comparison['reach'] {
  if (!spread || threshold === null || spread.runs === undefined) return undefined;
  const more = options.moreRuns ?? 0;
  const level = settleLevelOf(options, levels);
  const effect = worseLog(2 * threshold, direction);
  const floor = worseLog(threshold, direction);
  // Said only when even the low end of the spread's own uncertainty falls short.
  const best = tTestPower(effect, withMoreRuns(optimisticSpread(spread), more), level, floor);
  if (best >= REACH_TARGET) return undefined;
  const power = tTestPower(effect, withMoreRuns(spread, more), level, floor);
  if (power >= REACH_TARGET) return undefined;
  const runsFor95 = runsForPower(effect, spread, level, REACH_TARGET, floor);
  return { power, runs: spread.runs + more, runsFor95: runsFor95 ?? null };
}

/**
 * An inconclusive metric of few current runs (FEW_RUNS) with no stored history to learn
 * its noise from (history-spread.ts): the fewest current runs with which a change as large
 * as this one would fail 95% of the time at the level the last look tests at (runsForPower,
 * the baseline as it is), null when no number would. Undefined for any other metric.
 */
function settleRunsOf(
  spread: LogSpread | undefined,
  direction: Direction,
  change: number,
  threshold: number | null,
  options: CompareOptions,
  levels: Levels,
): VerdictFacts['settleRuns'] {
  if (!spread || spread.history || threshold === null || spread.runs === undefined)
    return undefined;
  if (spread.runs > FEW_RUNS) return undefined;
  const effect = Math.log1p(Math.max(worsening(change, direction), -0.999));
  const floor = worseLog(threshold, direction);
  const needed = runsForPower(effect, spread, settleLevelOf(options, levels), REACH_TARGET, floor);
  return { runs: spread.runs, needed: needed ?? null };
}

/** A worsening by `fraction` as a log ratio: 10% slower is ln 1.1, 10% less throughput −ln 0.9. */
export function worseLog(fraction: number, direction: Direction): number {
  return direction === 'higher-is-better'
    ? -Math.log1p(-Math.min(fraction, 0.999))
    : Math.log1p(fraction);
}

/** One-sided levels: the shown interval's, (1 − confidence) / 2, and the test's, at most that. */
interface Levels {
  shown: number;
  test: number;
}

interface JudgedChange {
  interval: ChangeInterval;
  verdict: MetricVerdict;
  worthConfirming: boolean;
  /** A regression this look may not call (CompareOptions.held): inconclusive, open for the runs left. */
  held?: boolean;
}

/** A held metric's regression as an open change the runs left will decide (CompareOptions.held). */
function holdRegression(judged: JudgedChange, options: CompareOptions): JudgedChange {
  if (!options.held || judged.verdict !== 'regression') return judged;
  const worthConfirming = (options.moreRuns ?? 0) > 0;
  return { ...judged, verdict: 'inconclusive', worthConfirming, held: true };
}

/**
 * The verdict of one interval of the change (the shown one, the test's and the open
 * bound's), of all the runs or without the outlier runs.
 */
function judgeChange(
  current: Metric,
  baseline: Metric,
  threshold: number | null,
  options: CompareOptions,
  levels: Levels,
  ratio: number,
  withoutRuns?: WildRuns,
): JudgedChange {
  const at = (confidence: number) =>
    changeInterval(current, baseline, {
      confidence,
      seed: `${options.seed}/${current.id}`,
      ...(withoutRuns ? { withoutRuns } : {}),
      ...(options.stated ? { stated: options.stated } : {}),
    });
  const interval = at(options.confidence);
  const { ci } = interval;
  // Without an interval, current ÷ baseline − 1 (the threshold alone decides).
  const change = interval.change ?? ratio;
  const testCi = ci && levels.test !== levels.shown ? at(1 - 2 * levels.test).ci : ci;
  const verdict = decide(change, ci, testCi, current.direction, threshold);
  // Open: not a regression yet, and the runs cannot rule out one of twice the threshold
  // (the upper end of the one-sided OPEN_LEVEL bound lies beyond it), while the runs left
  // could tell (settleable). A metric whose bound stays within twice its threshold is
  // settled as "same"; one that all the runs left could not settle, as well.
  const moreRuns = options.moreRuns ?? 0;
  const worthConfirming =
    moreRuns > 0 &&
    verdict !== 'regression' &&
    threshold !== null &&
    ci !== null &&
    settleable(
      interval.spread,
      moreRuns,
      settleLevelOf(options, levels),
      threshold,
      Math.log1p(worsening(change, current.direction)),
    ) &&
    reachesBeyond(at(1 - 2 * OPEN_LEVEL).ci, current.direction, 2 * threshold);
  return { interval, verdict, worthConfirming };
}

/**
 * One value a commit judged on its stored history (one-value.ts): a value beyond the
 * noise at ONE_VALUE_LEVEL fails when the previous commit's value was beyond
 * it too (judged against the records without it); alone, it is inconclusive.
 */
function withPreviousCommit(
  current: Metric,
  baseline: Metric,
  threshold: number | null,
  options: CompareOptions,
  levels: Levels,
  judged: JudgedChange,
): { judged: JudgedChange; oneValue?: OneValueStep; against: Metric } {
  const unchanged = { judged, against: baseline };
  if (!isOneValueSeries(current, baseline)) return unchanged;
  const eachLevel: Levels = { shown: levels.shown, test: ONE_VALUE_LEVEL };
  const judge = (now: Metric, before: Metric) =>
    judgeChange(now, before, threshold, options, eachLevel, estimateRatio(now, before));
  // Against the records without the previous value, which would widen the noise it is
  // judged by when it is the step's first commit.
  const apart = previousApart(baseline);
  const previous = apart && judge(apart.previous, apart.rest);
  if (apart && previous?.interval.ci && previous.verdict === 'regression') {
    const confirmed = judge(current, apart.rest);
    if (confirmed.verdict === 'regression') {
      const step = { step: 'confirmed', previous: previous.interval.change ?? 0 } as const;
      return { judged: confirmed, oneValue: step, against: apart.rest };
    }
  }
  const alone = judge(current, baseline);
  if (alone.verdict !== 'regression' && judged.verdict !== 'regression') return unchanged;
  const first: JudgedChange = {
    ...alone,
    verdict: 'inconclusive',
    worthConfirming: judged.worthConfirming,
  };
  return { judged: first, oneValue: { step: 'first' }, against: baseline };
}

/** The figures the change is the ratio of (Comparison.basis), when the interval has them. */
function basisOf(interval: ChangeInterval): Comparison['basis'] {
  if (!interval.from) return undefined;
  const estimator =
    interval.method === 'request-bootstrap' ? 'request-percentile' : 'geometric-mean';
  return { estimator, ...interval.from };
}

/** Where the noise of one value a side came from, for report.json (Comparison.noise). */
function noiseOf(interval: ChangeInterval): Pick<Comparison, 'noise'> {
  const spread = interval.spread;
  if (spread?.history) return { noise: { storedRecords: spread.history } };
  if (spread?.stated) return { noise: { statedRange: spread.stated } };
  return {};
}

function estimateRatio(current: Metric, baseline: Metric): number {
  const pair = estimatePair(current, baseline);
  return pair.current !== null && pair.baseline ? pair.current / pair.baseline - 1 : 0;
}

/** Positive when the change is for the worse, whichever way the metric points. */
export function worsening(change: number, direction: Direction): number {
  return direction === 'higher-is-better' ? -change : change;
}

/** A change of exactly the threshold is within it, whatever floating point says. */
const FLOAT_TOLERANCE = 1e-9;

/**
 * One-sided level of the bound that keeps a metric open for more runs: while the upper
 * end of its 99% interval (in "worse" terms) lies beyond twice its threshold, the runs can
 * rule out neither a regression nor its absence. A true regression of twice the threshold
 * is wrongly settled as "same" at a look with at most this chance. Looser (a lower level),
 * and unchanged code pays for runs that rarely change the answer; stricter, and real
 * regressions pass as "same". At 1% (its value before older records lent their spread)
 * 2.4% of 10% slowdowns at run CV 5% were settled as "same" over the looks; with the lent
 * spread, which settles unchanged code sooner, 0.5% found 96.7% instead of 95.3% of them
 * for 1.29 confirmation runs per unchanged pull request instead of 0.87 (1.21 before the
 * lent spread), and 0.25% the same 96.7% for 1.87 (bench:accuracy, 300 pull requests).
 */
export const OPEN_LEVEL = 0.005;

/**
 * Whether `more` runs could settle the change: with them, the test's half-width (at the
 * level the last look tests at, on logs; an earlier look's level is stricter, and judging
 * by it gave up on 2% of 10% slowdowns at run CV 5% whose first runs happened to scatter
 * widely) would be below the change seen or twice the threshold, whichever
 * is larger, so a regression of that size would be clear at least half the time. The
 * baseline's own noise and day-to-day drift do not shrink with more current runs, and a
 * metric whose noise is as large as the threshold (heavy tails) cannot be settled by any
 * affordable number of runs: taking them would only cost accelerator minutes. Without a
 * Student-t spread (a request bootstrap of one run a side) more runs are the only way to
 * learn the noise.
 */
function settleable(
  spread: LogSpread | undefined,
  more: number,
  testLevel: number,
  threshold: number,
  worseLog: number,
): boolean {
  if (!spread) return true;
  const projected = withMoreRuns(spread, more);
  const halfWidth = studentTQuantile(1 - testLevel, projected.df) * projected.se;
  return halfWidth < Math.max(worseLog, Math.log1p(2 * threshold));
}

/** Whether an interval reaches further than `limit` to the worse side. */
function reachesBeyond(ci: [number, number] | null, direction: Direction, limit: number): boolean {
  const worse = worseInterval(ci, direction);
  return worse !== null && worse[1] > limit + FLOAT_TOLERANCE;
}

function decide(
  change: number,
  ci: [number, number] | null,
  testCi: [number, number] | null,
  direction: Direction,
  threshold: number | null,
): MetricVerdict {
  if (threshold === null) return 'unchanged';
  const worse = worsening(change, direction);
  const limit = threshold + FLOAT_TOLERANCE;
  if (worse > limit) {
    // The test interval in "worse" terms: both ends positive means surely worse.
    const tested = worseInterval(testCi, direction);
    // Without an interval (one run a side, MFU against a one-record baseline) the
    // threshold alone decides: a regression users would call one must fail. Such a
    // verdict says "low confidence" and lies outside the per-gate false-alarm budget.
    if (!tested) return 'regression';
    return tested[0] > 0 ? 'regression' : 'inconclusive';
  }
  if (-worse > limit) {
    const shown = worseInterval(ci, direction);
    if (!shown) return 'improvement';
    // A possible improvement that might be noise is not worth a warning.
    return shown[1] < 0 ? 'improvement' : 'unchanged';
  }
  return 'unchanged';
}

function worseInterval(ci: [number, number] | null, direction: Direction): [number, number] | null {
  if (!ci) return null;
  return [worsening(ci[0], direction), worsening(ci[1], direction)].sort((a, b) => a - b) as [
    number,
    number,
  ];
}

export type { IntervalMethod };

/** The fewest per-request samples a side has, for a verdict without an interval. */
function sampleCounts(current: Metric, baseline: Metric): { fewest: number; percentile: boolean } {
  const count = (metric: Metric) => (metric.samples ?? []).reduce((n, run) => n + run.length, 0);
  return {
    fewest: Math.min(count(current), count(baseline)),
    percentile: (current.percentile ?? baseline.percentile) !== undefined,
  };
}
