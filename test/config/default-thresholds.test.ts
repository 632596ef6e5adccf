import { describe, expect, it } from 'vitest';
import {
  builtInThreshold,
  percentileOfId,
  thresholdOf,
} from '../../src/config/default-thresholds.js';
import { judgeResults } from '../../src/compare/judge.js';
import type { BenchmarkResult } from '../../src/model.js';

describe('built-in thresholds', () => {
  it.each([
    ['throughput', 'vllm-bench-serve', 0.05],
    ['goodput', 'vllm-bench-serve', 0.05],
    ['tokens_per_second', 'guidellm', 0.05],
    ['ttft_p50', 'vllm-bench-serve', 0.05],
    ['tpot_mean', 'vllm-bench-serve', 0.05],
    ['itl_p95', 'vllm-bench-serve', 0.1],
    ['latency_p90', 'nxdi-benchmark-report', 0.1],
    ['e2el_p99', 'vllm-bench-serve', 0.15],
    ['ttft_p99_9', 'vllm-bench-serve', 0.15],
    ['latency_p100', 'nxdi-benchmark-report', 0.2],
    ['latency_p10', 'vllm-bench-latency', 0.05],
    ['latency_min', 'pytest-benchmark', 0.05],
    ['mfu', 'offline-benchmark', 0.1],
    ['cpu_load', 'custom-smaller-is-better', 0.1],
    ['tokens_per_second', 'custom-bigger-is-better', 0.1],
    ['latency_p99', 'pytest-benchmark', null],
    ['latency_p95', 'pytest-benchmark', null],
    ['latency_p99', 'offline-benchmark', 0.15],
  ])('%s of %s: %s', (id, format, expected) => {
    expect(builtInThreshold(id, format)).toBe(expected);
  });

  it('reads percentiles from ids', () => {
    expect(percentileOfId('latency_p99')).toBe(99);
    expect(percentileOfId('ttft_p99_9')).toBe(99.9);
    expect(percentileOfId('latency_mean')).toBeUndefined();
  });

  it('takes the config value, then default, then the built-in one; off is null', () => {
    const configured = { throughput: 0.02, itl_p99: 0, default: 0.08 };
    expect(thresholdOf(configured, 'throughput', 'vllm-bench-serve')).toBe(0.02);
    expect(thresholdOf(configured, 'itl_p99', 'vllm-bench-serve')).toBeNull();
    expect(thresholdOf(configured, 'ttft_p99', 'vllm-bench-serve')).toBe(0.08);
    expect(thresholdOf({}, 'ttft_p99', 'vllm-bench-serve')).toBe(0.15);
    expect(thresholdOf({ default: 0 }, 'ttft_p99', 'vllm-bench-serve')).toBeNull();
    expect(thresholdOf({ default: 0, mfu: 0.1 }, 'mfu', 'offline-benchmark')).toBe(0.1);
  });
});

describe('judging with default thresholds', () => {
  const result = (value: number): BenchmarkResult => ({
    name: 'custom',
    format: 'custom-smaller-is-better',
    metrics: [{ id: 'cpu_load', unit: 'Percent', direction: 'lower-is-better', values: [value] }],
    runs: [],
  });
  const options = { confidence: 0.95, failOnInconclusive: false };

  it('fails a custom metric 30% worse with no config', () => {
    const [report] = judgeResults(
      [result(65)],
      { source: 'b', benchmarks: [result(50)] },
      () => ({}),
      options,
    );
    expect(report?.verdict).toBe('regression');
    expect(report?.metrics.find((m) => m.id === 'cpu_load')?.threshold).toBe(0.1);
    expect(report?.warnings).toEqual([]);
  });

  it('warns when every metric is switched off, and passes', () => {
    const [report] = judgeResults(
      [result(65)],
      { source: 'b', benchmarks: [result(50)] },
      () => ({ default: 0 }),
      options,
    );
    expect(report?.verdict).toBe('pass');
    expect(report?.warnings.join('\n')).toMatch(/no metric of this benchmark is gated/);
  });
});
