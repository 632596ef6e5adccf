import { markdownTable } from 'markdown-table';
import type { BenchmarkReport } from '../model.js';
import { escapeMarkdown, labelOf } from './escape.js';
import { displayUnit, inUnit } from './display-unit.js';
import { formatValue } from './numbers.js';

const BADGES: Record<BenchmarkReport['verdict'], string> = {
  pass: '✅',
  regression: '❌',
  'no-baseline': '🆕',
  error: '💥',
};

/**
 * The variants of one sweep ranked by throughput, best first, like the summary the
 * reference sweep script prints: which configuration to ship at a glance.
 */
export function sweepRanking(sweep: string, variants: BenchmarkReport[]): string {
  const value = (b: BenchmarkReport, id: string) =>
    b.metrics.find((m) => m.id === id)?.current ?? null;
  const ranked = [...variants].sort(
    (a, b) => (value(b, 'throughput') ?? -Infinity) - (value(a, 'throughput') ?? -Infinity),
  );
  const best = value(ranked[0]!, 'throughput');
  const unit = ranked[0]?.metrics.find((m) => m.id === 'throughput')?.unit ?? '';
  // One unit per latency column, fitted to its figures (µs for a sweep of tiny calls).
  const latency = (['latency_p50', 'latency_p95', 'latency_p99'] as const).map((id) =>
    displayUnit(
      'ms',
      ranked.map((b) => value(b, id)),
    ),
  );
  const rows = ranked.map((b, index) => {
    const throughput = value(b, 'throughput');
    const relative =
      best && throughput !== null && index > 0
        ? ` (${formatValue((throughput / best - 1) * 100)}%)`
        : '';
    return [
      String(index + 1),
      escapeMarkdown(b.sweep?.variant ?? b.name),
      throughput === null ? '—' : `${formatValue(throughput)}${relative}`,
      formatValue(inUnit(value(b, 'latency_p50'), latency[0]!)),
      formatValue(inUnit(value(b, 'latency_p95'), latency[1]!)),
      formatValue(inUnit(value(b, 'latency_p99'), latency[2]!)),
      labelOf(BADGES, b.verdict),
    ];
  });
  const header = [
    'Rank',
    'Variant',
    `Throughput (${escapeMarkdown(unit)})`,
    `P50 (${latency[0]!.unit})`,
    `P95 (${latency[1]!.unit})`,
    `P99 (${latency[2]!.unit})`,
    'Verdict',
  ];
  return `### Sweep ${escapeMarkdown(sweep)}: variants by throughput\n\n${markdownTable([header, ...rows], { align: ['r', 'l', 'r', 'r', 'r', 'r', 'c'] })}`;
}
