// The line a benchmark's section gives what `monitor:` watched: the device memory peak by
// kind, NeuronCore use and host peak RSS (the server's and the client's apart, for a
// benchmark with a server), each with its change against the baseline. The
// gated peaks stay rows of the table (their verdict is there); the kinds and the utilisation,
// shown but not gated, are on this line instead of six rows.

import type { BenchmarkReport, Comparison } from '../model.js';
import { formatChange, formatValue } from './numbers.js';

const KIND = /^device_memory_([a-z_]+)_peak$/;
const UTILIZATION = 'neuroncore_utilization_mean';

/** Rows this line shows instead of the table: the device memory kinds and the utilisation. */
export function isMemoryDetail(id: string): boolean {
  return (KIND.test(id) && id !== 'device_memory_peak') || id === UTILIZATION;
}

export function memoryLine(benchmark: BenchmarkReport): string | undefined {
  const find = (id: string) => benchmark.metrics.find((m) => m.id === id && m.current !== null);
  const device = find('device_memory_peak');
  const host = find('host_rss_peak');
  const server = find('server_rss_peak');
  const use = find(UTILIZATION);
  const kinds = benchmark.metrics.filter((m) => isMemoryDetail(m.id) && m.id !== UTILIZATION);
  if (!device && !host && !server && !use && kinds.length === 0) return undefined;
  const facts: string[] = [];
  if (device) {
    const parts = kinds
      .filter((m) => m.current !== null)
      .map((m) => `${KIND.exec(m.id)![1]!.replace('_', ' ')} ${figure(m)}`);
    facts.push(
      `device peak **${figure(device)}**${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`,
    );
  }
  if (use) facts.push(`NeuronCore use ${figure(use)}`);
  if (server) {
    const client = host ? `, client **${figure(host, bytes)}**` : '';
    facts.push(`host peak RSS: server **${figure(server, bytes)}**${client}`);
  } else if (host) {
    facts.push(`host peak RSS **${figure(host, bytes)}**`);
  }
  return `🧠 **Memory** (neuron-monitor, each clean run): ${facts.join('; ')}.`;
}

/** "3,552 MiB (+20.0%)": the current figure, and its change when there is a baseline. */
function figure(metric: Comparison, show = plain): string {
  const value = show(metric);
  return metric.baseline === null ? value : `${value} (${formatChange(metric.change)})`;
}

function plain(metric: Comparison): string {
  const unit = metric.unit === '%' ? '' : ` ${metric.unit}`;
  return `${formatValue(metric.current, metric.unit)}${unit}`;
}

/** Host memory in MiB from 1 GiB on as GiB, the size an instance is chosen by: "1.250 GiB". */
function bytes(metric: Comparison): string {
  if (metric.unit !== 'MiB' || metric.current === null || metric.current < 1024) {
    return plain(metric);
  }
  return `${formatValue(metric.current / 1024)} GiB`;
}
