// Why a verdict has no interval, said as it is: a vllm bench latency file with 15
// latencies has per-request samples, too few for a request bootstrap.
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { parseResultFile } from '../../src/formats/index.js';
import type { BenchmarkResult } from '../../src/model.js';
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
});
