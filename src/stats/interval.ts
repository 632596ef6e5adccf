// The confidence interval of a relative change (current / baseline − 1).
//
// With several runs per side the runs are the unit of evidence: a Student-t interval on
// the log of the per-run values, centred on the difference of their mean logs, with one
// run-to-run variance pooled over both sides (Welch's when one side clearly scatters
// more; spread.ts). It stays honest with 3 runs, where a bootstrap of 3 values is far
// too narrow; and because each run's value already carries that run's
// request-level noise, drift between runs is never hidden by thousands of requests.
// With a single run per side but per-request samples, requests are the only evidence: a
// seeded bootstrap of the percentile (request-bootstrap.ts; run-to-run drift is then not
// covered, and the method says so). With neither, there is no interval.
// When the baseline's stored records (gate runs on other days) differ from each other by
// more than their runs do, that day-to-day drift is added to the interval (day-drift.ts):
// the current runs share one day, which their own scatter cannot show. Older stored
// records beyond the baseline's own (Metric.olderRecords) lend their spread to that
// day-to-day variance (5 records know it by 4 degrees of freedom, 20 by 19) and, when no
// drift is found, their runs' scatter to the run-to-run variance (lent-variance.ts), never
// their level to the baseline's figure.
// Runs whose log values are skewed (the P99 of 50 heavy-tailed requests) stretch the end
// of the interval that decides a regression (skewness.ts), which a symmetric t interval
// leaves too short for the gate's far-tail test.

import type { Metric } from '../model.js';
import { normalQuantile, studentTQuantile } from './distributions.js';
import type { WildRuns } from './outliers.js';
import {
  cautiousSkewness,
  clearlySkewed,
  pooledSkewness,
  quantileShift,
  type Skewness,
} from './skewness.js';
import { blockPairing, pairedSpread, type BlockGap } from './paired.js';
import { meanOf } from './mean.js';
import { driftSpread } from './day-drift.js';
import { historySpread } from './history-spread.js';
import { requestBootstrap } from './request-bootstrap.js';
import { logSpread, type LogSpread } from './spread.js';
import { lentSpread, olderBlockSquares } from './lent-variance.js';
import { valuesByRecord } from './records.js';

export type IntervalMethod = 'student-t' | 'paired-t' | 'request-bootstrap' | 'none';

export interface ChangeInterval {
  ci: [number, number] | null;
  method: IntervalMethod;
  /**
   * The change the interval is built around (its estimator: the ratio of the geometric
   * means of the runs, or of the percentiles of the requests): the change to report beside
   * it, so that the figure never lies outside its own interval. Null without an interval.
   */
  change: number | null;
  /**
   * The two figures `change` is the ratio of (current / baseline − 1): the geometric means
   * of the runs left in, or the percentiles of the requests. Absent for a paired interval,
   * whose change is the mean of its blocks' changes, and without an interval.
   */
  from?: { baseline: number; current: number };
  /** Whether the baseline's records differ by more than their runs do (day-to-day drift), so their spread widened the interval. */
  drift?: boolean;
  /** The Student-t interval's spread, for projecting it to more current runs (moreRunsSe). */
  spread?: LogSpread;
  /** Runs left out of it (`withoutRuns`), for the row to name. */
  excluded?: ExcludedRun[];
  /**
   * Sides measured in blocks (A/B) where a block lacks one side: the blocks paired and
   * those left out. With fewer than two paired there is no interval (method `none`).
   */
  pairing?: { paired: number; gaps: BlockGap[] };
}

/** A run left out as an outlier: its side and how far it lay from the other runs of its group. */
export interface ExcludedRun {
  side: 'baseline' | 'current';
  /** exp(ln run − mean ln of the others) − 1: 0.31 is 31% higher than the others. */
  change: number;
}

export interface IntervalOptions {
  /** Confidence level as a fraction, e.g. 0.95. */
  confidence: number;
  /** Seeds the bootstrap, so the same inputs always give the same interval. */
  seed: string;
  /** Bootstrap replicates. */
  replicates?: number;
  /**
   * Runs to leave out, by index in each side's `values`: the wild runs (outliers.ts), for a
   * second opinion that may only add a regression to the verdict of all the runs
   * (compare.ts), never take one away.
   */
  withoutRuns?: WildRuns;
  /** The relative SD each side's file states for its one value (compare/stated.ts). */
  stated?: StatedSpreads;
}

/** Relative SDs the two sides' files state for their one value each. */
export interface StatedSpreads {
  current: number;
  baseline: number;
}

/**
 * Degrees of freedom a stated spread is taken as known to: a range of a few dozen
 * iterations, and within one run, so no better known than that.
 */
const STATED_DF = 10;

/** Fewer requests than this per side make a request bootstrap meaningless. */
export const MIN_BOOTSTRAP_SAMPLES = 20;

