// Threshold keys that name no metric: refused when they are no metric name at all, warned
// about once for the gate when no benchmark reports them (files in their tools' shapes).
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { unusedThresholdWarnings } from '../../src/compare/threshold-keys.js';
import { thresholdKeyProblem } from '../../src/config/metric-names.js';
import { parseResultFile } from '../../src/formats/index.js';
import type { BenchmarkResult } from '../../src/model.js';
import { benchmarkResults, fixturePath } from '../formats/support.js';

async function resultOf(fixture: string, format: string, name: string): Promise<BenchmarkResult> {
  const [result] = benchmarkResults(
    await parseResultFile(fixturePath(fixture), format),
    fixture,
    name,
  );
  return result!;
}

/** Each result judged on its own, as `run` judges each configured benchmark. */
function judgedApart(results: BenchmarkResult[], thresholds: Record<string, number>) {
  return results.flatMap((result) =>
    judgeResults([result], { source: 'b.json', benchmarks: [result] }, () => thresholds, {
      confidence: 0.95,
      failOnInconclusive: false,
    }),
  );
}

const SERVE = 'vllm-bench-serve/keys-default-percentiles.json';

describe('a threshold key that is no metric name', () => {
  it('is refused, saying which metric was meant', () => {
    expect(thresholdKeyProblem('thruput', ['offline-benchmark'])).toContain(
      "'thruput' is not a metric of the built-in formats; did you mean 'throughput'?",
    );
    expect(thresholdKeyProblem('ttft_p95', ['vllm-bench-serve'])).toBeUndefined();
    expect(thresholdKeyProblem('default', ['vllm-bench-serve'])).toBeUndefined();
  });

  it('names the metric of a percentile written with a dot, as vLLM keys write it', () => {
    expect(thresholdKeyProblem('ttft_p99.9', ['vllm-bench-serve'])).toContain(
      "did you mean 'ttft_p99_9'?",
    );
  });

  it('is any custom metric name when a benchmark of the gate is custom', () => {
    expect(
      thresholdKeyProblem('build_time', ['vllm-bench-serve', 'custom-smaller-is-better']),
    ).toBeUndefined();
  });
});

describe('a threshold key no benchmark reports', () => {
  it('is one warning for the gate: latency_p99 on a default vLLM serve file', async () => {
    // vllm bench serve writes E2E percentiles only with --percentile-metrics …,e2el.
    const serve = await resultOf(SERVE, 'vllm-bench-serve', 'serve');
    const reports = judgedApart([serve], { latency_p99: 0.2 });
    expect(unusedThresholdWarnings(['latency_p99'], reports)).toEqual([
      "thresholds: 'latency_p99' is set, but no benchmark reports it, so it gates nothing",
    ]);
  });

  it('is no warning when any benchmark of the gate reports it, each judged on its own', async () => {
    const serve = await resultOf(SERVE, 'vllm-bench-serve', 'serve');
    const custom = await resultOf(
      'custom/github-action-benchmark-smaller.json',
      'custom-smaller-is-better',
      'custom',
    );
    const keys = ['throughput', 'my_custom_smaller_is_better_benchmark_cpu_load', 'mfu', 'default'];
    const reports = judgedApart([serve, custom], Object.fromEntries(keys.map((k) => [k, 0.1])));
    expect(unusedThresholdWarnings(keys, reports)).toEqual([]);
    for (const report of reports) expect(report.verdict).not.toBe('error');
  });
});
