// The plain references every rule of bench:accuracy is held against (issue: "a gap to the
// plain test is ours"), one-sided at the gate's whole budget, against the window's runs:
// a pooled two-sample Student t test on all the runs the action could take (the first
// runs and every confirmation run), on one statistic per run: the log of its P50, or the
// mean of the log of its request times (the log of the latency_geomean a run reports);
// Welch's t test of that mean log on the first runs alone, `compare`'s look; and a
// Mann–Whitney rank-sum test of the requests themselves (every request of the runs against
// every request of the window's runs), on the first runs and on all. They test one
// statistic where the gate tests a family, and they know nothing of drift: a ceiling for
// rules of that kind on these runs, not a rule for the gate. The Mann–Whitney test takes
// the requests as independent, which the runs' own offsets (run CV) are not.

import { normalUpperTail, studentTUpperTail } from '../src/stats/distributions.js';
import type { RunSummary } from './oracle.js';
import { meanOf } from '../src/stats/mean.js';
import { olderBlockSquares } from '../src/stats/lent-variance.js';

export const PLAIN_TESTS = [
  't-test P50 ×all',
  't-test mean log ×all',
  'Welch mean log ×first',
  'Mann–Whitney requests ×first',
  'Mann–Whitney requests ×all',
] as const;
export type PlainTest = (typeof PLAIN_TESTS)[number];

/** Whether the test takes the first runs only (`compare`'s look), not every run the action could. */
export function firstRunsOnly(test: PlainTest): boolean {
  return test.endsWith('×first');
}

const TESTS: Record<PlainTest, (a: readonly RunSummary[], b: readonly RunSummary[]) => number> = {
  't-test P50 ×all': (a, b) => pooledT(a.map(logP50), b.map(logP50)),
  't-test mean log ×all': (a, b) => pooledT(a.map(meanLog), b.map(meanLog)),
  'Welch mean log ×first': (a, b) => welchT(a.map(meanLog), b.map(meanLog)),
  'Mann–Whitney requests ×first': (a, b) => mannWhitneyP(requests(a), requests(b)),
  'Mann–Whitney requests ×all': (a, b) => mannWhitneyP(requests(a), requests(b)),
};

/** Whether the plain test calls the current runs slower than the baseline's at `level`. */
export function plainTestFails(
  test: PlainTest,
  current: readonly RunSummary[],
  baseline: readonly RunSummary[],
  level: number,
): boolean {
  return TESTS[test](current, baseline) < level;
}

const logP50 = (run: RunSummary) => run.logP50;
const meanLog = (run: RunSummary) => meanOf(run.logTimes);
const requests = (runs: readonly RunSummary[]) => runs.flatMap((r) => r.logTimes);

/** One-sided p of a pooled-variance t test that `a` lies above `b`. */
function pooledT(a: number[], b: number[]): number {
  const df = a.length + b.length - 2;
  const pooled = (squares(a) + squares(b)) / df;
  const se = Math.sqrt(pooled * (1 / a.length + 1 / b.length));
  return studentTUpperTail((meanOf(a) - meanOf(b)) / se, df);
}

/**
 * The pooled t statistic of the current runs' logs against the window's, the older
 * records' squares added in blocks of `blockRecords` records around their own means: the
 * geomean's test at `compare`'s look whenever the older records lend (lent-variance.ts),
 * without its refusals to lend. For bench:lent-t (lent-t-draws.ts).
 */
export function lentPooledT(
  current: readonly number[],
  window: readonly number[],
  older: readonly (readonly number[])[],
  blockRecords: number,
): { t: number; df: number } {
  const lent = olderBlockSquares(older, blockRecords) ?? { squares: 0, df: 0 };
  const df = current.length - 1 + window.length - 1 + lent.df;
  const pooled = (squares(current) + squares(window) + lent.squares) / df;
  const se = Math.sqrt(pooled * (1 / current.length + 1 / window.length));
  return { t: (meanOf(current) - meanOf(window)) / se, df };
}

/** One-sided p of Welch's t test that `a` lies above `b` (Satterthwaite's df). */
function welchT(a: number[], b: number[]): number {
  const va = squares(a) / (a.length - 1) / a.length;
  const vb = squares(b) / (b.length - 1) / b.length;
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  return studentTUpperTail((meanOf(a) - meanOf(b)) / Math.sqrt(va + vb), df);
}

/**
 * One-sided p of the Mann–Whitney test that `a` lies above `b`: the rank sum of `a` in
 * the two samples together, normal approximation with mid-ranks for ties and the tie
 * correction of the variance (hundreds of requests a side).
 */
export function mannWhitneyP(a: readonly number[], b: readonly number[]): number {
  const all = [...a.map((v) => ({ v, current: true })), ...b.map((v) => ({ v, current: false }))];
  all.sort((x, y) => x.v - y.v);
  let rankSum = 0;
  let ties = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j += 1;
    const midRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k += 1) if (all[k]!.current) rankSum += midRank;
    const t = j - i + 1;
    ties += t ** 3 - t;
    i = j + 1;
  }
  const n = a.length;
  const m = b.length;
  const u = rankSum - (n * (n + 1)) / 2;
  const total = n + m;
  const variance = ((n * m) / 12) * (total + 1 - ties / (total * (total - 1)));
  const z = (u - (n * m) / 2) / Math.sqrt(variance);
  return normalUpperTail(z);
}

function squares(values: readonly number[]): number {
  const m = meanOf(values);
  return values.reduce((s, v) => s + (v - m) ** 2, 0);
}