export function changeInterval(
  currentIn: Metric,
  baselineIn: Metric,
  options: IntervalOptions,
): ChangeInterval {
  // A/B mode: both sides measured in the same blocks are judged within them (paired.ts).
  const paired = pairedInterval(currentIn, baselineIn, options.confidence);
  if (paired) return paired;
  const leftOut = options.withoutRuns;
  const now = withoutRuns(currentIn, leftOut?.current ?? [], 'current');
  const before = withoutRuns(baselineIn, leftOut?.baseline ?? [], 'baseline');
  const current = now.metric;
  const baseline = before.metric;
  const excluded = [...before.excluded, ...now.excluded];
  const currentLogs = logValues(current.values);
  const baselineRecords = recordLogs(baseline);
  const baselineLogs = baselineRecords.flat();
  if (currentLogs.length >= 1 && baselineLogs.length >= 1) {
    const older = olderLogs(baseline);
    // One or two current runs with a stored history of records as large: the spread of the
    // record means (history-spread.ts), which holds the day-to-day drift too, whether or
    // not an F test sees it, and never the current runs' own one degree of freedom.
    const history = historySpread(currentLogs, baselineRecords, older);
    const drift = history ? undefined : driftSpread(currentLogs, baselineRecords, older);
    const skew = cautiousSkewness(runsSkewness(currentLogs, baselineLogs, older));
    const spread =
      history ??
      drift ??
      // Without drift (its F test found none) the older records lend their spread
      // (lent-variance.ts) to runs not clearly skewed (cautiousSkewness: none within two
      // standard errors, which the nearly symmetric geomean's runs pass by chance a third
      // of the time beyond one): skewed runs (a P99, a throughput of
      // heavy-tailed requests) keep the runs' own degrees of freedom, whose heavier t tails
      // the skewness correction was measured with (lent to them too, `compare` failed 1.0%
      // of unchanged heavy-tailed pull requests instead of 0.5%). The runs alone, too, when
      // they scatter differently or Welch's test applies.
      (skew === 0
        ? lentSpread(currentLogs, baselineLogs, olderBlockSquares(older, baselineRecords.length))
        : undefined) ??
      logSpread(currentLogs, baselineLogs, skew) ??
      statedLogSpread(currentLogs, baselineLogs, options.stated);
    if (spread) {
      // Centred on the difference of mean logs: the estimator whose spread the t interval
      // describes (centring it on the ratio of medians lets noise through more often).
      const center = meanOf(currentLogs) - meanOf(baselineLogs);
      const tail = (1 - options.confidence) / 2;
      const t = studentTQuantile(1 - tail, spread.df);
      // Skewed runs (skewness.ts) stretch the end that decides a regression (the lower
      // end of a latency's change, the upper end of a throughput's) when their tail reaches
      // that way; never the other end, which decides improvements and whether more runs
      // could help, and never narrower than the plain t interval.
      const shift = spread.skew ? quantileShift(spread.skew, normalQuantile(1 - tail)) : 0;
      const higherIsBetter = currentIn.direction === 'higher-is-better';
      return {
        ci: expInterval(
          center - (t + (higherIsBetter ? 0 : Math.max(0, shift))) * spread.se,
          center + (t + (higherIsBetter ? Math.max(0, -shift) : 0)) * spread.se,
        ),
        method: 'student-t',
        change: Math.expm1(center),
        from: {
          baseline: Math.exp(meanOf(baselineLogs)),
          current: Math.exp(meanOf(currentLogs)),
        },
        ...(drift ? { drift: true } : {}),
        spread,
        ...(excluded.length > 0 ? { excluded } : {}),
      };
    }
  }
  const percentile = current.percentile ?? baseline.percentile;
  const currentSamples = current.samples?.[0];
  const baselineSamples = baseline.samples?.[0];
  if (
    percentile !== undefined &&
    current.samples?.length === 1 &&
    baseline.samples?.length === 1 &&
    currentSamples &&
    baselineSamples &&
    currentSamples.length >= MIN_BOOTSTRAP_SAMPLES &&
    baselineSamples.length >= MIN_BOOTSTRAP_SAMPLES
  ) {
    return {
      ...requestBootstrap(currentSamples, baselineSamples, percentile, options),
      method: 'request-bootstrap',
    };
  }
  return { ci: null, method: 'none', change: null };
}

/**
 * Whether a metric's per-run log values are skewed towards its worse side (a latency's
 * slow tail, a throughput's low one) beyond chance (skewness.ts: clearlySkewed), the
 * current runs one group, the baseline's and the older records' runs another. Never for
 * sides measured in the same blocks (A/B): they are judged within the blocks (paired.ts),
 * and their runs' spread across blocks is the host's drift, not a tail of the requests.
 */
export function skewedTowardsWorse(current: Metric, baseline: Metric): boolean {
  if (current.blocks && baseline.blocks) return false;
  const skewness = runsSkewness(
    logValues(current.values),
    recordLogs(baseline).flat(),
    olderLogs(baseline),
  );
  return clearlySkewed(skewness, current.direction === 'higher-is-better' ? -1 : 1);
}

