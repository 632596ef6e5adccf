// Confirmation runs as a group-sequential test, like Chromium's Pinpoint: after each look
// the answer is "different" (a metric regressed: fail now), "same" (no metric is open:
// pass now) or "run more" (add the next batch of clean runs), for at most `confirmRuns`
// more runs. Each look spends its own part of the false-alarm budget and the parts add up
// to the budget (a Bonferroni split over the looks), so the budget holds however many
// looks are taken and whenever the gate stops.

import type { BenchmarkReport, Comparison } from '../model.js';

/**
 * The extra runs there are at each look: 0 at the first, then batches that grow, so that
 * a clear answer costs few runs and an open one soon has enough to settle it, ending at
 * `maxExtra`: 0, ⌈20%⌉, ⌈50%⌉, 100% of it (e.g. 0, 2, 5, 10; 0, 1, 2 for 2).
 */
export function lookSchedule(maxExtra: number): number[] {
  if (maxExtra <= 0) return [0];
  const looks = [0, Math.ceil(maxExtra * 0.2), Math.ceil(maxExtra * 0.5), maxExtra];
  return looks.filter((extra, i) => i === 0 || extra > looks[i - 1]!);
}

/**
 * Share of the budget the last look (all runs) gets; the looks before it share the rest
 * equally. Most regressions that need confirming are settled only with all the runs, and
 * clear ones are clear at any level.
 */
const LAST_LOOK_SHARE = 0.5;

/**
 * The false-alarm budget of each look of `lookSchedule(maxExtra)`: the looks before the
 * last share half of it, the last gets the other half. With no confirmation runs the
 * single look gets it all.
 */
export function lookBudgets(budget: number, maxExtra: number): number[] {
  const looks = lookSchedule(maxExtra).length;
  if (looks === 1) return [budget];
  const early = (budget * (1 - LAST_LOOK_SHARE)) / (looks - 1);
  return [...Array.from({ length: looks - 1 }, () => early), budget * LAST_LOOK_SHARE];
}

/**
 * "Run more": no metric has failed the benchmark (a clear regression needs no more runs)
 * and some gated metric is still open (compare.ts: its interval reaches past twice its
 * threshold, so the runs so far can tell neither a regression nor its absence).
 */
export function needsMoreRuns(reports: readonly BenchmarkReport[]): boolean {
  if (reports.some((r) => r.verdict === 'error')) return false;
  return metricsNeedMoreRuns(reports.flatMap((r) => r.metrics));
}

/** needsMoreRuns on the metrics of every benchmark the runs measured. */
export function metricsNeedMoreRuns(metrics: readonly Comparison[]): boolean {
  if (metrics.some((m) => m.verdict === 'regression')) return false;
  return metrics.some((m) => m.worthConfirming === true);
}
