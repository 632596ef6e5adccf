// The confidence interval of a relative change (current / baseline − 1).
//
// With several runs per side the runs are the unit of evidence: a Student-t interval on
// the log of the per-run values, centred on the difference of their mean logs, with one
// run-to-run variance pooled over both sides (Welch's when one side clearly scatters
// more; see logSpread). It stays honest with 3 runs, where a bootstrap of 3 values is far
// too narrow; and because each run's value already carries that run's
// request-level noise, drift between runs is never hidden by thousands of requests.
// With a single run per side but per-request samples, requests are the only evidence: a
// seeded bootstrap of the percentile (run-to-run drift is then not covered, and the
// method says so). With neither, there is no interval.
// When the baseline's stored records (gate runs on other days) differ from each other by
// more than their runs do, that day-to-day drift is added to the interval (driftSpread):
// the current runs share one day, which their own scatter cannot show. Older stored
// records beyond the baseline's own (Metric.olderRecords) lend their spread to that
// day-to-day variance only: 5 records know it by 4 degrees of freedom, 20 by 19.
// Runs whose log values are skewed (the P99 of 50 heavy-tailed requests) stretch the end
// of the interval that decides a regression (skewness.ts), which a symmetric t interval
// leaves too short for the gate's far-tail test.

import type { Metric, SampleRun } from '../model.js';
import { normalQuantile, regularizedIncompleteBeta, studentTQuantile } from './distributions.js';
import type { WildRuns } from './outliers.js';
import { percentile as percentileOf } from './percentile.js';
import { beta, seededRandom, type Random } from './rng.js';
import {
  cautiousSkewness,
  pooledSkewness,
  quantileShift,
  skewTerms,
  type SkewSide,
  type SkewTerms,
} from './skewness.js';
import { pairedSpread } from './paired.js';
import { sortedSamples } from './sorted.js';
import { meanOf } from './mean.js';

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
  /** Whether the baseline's records differ by more than their runs do (day-to-day drift), so their spread widened the interval. */
  drift?: boolean;
  /** The Student-t interval's spread, for projecting it to more current runs (moreRunsSe). */
  spread?: LogSpread;
  /** Runs left out of it (`withoutRuns`), for the row to name. */
  excluded?: ExcludedRun[];
}

/** A run left out as an outlier: its side and how far it lay from the other runs of its group. */
export interface ExcludedRun {
  side: 'baseline' | 'current';
  /** exp(ln run − mean ln of the others) − 1: 0.31 is 31% higher than the others. */
  change: number;
}

/**
 * Standard error and degrees of freedom of the difference of mean logs, with what of its
 * variance shrinks with more current runs: `perRun` / `runs` of it.
 */
export interface LogSpread {
  se: number;
  df: number;
  /** Variance of one current run's log value, as the standard error counts it. */
  perRun?: number;
  /** Current runs the standard error is of. */
  runs?: number;
  /** Whether day-to-day drift is in it (driftSpread). */
  drift?: boolean;
  /** The day-to-day variance τ² of the log values in it (driftSpread), and its degrees of freedom. */
  dayVariance?: number;
  dayDf?: number;
  /**
   * A drift spread's two parts for Satterthwaite's df: the days' share of the variance
   * (τ² as the difference carries it) and the within-day variance's degrees of freedom.
   */
  dayPart?: number;
  withinDf?: number;
  /**
   * Skewness terms of the studentized difference when the runs' log values are skewed
   * (skewness.ts; not for drift spreads): the end that decides a regression is stretched
   * when the tail reaches that way.
   */
  skew?: SkewTerms;
}

/**
 * The spread with `more` current runs added: the baseline's part and day-to-day drift stay,
 * the current runs' part shrinks, and their degrees of freedom add to a pooled or Welch
 * spread's; a drift spread's are Satterthwaite's again, with more within-day df but the
 * days' part still known from its records only: how far more runs could narrow the interval.
 */
