// The comment's memory line: the device peak with its kinds, NeuronCore use and host peak
// RSS, each with its change; the gated peaks stay rows of the table, the rest leave it.
import { describe, expect, it } from 'vitest';
import type { BenchmarkReport, Comparison } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { memoryLine } from '../../src/report/memory-line.js';
import { benchmark, comparison, expectWellFormed, reportOf } from './support.js';

const mib = (
  id: string,
  baseline: number | null,
  current: number,
  threshold: number | null,
): Comparison =>
  comparison(id, baseline === null ? 0 : current / baseline - 1, {
    unit: 'MiB',
    direction: 'lower-is-better',
    baseline,
    current,
    threshold,
    ...(baseline === null ? { change: null, verdict: 'new' as const } : {}),
  });

function watched(device: number, baseline: number | null): BenchmarkReport {
  const report = benchmark('rerank');
  const memory = [
    mib('device_memory_peak', baseline, device, 0.1),
    mib('device_memory_model_code_peak', baseline && 193.2, 193.2, null),
    mib('device_memory_scratchpad_peak', baseline && 512, 614.4, null),
    comparison('neuroncore_utilization_mean', 0, {
      unit: '%',
      baseline: 42,
      current: 41.5,
      change: -0.0119,
      threshold: null,
    }),
    mib('host_rss_peak', baseline && 500, 505, 0.15),
  ];
  return { ...report, metrics: [...report.metrics, ...memory] };
}

describe('the memory line', () => {
  it('gives the device peak with its kinds, the NeuronCore use and the host peak RSS, with their changes', () => {
    expect(memoryLine(watched(3600, 3000))).toBe(
      '🧠 **Memory** (neuron-monitor, each clean run): device peak **3,600 MiB (+20.0%)** ' +
        '(model code 193.2 MiB (±0.0%), scratchpad 614.4 MiB (+20.0%)); NeuronCore use 41.50% (−1.2%); ' +
        'host peak RSS **505.0 MiB (+1.0%)**.',
    );
  });

  it('gives the figures alone without a baseline', () => {
    expect(memoryLine(watched(3000, null))).toBe(
      '🧠 **Memory** (neuron-monitor, each clean run): device peak **3,000 MiB** ' +
        '(model code 193.2 MiB, scratchpad 614.4 MiB); NeuronCore use 41.50% (−1.2%); host peak RSS **505.0 MiB**.',
    );
  });

  it('is absent when nothing was watched', () => {
    expect(memoryLine(benchmark('rerank'))).toBeUndefined();
  });

  it('keeps the gated peaks in the table and moves the kinds and the use to the line', () => {
    const comment = renderComment(reportOf([watched(3600, 3000)]));
    expectWellFormed(comment);
    const rows = comment.split('\n').filter((line) => line.startsWith('|'));
    expect(rows.some((row) => row.includes('device_memory_peak'))).toBe(true);
    expect(rows.some((row) => row.includes('host_rss_peak'))).toBe(true);
    expect(rows.some((row) => row.includes('scratchpad'))).toBe(false);
    expect(rows.some((row) => row.includes('neuroncore_utilization_mean'))).toBe(false);
    expect(comment).toContain('🧠 **Memory**');
  });
});