/**
 * The skewness of the runs' log values, the current runs one group and the baseline's and
 * older records' runs another: residuals within records of 3 keep only 40% of it.
 */
function runsSkewness(
  currentLogs: number[],
  baselineLogs: number[],
  older: number[][],
): Skewness | undefined {
  return pooledSkewness([currentLogs, [...baselineLogs, ...older.flat()]]);
}

/**
 * The Student-t interval of the paired change when both sides carry the blocks of their
 * runs; undefined otherwise. Outlier runs are not left out: that would break the blocks.
 * Blocks with one side only are left out; with fewer than two blocks of both sides there
 * is no interval (runs of different blocks are never compared: the host's drift between
 * them would be in the change). Values that are not positive (no log) fall back to the
 * unpaired interval.
 */
function pairedInterval(
  current: Metric,
  baseline: Metric,
  confidence: number,
): ChangeInterval | undefined {
  if (!current.blocks || !baseline.blocks) return undefined;
  const now = { values: current.values, blocks: current.blocks };
  const before = { values: baseline.values, blocks: baseline.blocks };
  const paired = pairedSpread(now, before);
  if (!paired) {
    const pairing = blockPairing(now, before);
    if (pairing.paired + pairing.gaps.length === 0) return undefined;
    return { ci: null, method: 'none', change: null, pairing };
  }
  const { center, se, df, perRun, runs, gaps } = paired;
  const t = studentTQuantile(1 - (1 - confidence) / 2, df);
  return {
    ci: expInterval(center - t * se, center + t * se),
    method: 'paired-t',
    change: Math.expm1(center),
    spread: { se, df, perRun, runs },
    ...(gaps.length > 0 ? { pairing: { paired: runs, gaps } } : {}),
  };
}

/**
 * The metric without some of its runs (by index in `values`, then on through the runs of
 * `olderRecords`; the baseline's `records` shrink with them), and how far each left-out
 * run lay from the kept runs of its side.
 */
function withoutRuns(
  metric: Metric,
  drop: readonly number[],
  side: 'baseline' | 'current',
): { metric: Metric; excluded: ExcludedRun[] } {
  if (drop.length === 0) return { metric, excluded: [] };
  const dropped = new Set(drop);
  const values = metric.values.filter((_, i) => !dropped.has(i));
  const keptLogs = logValues(values);
  const center = keptLogs.length > 0 ? meanOf(keptLogs) : 0;
  const excluded = metric.values
    .filter((v, i) => dropped.has(i) && Number.isFinite(v) && v > 0)
    .map((v) => ({ side, change: Math.expm1(Math.log(v) - center) }));
  let records: number[] | undefined;
  if (metric.records) {
    let start = 0;
    records = metric.records
      .map((size) => {
        const first = start;
        start += size;
        return size - drop.filter((i) => i >= first && i < first + size).length;
      })
      .filter((size) => size > 0);
  }
  const shrunk: Metric = { ...metric, values };
  if (records) shrunk.records = records;
  else delete shrunk.records;
  if (metric.olderRecords) {
    let index = metric.values.length;
    const older: number[][] = [];
    for (const record of metric.olderRecords) {
      const kept = record.filter((v, i) => {
        const keep = !dropped.has(index + i);
        if (!keep && Number.isFinite(v) && v > 0) {
          excluded.push({ side, change: Math.expm1(Math.log(v) - center) });
        }
        return keep;
      });
      index += record.length;
      if (kept.length > 0) older.push(kept);
    }
    shrunk.olderRecords = older;
  }
  return { metric: shrunk, excluded };
}

function logValues(values: number[]): number[] {
  return values.filter((value) => Number.isFinite(value) && value > 0).map(Math.log);
}

/**
 * The baseline's log values record by record (`records` says how many values each stored
 * record brought; without it, all values are one record).
 */
function recordLogs(metric: Metric): number[][] {
  const groups = valuesByRecord(metric);
  if (groups.length === 1) return [logValues(metric.values)];
  return groups.map(logValues).filter((group) => group.length > 0);
}

/** The log values of the older records that only teach the day-to-day spread, by record. */
function olderLogs(metric: Metric): number[][] {
  return (metric.olderRecords ?? []).map(logValues).filter((group) => group.length > 0);
}

function expInterval(low: number, high: number): [number, number] {
  return [Math.expm1(low), Math.expm1(high)];
}

/** One value a side with the spreads their files state: the noise of last resort. */
function statedLogSpread(
  current: readonly number[],
  baseline: readonly number[],
  stated: StatedSpreads | undefined,
): LogSpread | undefined {
  if (!stated || current.length !== 1 || baseline.length !== 1) return undefined;
  return { se: Math.hypot(stated.current, stated.baseline), df: STATED_DF, stated };
}