export function withMoreRuns(spread: LogSpread, more: number): { se: number; df: number } {
  if (spread.perRun === undefined || spread.runs === undefined || more <= 0) return spread;
  const variance = Math.max(
    0,
    spread.se ** 2 - spread.perRun / spread.runs + spread.perRun / (spread.runs + more),
  );
  const se = Math.sqrt(variance);
  const { dayPart, dayDf, withinDf } = spread;
  if (!spread.drift) return { se, df: spread.df + more };
  if (dayPart === undefined || dayDf === undefined || withinDf === undefined) {
    return { se, df: spread.df };
  }
  const runPart = variance - dayPart;
  const df = variance ** 2 / (dayPart ** 2 / dayDf + runPart ** 2 / (withinDf + more));
  return { se, df: Math.max(1, df) };
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
}

const DEFAULT_REPLICATES = 2000;
/** Fewer requests than this per side make a request bootstrap meaningless. */
const MIN_BOOTSTRAP_SAMPLES = 20;

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
    const drift = driftSpread(currentLogs, baselineRecords, older);
    const spread =
      drift ??
      logSpread(
        currentLogs,
        baselineLogs,
        // Without drift (its F test found none) the baseline's and the older records' runs
        // are one group: residuals within records of 3 keep only 40% of the skewness.
        cautiousSkewness(pooledSkewness([currentLogs, [...baselineLogs, ...older.flat()]])),
      );
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
 * The Student-t interval of the paired change when both sides carry the blocks of their
 * runs; undefined otherwise. Outlier runs are not left out: that would break the blocks.
 */
