// The line a benchmark's section gives the server the gate started for it: how long it took
// to become ready (the server_startup metric, with its baseline), how often it was
// started, how it stopped, and where its log is.

import type { BenchmarkReport } from '../model.js';
import { codeSpan, escapeMarkdown } from './escape.js';
import { formatChange, formatValue } from './numbers.js';

export function serverLine(benchmark: BenchmarkReport): string | undefined {
  const server = benchmark.server;
  if (!server) return undefined;
  const facts: string[] = [];
  if (server.startupSeconds !== undefined) {
    const metric = benchmark.metrics.find((m) => m.id === 'server_startup');
    const before =
      metric?.baseline !== null && metric?.baseline !== undefined
        ? ` (baseline ${`${formatValue(metric.baseline)} s`}, ${formatChange(metric.change)})`
        : '';
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
