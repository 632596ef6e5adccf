// "The server's view": the line a benchmark's section gives the figures its server reported
// on /metrics around each clean run (observe/server-view.ts), beside the client's latency:
// queue time and time to first token as the server measured them against the client's
// TTFT, preemptions, KV-cache usage peak, prefix-cache hit rate, requests waiting at the
// peak, each with its change against the baseline. Not gated unless the config gives a
// threshold: a gated one stays a row of the table, where its verdict is.

import { SERVER_VIEW_IDS as IDS } from '../config/default-thresholds.js';
import type { BenchmarkReport, Comparison } from '../model.js';
import { formatChange, formatValue } from './numbers.js';

/** Rows this line shows instead of the table: the server's figures that are not gated. */
export function isServerViewDetail(metric: Comparison): boolean {
  return IDS.includes(metric.id) && metric.threshold === null;
}

export function serverViewLine(benchmark: BenchmarkReport): string | undefined {
  const find = (id: string) => benchmark.metrics.find((m) => m.id === id && m.current !== null);
  const figures = IDS.map(find);
  if (figures.every((metric) => metric === undefined)) return undefined;
  const [queue, ttft, preemptions, kv, prefix, waiting] = figures;
  const facts: string[] = [];
  if (queue) facts.push(`queue time **${figure(queue, seconds)}** a request`);
  if (ttft) {
    const client = find('ttft_mean');
    const beside = client ? ` (the client's **${figure(client)}**)` : '';
    facts.push(`time to first token ${figure(ttft, seconds)}${beside}`);
  }
  if (preemptions) facts.push(`preemptions **${figure(preemptions, count)}**`);
  if (kv) facts.push(`KV-cache usage peak ${figure(kv)}`);
  if (prefix) facts.push(`prefix-cache hit rate ${figure(prefix)}`);
  if (waiting) facts.push(`requests waiting at the peak ${figure(waiting, count)}`);
  return `🛰️ **The server's view** (its /metrics, mean of the clean runs): ${facts.join('; ')}.`;
}

/** "0.420 s (+120.0%)", or with the baseline's figure when the change is not a ratio. */
function figure(metric: Comparison, show = plain): string {
  const value = show(metric.current, metric.unit);
  if (metric.baseline === null) return value;
  // A count or a time of 0 before has no relative change: its figure says it.
  const change =
    metric.baseline === 0 ? `baseline ${show(0, metric.unit)}` : formatChange(metric.change);
  return `${value} (${change})`;
}

function plain(value: number | null, unit: string): string {
  return unit === '%' ? `${formatValue(value)}%` : `${formatValue(value)} ${unit}`;
}

function seconds(value: number | null): string {
  return value !== null && value < 1 ? `${formatValue(value * 1000)} ms` : plain(value, 's');
}

function count(value: number | null): string {
  return value !== null && Number.isInteger(value) ? String(value) : formatValue(value);
}
