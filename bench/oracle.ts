// The best possible detection on the runs bench:accuracy draws (issue 14's target: ≥ 95% of
// 10% slowdowns at ≤ 1% false alarms per gate run). An oracle that knows the noise exactly
// takes, for a test statistic of a slowdown, the (1 − α) quantile of that statistic over the
// scenario's unchanged (A/A) pull requests as its critical value, and detects a slowed pull
// request when its statistic lies beyond it. It ignores thresholds and pays nothing to learn
// the noise, so no rule deciding on the same statistic of the same runs does better (up to
// the sampling error of the figures). Per pull request it costs a few logs and two sorts,
// next to the dozens of gate judgements the bench makes.
//
// Statistics (slower is positive), each a difference current − baseline:
//   p50 mean log        mean over runs of ln(per-run P50)
//   p50 median log      median over runs of ln(per-run P50) (robust to outlier runs)
//   throughput mean log mean over runs of −ln(per-run throughput)
//   requests mean log   mean of ln(request time) over all requests of the side
//   requests median log median of ln(request time) over all requests of the side
// For noise that is Gaussian in the logs (lognormal run factors, days and requests, the
// same number of requests in every run) the requests' mean log difference is the most
// powerful test of a shift there is (Neyman–Pearson, the common level removed by location
// invariance): no rule on these runs does better. For mixtures (outlier runs, bimodal runs,
// heavy tails) a likelihood-ratio rule that knew the mixture could.
//
// The learned-noise oracle (learnedNoiseStatistics) asks what is left when the rule must
// learn the spread from the stored records, as the gate does: the mean log P50 difference
// divided by a standard error from the one-way random-effects model of the gate's drift
// interval (src/stats/interval.ts, driftSpread), with τ² always in (no F pretest, truncated
// at 0). Its critical value is again the (1 − α) quantile over the A/A pull requests, so it
// knows the null distribution of its own t statistic whatever the degrees of freedom, and
// learns only the spread: an upper bound for rules that studentize this statistic this way.

import type { ParsedRun } from '../src/formats/aggregate.js';
import { dayAnova } from '../src/stats/day-drift.js';
import { meanOf } from '../src/stats/mean.js';

export const ORACLE_STATISTICS = [
  'p50 mean log',
  'p50 median log',
  'throughput mean log',
  'requests mean log',
  'requests median log',
] as const;
export type OracleStatistic = (typeof ORACLE_STATISTICS)[number];

/** Which runs of a pull request the statistic sees: the first look's, or every run it could take. */
export const ORACLE_RUNS = ['first', 'all'] as const;
/** Which baseline: the window's records (what the gate's level comes from), or every stored record. */
export const ORACLE_BASELINES = ['window', 'stored'] as const;

export interface OracleVariant {
  statistic: OracleStatistic;
  runs: (typeof ORACLE_RUNS)[number];
  baseline: (typeof ORACLE_BASELINES)[number];
}

/** Every statistic on every choice of runs and baseline; a pull request's values come in this order. */
export const ORACLE_VARIANTS: readonly OracleVariant[] = ORACLE_STATISTICS.flatMap((statistic) =>
  ORACLE_RUNS.flatMap((runs) =>
    ORACLE_BASELINES.map((baseline) => ({ statistic, runs, baseline })),
  ),
);

/** What the statistics need of one run: its P50, throughput and request times, in logs. */
export interface RunSummary {
  logP50: number;
  logThroughput: number;
  /** ln of every request time of the run. */
  logTimes: readonly number[];
}

/** One run as the gate parsed it: latency_p50 (with its per-request samples) and throughput. */
export function summarizeRun(run: ParsedRun): RunSummary {
  const metrics = run.benchmarks[0]?.metrics ?? [];
  const p50 = metrics.find((m) => m.id === 'latency_p50');
  const throughput = metrics.find((m) => m.id === 'throughput');
  if (!p50?.samples || !throughput) {
    throw new Error(`${run.file}: the oracle needs latency_p50 with its samples and throughput`);
  }
  return {
    logP50: Math.log(p50.value),
    logThroughput: Math.log(throughput.value),
    logTimes: Array.from(p50.samples, Math.log),
  };
}

/** One side's figures each statistic compares. */
interface SideFigures {
  p50Mean: number;
  p50Median: number;
  throughputMean: number;
  requestsMean: number;
  requestsMedian: number;
}

function sideFigures(runs: readonly RunSummary[]): SideFigures {
  if (runs.length === 0) throw new Error('the oracle needs at least one run a side');
  // A typed array sorts numerically without a comparator: thousands of requests a side.
  const pooled = new Float64Array(runs.reduce((n, r) => n + r.logTimes.length, 0));
  let at = 0;
  for (const r of runs) {
    pooled.set(r.logTimes, at);
    at += r.logTimes.length;
  }
  pooled.sort();
  return {
    p50Mean: meanOf(runs.map((r) => r.logP50)),
    p50Median: median(Float64Array.from(runs, (r) => r.logP50).sort()),
    throughputMean: -meanOf(runs.map((r) => r.logThroughput)),
    requestsMean: meanOf(pooled),
    requestsMedian: median(pooled),
  };
}

