// Why a verdict has no interval, said as it is: a vllm bench latency file with 15
// latencies has per-request samples, too few for a request bootstrap.
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../src/compare/compare.js';
import { judgeResults } from '../../src/compare/judge.js';
import { parseResultFile } from '../../src/formats/index.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { benchmarkResults, fixturePath } from '../formats/support.js';

async function resultOf(fixture: string): Promise<BenchmarkResult> {
  const parsed = await parseResultFile(fixturePath(fixture), 'vllm-bench-latency');
  return benchmarkResults(parsed, fixture, 'latency')[0]!;
}

describe('a verdict without an interval', () => {
  it('counts the samples it has instead of saying there are none', async () => {
    const result = await resultOf('vllm-bench-latency/num-iters-15.json');
    const [report] = judgeResults(
      [result],
      { source: 'baseline.json', benchmarks: [result] },
      () => ({}),
      { confidence: 0.95, failOnInconclusive: false },
    );
    const byId = (id: string) => report!.metrics.find((m) => m.id === id)!.reason;
    expect(byId('latency_p50')).toContain(
      'a side has one run and 15 per-request samples, fewer than the 20 a request bootstrap needs',
    );
    // The mean is a figure of the file, not of the samples.
    expect(byId('latency_mean')).toContain('this metric has no per-request samples');
  });

  it("reads a percentile from either side's file", () => {
    const samples = Array.from({ length: 15 }, (_, i) => 100 + i);
    const side = (value: number, percentile?: number): Metric => ({
      id: 'latency_p50',
      unit: 'ms',
      direction: 'lower-is-better',
      values: [value],
      samples: [samples.map((v) => (v * value) / 100)],
      ...(percentile === undefined ? {} : { percentile }),
    });
    const fewer = 'a side has one run and 15 per-request samples, fewer than the 20';
    for (const [current, baseline] of [
      [side(112, 50), side(100)],
      [side(112), side(100, 50)],
    ] as const) {
      const c = compareMetric(current, baseline, 0.05, { confidence: 0.95, seed: 's' });
      expect(c.reason).toContain(fewer);
    }
    const neither = compareMetric(side(112), side(100), 0.05, { confidence: 0.95, seed: 's' });
    expect(neither.reason).toContain('per-request samples give an interval for percentiles only');
  });
});
