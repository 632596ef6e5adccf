// The top of a report of several benchmarks: one row each, with its verdict, its worst
// change and its profile, so that a reader sees what needs attention before the details
// (each folded away under its own summary, benchmark-section.ts).

import { markdownTable } from 'markdown-table';
import { worsening } from '../compare/compare.js';
import type { BenchmarkReport, Comparison } from '../model.js';
import { escapeMarkdown } from './escape.js';
import { formatChange } from './numbers.js';
import { profileCell } from './profile-link.js';
import { agreementChangeText } from './agreement-section.js';
import { benchmarkBadge, isNotMeasured, notMeasuredText } from './benchmark-verdict.js';

/** Rows shown one by one; beyond this, quiet passes share one row. */
const MAX_ROWS = 30;

/** The overview table; undefined for a report of fewer than two benchmarks. */
export function overviewTable(benchmarks: BenchmarkReport[]): string | undefined {
  if (benchmarks.length < 2) return undefined;
  const listed =
    benchmarks.length <= MAX_ROWS ? benchmarks : benchmarks.filter((b) => needsAttention(b));
  const rows = listed.map((b) => [
    escapeMarkdown(b.name),
    benchmarkBadge(b),
    worstChangeText(b) ?? '—',
    profileCell(b),
  ]);
  const quiet = benchmarks.filter((b) => !listed.includes(b));
  if (quiet.length > 0) rows.push([`${quiet.length} more`, verdictCounts(quiet), '—', '—']);
  return markdownTable([['Benchmark', 'Verdict', 'Worst change', 'Profile'], ...rows], {
    align: ['l', 'l', 'r', 'l'],
  });
}

/**
 * A benchmark a reader should open: a regression, an error, nothing gated measured, or a
 * metric the data could not settle. One without a baseline has nothing to compare yet.
 */
export function needsAttention(benchmark: BenchmarkReport): boolean {
  return (
    (benchmark.verdict !== 'pass' && benchmark.verdict !== 'no-baseline') ||
    isNotMeasured(benchmark) ||
    benchmark.metrics.some((m) => m.verdict === 'inconclusive' || m.verdict === 'regression')
  );
}

/** "✅ pass × 30, 🆕 no baseline × 9". */
function verdictCounts(benchmarks: BenchmarkReport[]): string {
  const counts = new Map<string, number>();
  for (const b of benchmarks) {
    const label = benchmarkBadge(b);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([label, n]) => `${label} × ${n}`).join(', ');
}

/**
 * "throughput −8.1%": the gated metric that moved furthest towards its threshold, among
 * the regressed ones when there are any (the verdict beside it is theirs); for a benchmark
 * with nothing gated measured, why ("capacity: the SLO fails at the lowest load …").
 */
export function worstChangeText(benchmark: BenchmarkReport): string | undefined {
  const unmeasured = notMeasuredText(benchmark);
  if (unmeasured) return unmeasured;
  const answers = agreementChangeText(benchmark);
  if (answers) return escapeMarkdown(answers);
  const regressed = benchmark.metrics.filter((m) => m.verdict === 'regression');
  const worst = worstChange(regressed.length > 0 ? regressed : benchmark.metrics);
  return worst ? `${escapeMarkdown(worst.id)} ${formatChange(worst.change)}` : undefined;
}

function worstChange(metrics: Comparison[]): (Comparison & { change: number }) | undefined {
  let worst: (Comparison & { change: number }) | undefined;
  let score = Number.NEGATIVE_INFINITY;
  for (const m of metrics) {
    if (typeof m.change !== 'number' || !Number.isFinite(m.change)) continue;
    if (typeof m.threshold !== 'number' || m.threshold <= 0) continue;
    if (m.direction !== 'higher-is-better' && m.direction !== 'lower-is-better') continue;
    const toThreshold = worsening(m.change, m.direction) / m.threshold;
    if (toThreshold > score) {
      score = toThreshold;
      worst = { ...m, change: m.change };
    }
  }
  return worst;
}
