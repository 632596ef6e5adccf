import { markdownTable } from 'markdown-table';
import type { BenchmarkReport } from '../model.js';
import { formatDuration } from '../text/duration.js';
import { displayUnit, inUnit, metricLabel } from './display-unit.js';
import { escapeMarkdown } from './escape.js';
import { formatValue } from './numbers.js';
import { estimateOf, estimatorLegend } from './percentile-estimates.js';

/**
 * Folded away under a benchmark: each metric's value in every clean run beside the
 * baseline and current estimates, and how each run went.
 */
export function runValuesDetails(benchmark: BenchmarkReport): string | undefined {
  const result = benchmark.result;
  if (!result || result.runs.length === 0) return undefined;
  const clean = result.runs.filter((run) => run.kind === 'clean');
  const header = [
    'Metric',
    ...clean.map((run) => `run ${escapeMarkdown(String(run.index))}`),
    'Baseline',
    'Current',
  ];
  // MFU and MBU come from the one profiled run, not from each clean run.
  const perRun = result.metrics.filter((metric) => metric.values.length === clean.length);
  const rows = perRun.map((metric) => {
    const comparison = benchmark.metrics.find((m) => m.id === metric.id);
    const shown = displayUnit(metric.unit, [
      ...metric.values,
      comparison?.baseline,
      comparison?.current,
    ]);
    return [
      metricLabel(metric.id, shown.unit),
      ...clean.map((_, i) => formatValue(inUnit(metric.values[i], shown))),
      formatValue(inUnit(comparison?.baseline, shown)),
      formatValue(inUnit(comparison?.current, shown)),
    ];
  });
  const outcomes = result.runs.map(
    (run) =>
      `- run ${escapeMarkdown(String(run.index))} (${escapeMarkdown(String(run.kind))}): ${run.ok ? 'ok' : 'failed'} in ${formatDuration(run.durationMs)}`,
  );
  // Baseline and Current here are each side's own figures, pooled or a median of runs.
  const legend = estimatorLegend(
    perRun.flatMap((metric) => {
      const comparison = benchmark.metrics.find((m) => m.id === metric.id);
      const estimate = comparison ? estimateOf(comparison) : undefined;
      return estimate ? [{ id: metric.id, estimator: estimate.of, estimate }] : [];
    }),
  );
  const table =
    rows.length > 0
      ? `${markdownTable([header, ...rows])}\n\n${legend ? `${legend}\n\n` : ''}`
      : '';
  return `<details><summary>Runs and per-run values</summary>\n\n${table}${outcomes.join('\n')}\n\n</details>`;
}