function pairedInterval(
  current: Metric,
  baseline: Metric,
  confidence: number,
): ChangeInterval | undefined {
  if (!current.blocks || !baseline.blocks) return undefined;
  const paired = pairedSpread(
    { values: current.values, blocks: current.blocks },
    { values: baseline.values, blocks: baseline.blocks },
  );
  if (!paired) return undefined;
  const { center, se, df, perRun, runs } = paired;
  const t = studentTQuantile(1 - (1 - confidence) / 2, df);
  return {
    ci: expInterval(center - t * se, center + t * se),
    method: 'paired-t',
    change: Math.expm1(center),
    spread: { se, df, perRun, runs },
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
  const sizes = metric.records;
  if (!sizes || sizes.length < 2 || sizes.reduce((s, n) => s + n, 0) !== metric.values.length) {
    return [logValues(metric.values)];
  }
  const groups: number[][] = [];
  let start = 0;
  for (const size of sizes) {
    groups.push(logValues(metric.values.slice(start, start + size)));
    start += size;
  }
  return groups.filter((group) => group.length > 0);
}

/** The log values of the older records that only teach the day-to-day spread, by record. */
function olderLogs(metric: Metric): number[][] {
  return (metric.olderRecords ?? []).map(logValues).filter((group) => group.length > 0);
}

/**
 * Level of the F test that decides whether the baseline's records (days) differ more than
 * their runs do. Drift it misses lets false alarms through (with the window's 5 records
 * alone, 2.2% of gate runs without the test, 0.5% at 5%, 1.1% at 1% in bench:accuracy),
 * while drift it sees where there is none costs detection: the interval becomes wide and
 * the confirmation runs are not taken (at 5% with 20 stored records, 4% of 10% slowdowns
 * at run CV 5% were lost so). Few records see little, so the test is lenient with them;
 * from DRIFT_MANY_RECORDS on (19 degrees of freedom with the 20 stored by default) it
 * sees a day CV of 2% at run CV 1.5% every time at the stricter level.
 */
export function driftTestLevel(records: number): number {
  return records >= DRIFT_MANY_RECORDS ? 0.01 : 0.05;
}

/** Records (the window's and the older) from which the drift test is strict (driftTestLevel). */
const DRIFT_MANY_RECORDS = 10;

/**
 * Standard error and degrees of freedom of the difference of mean logs when the
 * baseline's records differ by more than their runs do (day-to-day drift: another
 * machine, a driver update, a warmer room). A one-way random-effects model, runs within
 * records: the current runs all share one day, so the day-to-day variance τ² enters in
 * full for them and once more through the baseline's mean of records, while the
 * run-to-run variance σ² is pooled within the records and within the current runs.
 * τ² is the ANOVA estimate from the record means, (MSB − MSW) / n0, and the degrees of
 * freedom are Satterthwaite's over the two components: with little drift they stay near
 * those of σ², with much drift they fall towards the records' count − 1, so that five
 * records give an honestly wide interval. Undefined when an F test of the record means
 * against the runs within them finds no drift at driftTestLevel, or there are fewer
 * than two records (then a run is a run: logSpread).
 *
 * `older` records (stored beyond the baseline's window, same benchmark and environment)
 * join the records in the ANOVA only: in σ², in the record means of τ² and its F test,
 * never in the baseline's mean, whose own records alone weigh the drift of its estimate.
 * Five records that happen to agree then no longer hide a drift twenty records show,
 * and τ² has about 19 degrees of freedom instead of 4.
 */
export function driftSpread(
  current: number[],
  records: number[][],
  older: number[][] = [],
): LogSpread | undefined {
  const anova = dayAnova(current, records, older);
  if (!anova) return undefined;
  const { msw, msb, dfWithin, records: R } = anova;
  if (msb <= msw || fUpperTail(msb / msw, R - 1, dfWithin) >= driftTestLevel(R)) return undefined;
  const tau2 = (msb - msw) / anova.n0;
  // τ̂²'s own degrees of freedom: 2 τ̂⁴ / Var(τ̂²).
  const dfTau = (msb - msw) ** 2 / (msb ** 2 / (R - 1) + msw ** 2 / dfWithin);
  const dayPart = tau2 * anova.dayFactor;
  const runPart = msw * anova.runFactor;
  const variance = dayPart + runPart;
  const df = variance ** 2 / (dayPart ** 2 / dfTau + runPart ** 2 / dfWithin);
  return {
    se: Math.sqrt(variance),
    df: Math.max(1, df),
    perRun: msw,
    runs: current.length,
    drift: true,
    dayVariance: tau2,
    dayDf: dfTau,
    dayPart,
    withinDf: dfWithin,
  };
}

/** The one-way ANOVA of runs within records (days) that driftSpread's model rests on. */
export interface DayAnova {
  /** Mean square within the records and within the current runs (σ²'s estimate). */
  msw: number;
  dfWithin: number;
  /** Mean square between the record means, over every record (window and older). */
  msb: number;
  /** Records in the ANOVA. */
  records: number;
  /** The records' effective size: E[MSB] = σ² + n0 τ² (3 for records of 3 runs). */
  n0: number;
  /**
   * Var(difference) = τ² dayFactor + σ² runFactor: dayFactor = 1 + Σ m_r² / M² over the
   * baseline's own records (the current day's drift, and that its mean of M runs from
   * those days carries), runFactor = 1 / n + 1 / M.
   */
  dayFactor: number;
  runFactor: number;
}

/**
 * The ANOVA of driftSpread (which see for the model): undefined with fewer than two
 * records, no baseline or current run, or no run-to-run degree of freedom.
 */
export function dayAnova(
  current: readonly number[],
  records: readonly (readonly number[])[],
  older: readonly (readonly number[])[] = [],
): DayAnova | undefined {
  const own = records.filter((g) => g.length > 0);
  const groups = [...own, ...older.filter((g) => g.length > 0)];
  const R = groups.length;
  // The baseline's own runs: its mean is of these alone.
  const M = own.reduce((s, g) => s + g.length, 0);
  if (R < 2 || M < 1 || current.length < 1) return undefined;
  let within = 0;
  let dfWithin = 0;
  for (const group of [...groups, current]) {
    const mean = meanOf(group);
    within += group.reduce((s, v) => s + (v - mean) ** 2, 0);
    dfWithin += group.length - 1;
  }
  if (dfWithin < 1) return undefined;
  const grand = meanOf(groups.flat());
  const all = groups.reduce((s, g) => s + g.length, 0);
  const allSquares = groups.reduce((s, g) => s + g.length ** 2, 0);
  const squares = own.reduce((s, g) => s + g.length ** 2, 0);
  return {
    msw: within / dfWithin,
    dfWithin,
    msb: groups.reduce((s, g) => s + g.length * (meanOf(g) - grand) ** 2, 0) / (R - 1),
    records: R,
    n0: (all - allSquares / all) / (R - 1),
    dayFactor: 1 + squares / M ** 2,
    runFactor: 1 / current.length + 1 / M,
  };
}

/**
 * Standard error and degrees of freedom of the difference of mean logs. A run is a run,
 * whichever build made it: both sides share one run-to-run variance, pooled over all runs
 * (Student's), so 3 current runs do not leave the test with Welch's 2 degrees of freedom.
 * When one side clearly scatters more than the other (a noisy-neighbour run: their
 * variances differ at the 1% level), each keeps its own and the test is Welch's. With a
 * single run on one side the other side's variance stands for both. `gamma`, the runs'
 * skewness (skewness.ts: cautiousSkewness), gives the spread its skewness terms.
 */
export function logSpread(a: number[], b: number[], gamma = 0): LogSpread | undefined {
  if (a.length < 2 && b.length < 2) return undefined;
  // Each side's run-to-run SD in the spread's model and its sample variance's weight in
  // se², for the skewness terms (skewness.ts).
  const side = (runs: number, variance: number, weight: number): SkewSide => ({
    runs,
    sd: Math.sqrt(variance),
    weight,
  });
  const withSkew = (spread: LogSpread, sides: [SkewSide, SkewSide]): LogSpread =>
    gamma === 0 ? spread : { ...spread, skew: skewTerms(gamma, ...sides) };
  if (a.length < 2 || b.length < 2) {
    const many = a.length >= 2 ? a : b;
    const variance = sampleVariance(many)!;
    const r = 1 / a.length + 1 / b.length;
    return withSkew(
      {
        se: Math.sqrt(variance * r),
        df: many.length - 1,
        perRun: variance,
        runs: a.length,
      },
      [side(a.length, variance, many === a ? r : 0), side(b.length, variance, many === b ? r : 0)],
    );
  }
  const va = sampleVariance(a)!;
  const vb = sampleVariance(b)!;
  if (variancesDiffer(va, a.length, vb, b.length)) {
    return withSkew({ ...welchSpread(a, b), perRun: va, runs: a.length }, [
      side(a.length, va, 1 / a.length),
      side(b.length, vb, 1 / b.length),
    ]);
  }
  const df = a.length + b.length - 2;
  const pooled = ((a.length - 1) * va + (b.length - 1) * vb) / df;
  const r = 1 / a.length + 1 / b.length;
  return withSkew(
    {
      se: Math.sqrt(pooled * r),
      df,
      perRun: pooled,
      runs: a.length,
    },
    [
      side(a.length, pooled, (r * (a.length - 1)) / df),
      side(b.length, pooled, (r * (b.length - 1)) / df),
    ],
  );
}

/** Two-sided F test of equal variances at the 1% level. */
const VARIANCE_TEST_LEVEL = 0.01;

/**
 * Runs the side that scatters less needs for Welch's test to trust its own variance. Three
 * runs' variance (2 degrees of freedom) is under a tenth of the truth one time in ten;
 * when it is small enough to differ from the baseline's at the 1% level, Welch's test
 * takes those three runs as exact and the change as known to within the baseline's spread
 * alone, and any change beyond the threshold fails. With fewer runs than this on the side
 * that scatters less, the runs are pooled: the interval is wider, never narrower.
 */
const WELCH_MIN_RUNS = 6;

function variancesDiffer(va: number, na: number, vb: number, nb: number): boolean {
  if (va === vb) return false;
  const [high, nHigh, low, nLow] = va > vb ? [va, na, vb, nb] : [vb, nb, va, na];
  if (nLow < WELCH_MIN_RUNS) return false;
  if (low === 0) return true;
  return fUpperTail(high / low, nHigh - 1, nLow - 1) < VARIANCE_TEST_LEVEL / 2;
}

/** P(F > f) for an F(d1, d2) variable. */
export function fUpperTail(f: number, d1: number, d2: number): number {
  return regularizedIncompleteBeta(d2 / (d2 + d1 * f), d2 / 2, d1 / 2);
}

/**
 * Welch's standard error of the difference of two means, each side with its own variance,
 * and the Welch–Satterthwaite degrees of freedom. Both sides need two or more values.
 */
export function welchSpread(a: number[], b: number[]): { se: number; df: number } {
  const wa = sampleVariance(a)! / a.length;
  const wb = sampleVariance(b)! / b.length;
  const se = Math.sqrt(wa + wb);
  if (se === 0) return { se: 0, df: a.length + b.length - 2 };
  const df = (wa + wb) ** 2 / (wa ** 2 / (a.length - 1) + wb ** 2 / (b.length - 1));
  return { se, df };
}

function sampleVariance(values: number[]): number | undefined {
  if (values.length < 2) return undefined;
  const mean = meanOf(values);
  return values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
}

function expInterval(low: number, high: number): [number, number] {
  return [Math.expm1(low), Math.expm1(high)];
}

/**
 * Percentile bootstrap of the change of one percentile between two sets of requests.
 * Each replicate draws the resampled order statistics directly (the k-th smallest of n
 * uniforms is Beta(k, n − k + 1)), so a replicate costs O(1) after one sort per side and
 * 100,000 requests per side take milliseconds.
 */
function requestBootstrap(
  current: SampleRun,
  baseline: SampleRun,
  percentile: number,
  options: IntervalOptions,
): { ci: [number, number]; change: number } {
  const random = seededRandom(options.seed);
  const sortedCurrent = sortedSamples(current);
  const sortedBaseline = sortedSamples(baseline);
  const replicates = options.replicates ?? DEFAULT_REPLICATES;
  const logRatios = new Float64Array(replicates);
  for (let i = 0; i < replicates; i += 1) {
    const now = resampledPercentile(sortedCurrent, percentile, random);
    const before = resampledPercentile(sortedBaseline, percentile, random);
    logRatios[i] = Math.log(now / before);
  }
  logRatios.sort();
  const tail = (1 - options.confidence) / 2;
  // The change of the percentile itself; a skewed bootstrap can leave it just outside
  // the percentile interval, which would then be stretched to hold it.
  const center = Math.log(
    percentileOf(sortedCurrent, percentile) / percentileOf(sortedBaseline, percentile),
  );
  const low = Math.min(center, quantileOfSorted(logRatios, tail));
  const high = Math.max(center, quantileOfSorted(logRatios, 1 - tail));
  return { ci: expInterval(low, high), change: Math.expm1(center) };
}

/** numpy's linear percentile of one bootstrap resample of `sorted`, without building it. */
function resampledPercentile(sorted: Float64Array, percentile: number, random: Random): number {
  const n = sorted.length;
  const rank = (n - 1) * (percentile / 100);
  const k = Math.floor(rank);
  const fraction = rank - k;
  // U(k+1) and U(k+2) in 1-based order-statistic terms: the k-th and (k+1)-th smallest.
  const lower = beta(random, k + 1, n - k);
  const lowerValue = sorted[indexOf(lower, n)]!;
  if (fraction === 0 || k + 1 >= n) return lowerValue;
  const upper = lower + (1 - lower) * beta(random, 1, n - k - 1);
  return lowerValue + fraction * (sorted[indexOf(upper, n)]! - lowerValue);
}

function indexOf(uniform: number, n: number): number {
  return Math.min(n - 1, Math.max(0, Math.ceil(uniform * n) - 1));
}

function quantileOfSorted(sorted: Float64Array, q: number): number {
  const rank = (sorted.length - 1) * q;
  const low = Math.floor(rank);
  const high = Math.min(sorted.length - 1, low + 1);
  return sorted[low]! + (rank - low) * (sorted[high]! - sorted[low]!);
}
