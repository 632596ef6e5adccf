// The memory line of a benchmark with a server: the server's host peak RSS and the client's
// apart, each with its change, a server past 1 GiB in GiB; both stay gated rows of the table.
import { describe, expect, it } from 'vitest';
import type { BenchmarkReport, Comparison } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { memoryLine } from '../../src/report/memory-line.js';
import { benchmark, comparison, expectWellFormed, reportOf } from './support.js';

const mib = (id: string, baseline: number | null, current: number): Comparison =>
  comparison(id, baseline === null ? 0 : current / baseline - 1, {
    unit: 'MiB',
    direction: 'lower-is-better',
    baseline,
    current,
    threshold: id === 'server_rss_peak' ? 0.1 : 0.15,
    ...(baseline === null ? { change: null, verdict: 'new' as const } : {}),
  });

function served(server: number, baseline: number | null, client = 62): BenchmarkReport {
  const report = benchmark('qwen3-serve');
  const memory = [
    mib('server_rss_peak', baseline, server),
    mib('host_rss_peak', baseline === null ? null : client, client),
  ];
  return { ...report, metrics: [...report.metrics, ...memory] };
}

describe('the memory line of a served benchmark', () => {
  it("gives the server's host peak RSS and the client's apart, with their changes", () => {
    expect(memoryLine(served(1597.44, 1228.8))).toBe(
      '🧠 **Memory** (neuron-monitor, each clean run): host peak RSS: server **1.560 GiB (+30.0%)**, ' +
        'client **62.00 MiB (±0.0%)**.',
    );
  });

  it('gives the figures alone without a baseline, a server under 1 GiB in MiB', () => {
    expect(memoryLine(served(196.8, null))).toBe(
      '🧠 **Memory** (neuron-monitor, each clean run): host peak RSS: server **196.8 MiB**, ' +
        'client **62.00 MiB**.',
    );
  });

  it('keeps both as rows of the table, each with its own verdict', () => {
    const comment = renderComment(reportOf([served(1597.44, 1228.8)]));
    expectWellFormed(comment);
    const rows = comment.split('\n').filter((line) => line.startsWith('|'));
    expect(rows.find((row) => row.includes('server_rss_peak'))).toMatch(/regression/);
    expect(rows.find((row) => row.includes('host_rss_peak'))).not.toMatch(/regression/);
    expect(comment).toContain('host peak RSS: server **1.560 GiB (+30.0%)**');
  });
});
