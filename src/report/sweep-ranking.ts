import { markdownTable } from 'markdown-table';
import type { BenchmarkReport } from '../model.js';
import { escapeMarkdown, labelOf } from './escape.js';
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
      formatValue(value(b, 'latency_p50')),
      formatValue(value(b, 'latency_p95')),
      formatValue(value(b, 'latency_p99')),
      labelOf(BADGES, b.verdict),
    ];
  });
  const header = [
    'Rank',
    'Variant',
    `Throughput (${escapeMarkdown(unit)})`,
    'P50 (ms)',
    'P95 (ms)',
    'P99 (ms)',
    'Verdict',
  ];
  return `### Sweep ${escapeMarkdown(sweep)}: variants by throughput\n\n${markdownTable([header, ...rows], { align: ['r', 'l', 'r', 'r', 'r', 'r', 'c'] })}`;
}