const FIGURE: Record<OracleStatistic, keyof SideFigures> = {
  'p50 mean log': 'p50Mean',
  'p50 median log': 'p50Median',
  'throughput mean log': 'throughputMean',
  'requests mean log': 'requestsMean',
  'requests median log': 'requestsMedian',
};

/** One statistic of a slowdown, current against baseline: > 0 when the current side is slower. */
export function slowdownStatistic(
  statistic: OracleStatistic,
  current: readonly RunSummary[],
  baseline: readonly RunSummary[],
): number {
  const key = FIGURE[statistic];
  return sideFigures(current)[key] - sideFigures(baseline)[key];
}

/** The runs one pull request has, as the bench drew them for the gate. */
export interface OracleDraws {
  /** The first look's runs. */
  current: readonly RunSummary[];
  /** Every confirmation run the action could take (confirm-runs). */
  confirm: readonly RunSummary[];
  /** The baseline window's records (days), each its runs. */
  window: readonly (readonly RunSummary[])[];
  /** The older stored records (the gate learns only the drift from them), each its runs. */
  older: readonly (readonly RunSummary[])[];
}

/** Every variant's statistic for one pull request, in ORACLE_VARIANTS order. */
export function oracleStatistics(draws: OracleDraws): number[] {
  const currents = { first: draws.current, all: [...draws.current, ...draws.confirm] };
  const baselines = {
    window: draws.window.flat(),
    stored: [...draws.window, ...draws.older].flat(),
  };
  const figures = new Map<string, SideFigures>();
  const figuresOf = (name: string, runs: readonly RunSummary[]) => {
    if (!figures.has(name)) figures.set(name, sideFigures(runs));
    return figures.get(name)!;
  };
  return ORACLE_VARIANTS.map(({ statistic, runs, baseline }) => {
    const key = FIGURE[statistic];
    return (
      figuresOf(`current ${runs}`, currents[runs])[key] -
      figuresOf(`baseline ${baseline}`, baselines[baseline])[key]
    );
  });
}

/** Which current runs the learned-noise statistic sees, in the order its values come. */
export const LEARNED_RUNS = ['first', 'all'] as const;

/**
 * The learned-noise statistics of one pull request, in LEARNED_RUNS order: the mean log P50
 * difference, current − the window's runs, over its standard error learnt from the records.
 */
export function learnedNoiseStatistics(draws: OracleDraws): number[] {
  const logP50s = (runs: readonly RunSummary[]) => runs.map((r) => r.logP50);
  const window = draws.window.map(logP50s);
  const older = draws.older.map(logP50s);
  return LEARNED_RUNS.map((runs) => {
    const current = logP50s(
      runs === 'first' ? draws.current : [...draws.current, ...draws.confirm],
    );
    return (meanOf(current) - meanOf(window.flat())) / learnedStandardError(current, window, older);
  });
}

/**
 * Standard error of the mean log difference, current − the window's runs, learnt from the
 * runs by the gate's own drift ANOVA (src/stats/interval.ts, dayAnova; records = days):
 * σ² is the variance within the records and within the current runs (one day), τ² =
 * max(0, (MSB − MSW) / n₀) from the ANOVA of every stored record's mean (window and
 * older), and SE² = τ² (1 + Σ m_r² / M²) + σ² (1 / n + 1 / M) over the window's records
 * m_r (M runs; Σ m_r² / M² = 1 / records when they are of one size). Unlike the gate, τ²
 * is always in: no F test decides first. Values are logs, so scaling every time by a
 * constant shifts them all and leaves the standard error as it is.
 */
export function learnedStandardError(
  current: readonly number[],
  window: readonly (readonly number[])[],
  older: readonly (readonly number[])[] = [],
): number {
  const anova = dayAnova(current, window, older);
  if (!anova) {
    throw new Error(
      'the learned-noise oracle needs two records, baseline runs and current runs, and a record of two runs',
    );
  }
  const tau2 = Math.max(0, (anova.msb - anova.msw) / anova.n0);
  return Math.sqrt(tau2 * anova.dayFactor + anova.msw * anova.runFactor);
}

/**
 * The oracle's critical value at false-alarm rate α: the smallest order statistic of the
 * A/A values that at most ⌊α n⌋ of them exceed, so that the oracle's false alarms on the
 * very pull requests it learnt from are at most α.
 */
export function criticalValue(unchanged: readonly number[], alpha: number): number {
  if (unchanged.length === 0) throw new Error('the oracle needs unchanged pull requests');
  if (!(alpha > 0 && alpha < 1)) throw new Error(`α must be in (0, 1), got ${alpha}`);
  const sorted = [...unchanged].sort((a, b) => a - b);
  const allowed = Math.floor(alpha * sorted.length + 1e-9);
  return sorted[sorted.length - 1 - allowed]!;
}

/** Pull requests whose statistic lies beyond the critical value (a slowdown detected). */
export function detections(values: readonly number[], critical: number): number {
  return values.reduce((count, v) => count + (v > critical ? 1 : 0), 0);
}

/** The median of sorted values; the oracle keeps its own arithmetic apart from src/stats on purpose, so a bug there cannot hide here. */
function median(sorted: ArrayLike<number>): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
