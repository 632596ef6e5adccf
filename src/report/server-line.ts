// The line a benchmark's section gives the server the gate started for it: how long it took
// to become ready (the median of its clean starts, the server_startup metric, with its
// baseline), how often it was started, how it stopped, and where its log is.

import type { BenchmarkReport, Comparison, ServerSummary } from '../model.js';
import { codeSpan, escapeMarkdown } from './escape.js';
import { formatChange, formatValue } from './numbers.js';

export function serverLine(benchmark: BenchmarkReport): string | undefined {
  const server = benchmark.server;
  if (!server) return undefined;
  const facts: string[] = [];
  if (server.startupSeconds !== undefined) {
    const metric = benchmark.metrics.find((m) => m.id === 'server_startup');
    const notes = startupNotes(server, metric);
    const before = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    facts.push(
      `ready **${`${formatValue(server.startupSeconds)} s`}** after it was launched${before}`,
    );
  } else {
    facts.push('never ready (see the error)');
  }
  if (server.starts > 1) {
    facts.push(`started ${server.starts} times (a profiled run gets a server of its own)`);
  }
  if (server.stopped) facts.push(`stopped: ${escapeMarkdown(server.stopped)}`);
  const logs = server.logs.map((log) => codeSpan(log)).join(', ');
  const where =
    logs === '' ? '' : `; log${server.logs.length === 1 ? '' : 's'} ${logs} in the artifact`;
  return `🖥️ **Server**: ${facts.join(', ')}${where}.`;
}

/** Beside the start-up time: how many starts it is the median of, and its baseline. */
function startupNotes(server: ServerSummary, metric: Comparison | undefined): string[] {
  const cleanStarts = server.cleanStarts ?? 1;
  return [
    ...(cleanStarts > 1 ? [`the median of ${cleanStarts} clean starts`] : []),
    ...(metric?.baseline !== null && metric?.baseline !== undefined
      ? [`baseline ${formatValue(metric.baseline)} s, ${formatChange(metric.change)}`]
      : []),
  ];
}
