// The line a benchmark's section gives its start-up (`startup:`): what told ready, the clean
// runs' launch → ready (with a server: what its clean starts loaded from the compile cache),
// and the cold start on an empty compile cache with what it compiled, each with its change
// against the baseline. The metrics stay rows of the table (their
// verdicts are there); this line says what they measured.

import type { BenchmarkReport, Comparison, ServerStartsCache } from '../model.js';
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
  const served = serverStartsFact(startup.serverStarts);
  // A server's clean starts are server_startup (the server line): none of startup:'s own.
  const timed = Array.isArray(startup.seconds) && startup.seconds.length > 0;
  const facts = served
    ? [served]
    : !timed && !warm
      ? []
      : [
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
  if (facts.length === 0) return undefined;
  return `⏱️ **Start-up**: ${facts.join('; ')}.`;
}

/** "the server's 2 clean starts (server_startup) loaded 8 graphs from the compile cache, compiled none". */
function serverStartsFact(starts: ServerStartsCache | undefined): string | undefined {
  const count = finite(starts?.starts);
  const loaded = finite(starts?.graphsLoaded);
  const compiled = finite(starts?.graphsCompiled);
  if (count === undefined || loaded === undefined || compiled === undefined) return undefined;
  const graphs = (n: number) => `${n} graph${n === 1 ? '' : 's'}`;
  const which = count === 1 ? "the server's clean start" : `the server's ${count} clean starts`;
  return (
    `${which} (server_startup) loaded ${graphs(loaded)} from the compile cache and ` +
    `compiled ${compiled === 0 ? 'none' : graphs(compiled)}`
  );
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
