// A benchmark's verdict as the report reads it: its badge, and "not measured" (with why)
// for one whose every gated metric went unmeasured, which neither passes nor fails
// (compare/nothing-measured.ts). The overview table, the benchmark's heading or summary,
// the sweep ranking and the counts above them all read it from here.

import type { BenchmarkReport, BenchmarkVerdict } from '../model.js';
import { nothingMeasured } from '../compare/nothing-measured.js';
import { escapeMarkdown, labelOf } from './escape.js';

export const BENCHMARK_BADGES: Record<BenchmarkVerdict, string> = {
  pass: '✅ pass',
  regression: '❌ regression',
  'no-baseline': '🆕 no baseline',
  error: '💥 error',
};

export const NOT_MEASURED_BADGE = '⚪ not measured';

/** Reasons named one by one; beyond this, "and N more". */
const MAX_REASONS = 3;

/** Whether nothing the benchmark gates was measured: it reads "not measured". */
export function isNotMeasured(benchmark: BenchmarkReport): boolean {
  return nothingMeasured(benchmark) !== undefined;
}

/** "✅ pass", or "⚪ not measured" for a benchmark with nothing gated measured. */
export function benchmarkBadge(benchmark: BenchmarkReport): string {
  return isNotMeasured(benchmark)
    ? NOT_MEASURED_BADGE
    : labelOf(BENCHMARK_BADGES, benchmark.verdict);
}

/**
 * "capacity: the SLO fails at the lowest load …": the gated metrics of a benchmark with
 * nothing gated measured, grouped by their reason; undefined for any other benchmark.
 */
export function notMeasuredText(benchmark: BenchmarkReport): string | undefined {
  const unmeasured = nothingMeasured(benchmark);
  if (!unmeasured) return undefined;
  const byReason = new Map<string, string[]>();
  for (const { id, reason } of unmeasured) {
    byReason.set(reason, [...(byReason.get(reason) ?? []), id]);
  }
  const groups = [...byReason].map(
    ([reason, ids]) => `${ids.map(escapeMarkdown).join(', ')}: ${escapeMarkdown(reason)}`,
  );
  const more = groups.length - MAX_REASONS;
  const shown = groups.slice(0, MAX_REASONS).join('; ');
  return more > 0 ? `${shown}; and ${more} more` : shown;
}
