import { markdownTable } from 'markdown-table';
import type { BenchmarkReport } from '../model.js';
import { escapeMarkdown, labelOf } from './escape.js';
import { displayUnit, inUnit } from './display-unit.js';
import { formatValue } from './numbers.js';
import { isNotMeasured } from './benchmark-verdict.js';
import { SWEEP_PERCENTILES, sweepPercentiles } from './sweep-percentiles.js';

const BADGES: Record<BenchmarkReport['verdict'], string> = {
  pass: '✅',
  regression: '❌',
  'no-baseline': '🆕',
  error: '💥',
};

/** A variant with nothing gated measured neither passed nor failed. */
const NOT_MEASURED = '⚪';

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
  // One estimator for every latency cell (sweep-percentiles.ts), one unit per column
  // fitted to its figures (µs for a sweep of tiny calls).
  const percentiles = sweepPercentiles(ranked);
  const latency = SWEEP_PERCENTILES.map((id) =>
    displayUnit(
      'ms',
      ranked.map((b) => percentiles.value(b, id)),
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
      ...SWEEP_PERCENTILES.map((id, column) =>
        formatValue(inUnit(percentiles.value(b, id), latency[column]!)),
      ),
      isNotMeasured(b) ? NOT_MEASURED : labelOf(BADGES, b.verdict),
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
  const table = markdownTable([header, ...rows], { align: ['r', 'l', 'r', 'r', 'r', 'r', 'c'] });
  const note = percentiles.note ? `\n\n${percentiles.note}` : '';
  return `### Sweep ${escapeMarkdown(sweep)}: variants by throughput\n\n${table}${note}`;
}
