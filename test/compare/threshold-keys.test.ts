// Threshold keys that name no metric, on files in the shapes their tools write.
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { parseResultFile } from '../../src/formats/index.js';
import type { BenchmarkResult } from '../../src/model.js';
import { fixturePath } from '../formats/support.js';

async function resultOf(fixture: string, format: string, name: string): Promise<BenchmarkResult> {
  const parsed = await parseResultFile(fixturePath(fixture), format);
  const [benchmark] = aggregateRuns(
    parsed.runs.map((benchmarks) => ({ file: fixture, benchmarks })),
    name,
  );
  return { name, format: parsed.format, metrics: benchmark!.metrics, runs: [] };
}

function judge(results: BenchmarkResult[], thresholds: Record<string, number>) {
  return judgeResults(results, { source: 'baseline.json', benchmarks: results }, () => thresholds, {
    confidence: 0.95,
    failOnInconclusive: false,
  });
}

describe('threshold keys', () => {
  it("refuses a key that is no metric's name, saying which one was meant", async () => {
    const offline = await resultOf(
      'offline-benchmark/reference.json',
      'offline-benchmark',
      'rerank',
    );
    const [report] = judge([offline], { thruput: 0.05 });
    expect(report!.verdict).toBe('error');
    expect(report!.error).toContain(
      "thresholds: 'thruput' is not a metric; did you mean 'throughput'?",
    );
  });

  it('warns about a metric no benchmark reports: latency_p99 on a default vLLM serve file', async () => {
    // vllm bench serve writes E2EL percentiles only with --percentile-metrics …,e2el.
    const serve = await resultOf(
      'vllm-bench-serve/keys-default-percentiles.json',
      'vllm-bench-serve',
      'serve',
    );
    const [report] = judge([serve], { latency_p99: 0.2 });
    expect(report!.verdict).not.toBe('error');
    expect(report!.warnings).toContain(
      "thresholds: 'latency_p99' is set, but no benchmark reports it, so it gates nothing",
    );
  });

  it('says nothing when another benchmark of the gate reports the metric', async () => {
    const serve = await resultOf(
      'vllm-bench-serve/keys-default-percentiles.json',
      'vllm-bench-serve',
      'serve',
    );
    const offline = await resultOf(
      'offline-benchmark/reference.json',
      'offline-benchmark',
      'rerank',
    );
    const reports = judge([serve, offline], { latency_p99: 0.2, ttft_p99: 0.2 });
    for (const report of reports) {
      expect(report.verdict).not.toBe('error');
      expect(report.warnings.filter((w) => w.startsWith('thresholds:'))).toEqual([]);
    }
  });

  it('only warns for a custom file, whose metrics are named by the file', async () => {
    const custom = await resultOf(
      'custom/github-action-benchmark-smaller.json',
      'custom-smaller-is-better',
      'custom',
    );
    const [report] = judge([custom], { 'my-bench': 0.1 });
    expect(report!.verdict).not.toBe('error');
    expect(report!.warnings.some((w) => w.startsWith("thresholds: 'my-bench' is set"))).toBe(true);
  });
});
