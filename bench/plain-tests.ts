// The plain references every rule of bench:accuracy is held against (issue: "a gap to the
// plain test is ours"): a pooled two-sample Student t test, one-sided at the gate's whole
// budget, on all the runs the action could take (the first runs and every confirmation
// run) against the window's runs, on one statistic per run: the log of its P50, or the
// mean of the log of its request times (the log of the latency_geomean a run reports).
// They always take every run (the action stops early when it can), they test one metric
// where the gate tests a family, and they know nothing of drift: a ceiling for rules of
// that kind on these runs, not a rule for the gate.

import { studentTQuantile } from '../src/stats/distributions.js';
import type { RunSummary } from './oracle.js';
import { meanOf } from '../src/stats/mean.js';

export const PLAIN_TESTS = ['t-test P50 ×all', 't-test mean log ×all'] as const;
export type PlainTest = (typeof PLAIN_TESTS)[number];

const STATISTIC: Record<PlainTest, (run: RunSummary) => number> = {
  't-test P50 ×all': (run) => run.logP50,
  't-test mean log ×all': (run) => meanOf(run.logTimes),
};

/** Whether the plain test calls the current runs slower than the baseline's at `level`. */
export function plainTestFails(
  test: PlainTest,
  current: readonly RunSummary[],
  baseline: readonly RunSummary[],
  level: number,
): boolean {
  const a = current.map(STATISTIC[test]);
  const b = baseline.map(STATISTIC[test]);
  const df = a.length + b.length - 2;
  const pooled = (squares(a) + squares(b)) / df;
  const se = Math.sqrt(pooled * (1 / a.length + 1 / b.length));
  const t = (meanOf(a) - meanOf(b)) / se;
  return t > studentTQuantile(1 - level, df);
}

function squares(values: readonly number[]): number {
  const m = meanOf(values);
  return values.reduce((s, v) => s + (v - m) ** 2, 0);
}
