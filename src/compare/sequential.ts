// Confirmation runs as a sequential test, like Chromium's Pinpoint: after each look the
// answer is "different" (fail now), "same" (pass now) or "run more", for at most
// `confirmRuns` more runs. Each look spends part of the false-alarm budget, so the budget
// holds however many looks are taken (the parts add up to it).

import type { BenchmarkReport } from '../model.js';

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
 * "Run more": some metric is beyond its threshold without clear enough evidence, and no
 * metric has already failed the benchmark (a clear regression needs no more runs).
 */
export function needsMoreRuns(reports: readonly BenchmarkReport[]): boolean {
  if (reports.some((r) => r.verdict === 'error')) return false;
  if (reports.some((r) => r.metrics.some((m) => m.verdict === 'regression'))) return false;
  return reports.some((r) => r.metrics.some((m) => m.verdict === 'inconclusive'));
}
