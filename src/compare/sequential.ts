// Confirmation runs as a sequential test, like Chromium's Pinpoint: after each look the
// answer is "different" (fail now), "same" (pass now) or "run more", for at most
// `confirmRuns` more runs. Each look spends part of the false-alarm budget, so the budget
// holds however many looks are taken (the parts add up to it).

import type { BenchmarkReport, Comparison } from '../model.js';

/**
 * The false-alarm budget of each look: the first runs and each confirmation run before
 * the last share one half, the last look (all runs) gets the other half. With no
 * confirmation runs the single look gets it all.
 */
export function lookBudgets(budget: number, confirmRuns: number): number[] {
  if (confirmRuns <= 0) return [budget];
  const early = budget / 2 / confirmRuns;
  return [...Array.from({ length: confirmRuns }, () => early), budget / 2];
}

/**
 * "Run more": some metric is beyond its threshold without clear enough evidence but near
 * the boundary (worthConfirming: the evidence already leans to the worse side), and no
 * metric has already failed the benchmark (a clear regression needs no more runs). An
 * inconclusive change far from the boundary passes as a warning without a run more: on
 * unchanged code most inconclusive changes are of that kind.
 */
export function needsMoreRuns(reports: readonly BenchmarkReport[]): boolean {
  if (reports.some((r) => r.verdict === 'error')) return false;
  return metricsNeedMoreRuns(reports.flatMap((r) => r.metrics));
}

/** needsMoreRuns on the metrics of every benchmark the runs measured. */
export function metricsNeedMoreRuns(metrics: readonly Comparison[]): boolean {
  if (metrics.some((m) => m.verdict === 'regression')) return false;
  return metrics.some((m) => m.verdict === 'inconclusive' && m.worthConfirming === true);
}
