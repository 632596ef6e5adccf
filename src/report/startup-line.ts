// The line a benchmark's section gives its start-up (`startup:`): what told ready, the clean
// runs' launch → ready, and the cold start on an empty compile cache with what it compiled,
// each with its change against the baseline. The metrics stay rows of the table (their
// verdicts are there); this line says what they measured.

import type { BenchmarkReport, Comparison } from '../model.js';
import { BENCHMARK_STARTUP, COLD_COMPILE_TIME, COLD_STARTUP } from '../observe/startup-metrics.js';
import { formatDuration } from '../text/duration.js';
import { codeSpan, escapeMarkdown } from './escape.js';
import { shownFigures } from './metrics-table.js';
import { formatChange, formatValue } from './numbers.js';

/** A figure from report.json, which the comment job reads as untrusted: finite or nothing. */
const finite = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

export function startupLine(benchmark: BenchmarkReport): string | undefined {
  const startup = benchmark.result?.startup;
  if (!startup) return undefined;
  const find = (id: string) => benchmark.metrics.find((m) => m.id === id && m.current !== null);
  const ready =
    typeof startup.readyLog === 'string'
      ? `first output line matching ${codeSpan(startup.readyLog)}`
      : 'first line of its result file';
  const warm = find(BENCHMARK_STARTUP);
  const compiled = Array.isArray(startup.compiledRuns)
    ? startup.compiledRuns.filter((run) => finite(run) !== undefined)
    : [];
  const which =
    compiled.length === 0
      ? 'each clean run'
      : `each warm clean run; run ${compiled.join(', ')} compiled and is left out`;
  const facts = [
    warm
      ? `launch → ${ready}: **${figure(warm)}** (${which})`
      : `launch → ${ready}: not measured (see the warnings)`,
  ];
  const cold = startup.cold;
  if (cold) {
    const coldFigure = find(COLD_STARTUP);
    const compile = find(COLD_COMPILE_TIME);
    const graphs = finite(cold.graphsCompiled);
    const work = [
      ...(graphs !== undefined ? [`${graphs} graph${graphs === 1 ? '' : 's'} compiled`] : []),
      ...(compile ? [`compiling ${figure(compile)}`] : []),
    ];
    facts.push(
      coldFigure
        ? `cold (an empty compile cache): **${figure(coldFigure)}**${work.length > 0 ? ` (${work.join(', ')})` : ''}`
        : `cold: not measured${typeof cold.note === 'string' ? ` (${escapeMarkdown(cold.note)})` : ''}`,
    );
  }
  return `⏱️ **Start-up**: ${facts.join('; ')}.`;
}

/**
 * "3.5 s (+12.0%)": the current figure the table shows (the one its change is computed
 * from), and the change when there is a baseline.
 */
function figure(metric: Comparison): string {
  const seconds = shownFigures(metric).current ?? 0;
  const value = seconds < 60 ? `${formatValue(seconds)} s` : formatDuration(seconds * 1000);
  return metric.baseline === null ? value : `${value} (${formatChange(metric.change)})`;
}
