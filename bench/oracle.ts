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

import type { ParsedRun } from '../src/formats/aggregate.js';

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
    p50Mean: mean(runs.map((r) => r.logP50)),
    p50Median: median(Float64Array.from(runs, (r) => r.logP50).sort()),
    throughputMean: -mean(runs.map((r) => r.logThroughput)),
    requestsMean: mean(pooled),
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
  /** The baseline window's runs. */
  window: readonly RunSummary[];
  /** The older stored records' runs (the gate learns only the drift from them). */
  older: readonly RunSummary[];
}

/** Every variant's statistic for one pull request, in ORACLE_VARIANTS order. */
export function oracleStatistics(draws: OracleDraws): number[] {
  const currents = { first: draws.current, all: [...draws.current, ...draws.confirm] };
  const baselines = { window: draws.window, stored: [...draws.window, ...draws.older] };
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

function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i += 1) sum += values[i]!;
  return sum / values.length;
}

/** The median of sorted values. */
function median(sorted: ArrayLike<number>): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
