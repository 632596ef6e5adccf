// Wild runs (a noisy neighbour, a throttled device: one run in twenty 30% slower) among runs
// that otherwise agree. One such run among the baseline's 15 triples the pooled run-to-run
// SD at run CV 2% and hides a 10% regression behind an interval three times too wide.
//
// The test is the textbook one for an outlier in a linear model: each run's externally
// studentized residual in the one-way model of its groups (baseline records, current runs),
// i.e. its distance from the mean of the other runs of its group over the pooled SD of all
// the other runs, which is Student-t with N − G − 1 degrees of freedom when the runs are
// normal. The largest is compared with the Bonferroni bound for N runs at OUTLIER_LEVEL,
// repeated as Rosner's generalized ESD: normal runs lose a run in about 1% of comparisons.
// What the caller does with a run found here is its choice (interval.ts).

import { studentTQuantile } from './distributions.js';
import { meanOf } from './mean.js';

/** Chance that runs of normal noise have any run found as an outlier (two-sided, Bonferroni). */
export const OUTLIER_LEVEL = 0.01;

/** At most this share of the runs is found (20%): more than that is a mode, not an outlier. */
const MAX_SHARE = 0.2;

/**
 * A run closer than this to the others (5%, on logs) is not wild, however alike the others
 * are: values rounded to whole milliseconds can agree exactly, and one a step off would
 * otherwise stand infinitely many SDs away.
 */
const MIN_RESIDUAL = Math.log(1.05);

/** Fewer runs than this in a group leave nothing to tell which of them is the odd one. */
const MIN_GROUP = 3;

export interface OutlierRun {
  /** Index of the group (as given) and of the run in it. */
  group: number;
  index: number;
  /** ln(run) − mean ln of the other runs of its group: + is a larger value. */
  residual: number;
}

/**
 * The outlier runs among groups of log values (each group free to have its own mean),
 * largest first, at most MAX_SHARE of all runs, never leaving a group with fewer than two.
 */
export function outlierRuns(
  groups: readonly (readonly number[])[],
  level = OUTLIER_LEVEL,
): OutlierRun[] {
  const total = groups.reduce((s, g) => s + g.length, 0);
  const limit = Math.floor(total * MAX_SHARE);
  const removed = groups.map(() => new Set<number>());
  // Rosner's generalized ESD: take out the most extreme run `limit` times whatever it is,
  // then keep the longest prefix whose last run was beyond its bound. A forward test that
  // stops at the first run within its bound misses two wild runs, which hide each other.
  const candidates: (OutlierRun & { beyond: boolean })[] = [];
  while (candidates.length < limit) {
    const kept = groups.map((g, gi) => g.filter((_, i) => !removed[gi]!.has(i)));
    const n = kept.reduce((s, g) => s + g.length, 0);
    const groupsWithRuns = kept.filter((g) => g.length > 0).length;
    const df = n - groupsWithRuns - 1;
    if (df < 2) break;
    const allSquares = kept.map(sumOfSquares).reduce((s, v) => s + v, 0);
    let best: (OutlierRun & { t: number }) | undefined;
    groups.forEach((group, gi) => {
      const rest = kept[gi]!;
      if (rest.length < MIN_GROUP) return;
      const sum = rest.reduce((s, v) => s + v, 0);
      group.forEach((value, index) => {
        if (removed[gi]!.has(index)) return;
        const m = rest.length - 1;
        const residual = value - (sum - value) / m;
        // Leaving the run out of its group takes (m / (m + 1)) residual² off the squares.
        const others = allSquares - (m / (m + 1)) * residual ** 2;
        const scale = Math.sqrt((Math.max(0, others) / df) * (1 + 1 / m));
        const t = scale > 0 ? Math.abs(residual) / scale : residual === 0 ? 0 : Infinity;
        if (!best || t > best.t) best = { group: gi, index, residual, t };
      });
    });
    if (!best) break;
    const bound = studentTQuantile(1 - level / (2 * n), df);
    const beyond = best.t > bound && Math.abs(best.residual) >= MIN_RESIDUAL;
    removed[best.group]!.add(best.index);
    candidates.push({ group: best.group, index: best.index, residual: best.residual, beyond });
  }
  let count = 0;
  candidates.forEach((c, i) => {
    if (c.beyond) count = i + 1;
  });
  return candidates
    .slice(0, count)
    .map(({ group, index, residual }) => ({ group, index, residual }));
}

function sumOfSquares(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const mean = meanOf(values);
  return values.reduce((s, v) => s + (v - mean) ** 2, 0);
}

/** Runs of both sides, by their index in a metric's `values` (baseline: every record's, in order). */
export interface WildRuns {
  baseline: number[];
  current: number[];
}

/** One metric's per-run values on both sides, and which way is worse. */
export interface RunValues {
  current: readonly number[];
  baseline: readonly number[];
  /** +1 when a larger value is worse (latency), −1 when smaller is (throughput). */
  worse: 1 | -1;
}

/**
 * The wild runs of a benchmark: runs that are outliers (outlierRuns, the baseline's runs
 * and the current runs as two groups) in more than half of its metrics measured in every
 * run. A noisy neighbour slows the whole run, so its throughput, P50 and tail all stand
 * out; a heavy request tail makes one run's P99 stand out alone, which is the metric's
 * own noise and no reason to leave the run out. Current runs count only on the worse side:
 * with 3 of them the odd one out on the better side may be the only normal one.
 */
export function wildRuns(metrics: readonly RunValues[]): WildRuns {
  const usable = metrics.filter(
    (m) =>
      m.current.length > 0 &&
      m.baseline.length > 0 &&
      [...m.current, ...m.baseline].every((v) => Number.isFinite(v) && v > 0),
  );
  const votes = new Map<string, number>();
  for (const metric of usable) {
    const groups = [metric.baseline.map(Math.log), metric.current.map(Math.log)];
    for (const run of outlierRuns(groups)) {
      if (run.group === 1 && metric.worse * run.residual < 0) continue;
      const key = `${run.group}/${run.index}`;
      votes.set(key, (votes.get(key) ?? 0) + 1);
    }
  }
  const wild: WildRuns = { baseline: [], current: [] };
  for (const [key, count] of votes) {
    if (count * 2 <= usable.length) continue;
    const [group, index] = key.split('/').map(Number) as [number, number];
    (group === 1 ? wild.current : wild.baseline).push(index);
  }
  wild.baseline.sort((a, b) => a - b);
  wild.current.sort((a, b) => a - b);
  return wild;
}
