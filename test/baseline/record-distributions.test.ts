// A record keeps each latency distribution as a bounded histogram of all the measured
// requests (the dashboard's CDFs); records written before they were kept read as before.
import { describe, expect, it } from 'vitest';
import { createRecord } from '../../src/baseline/record-create.js';
import { parseRecord, serializeRecord } from '../../src/baseline/record-text.js';
import { withoutSamplesOrAnswers } from '../../src/baseline/record.js';
import type { BenchmarkResult } from '../../src/model.js';

function served(requests: number): BenchmarkResult {
  const ttft = Float64Array.from({ length: requests }, (_, i) => 50 + (i % 1000) * 0.5);
  return {
    name: 'qwen3-serve/rate-4',
    format: 'vllm-bench-serve',
    metrics: [
      {
        id: 'ttft_p50',
        unit: 'ms',
        direction: 'lower-is-better',
        values: [300],
        samples: [ttft],
        percentile: 50,
      },
      { id: 'throughput', unit: 'requests/s', direction: 'higher-is-better', values: [4] },
    ],
    runs: [],
  };
}

const recordOf = (result: BenchmarkResult) =>
  createRecord({
    gateKey: 'default',
    result,
    commit: 'a'.repeat(40),
    branch: 'main',
    event: 'schedule',
    runId: '1',
    verdict: 'pass',
    createdAt: '2026-11-30T02:00:00.000Z',
  });

describe("a record's latency histograms", () => {
  it('count every request measured, in at most 64 buckets, for 1M requests', () => {
    const record = recordOf(served(1_000_000));
    const ttft = record.result.distributions?.ttft;
    expect(ttft?.count).toBe(1_000_000);
    expect(ttft?.counts.length).toBeLessThanOrEqual(64);
    expect(ttft?.min).toBe(50);
    expect(ttft?.max).toBe(549.5);
    // The stored samples are reduced; the histogram still holds all of them.
    expect(record.result.metrics[0]!.samples![0]!.length).toBeLessThanOrEqual(2_000);
    expect(JSON.stringify(record.result.distributions).length).toBeLessThan(2_000);
  });

  it('are read back, and kept where a store drops the samples', () => {
    const read = parseRecord(serializeRecord(recordOf(served(500))));
    expect(read.result.distributions?.ttft?.count).toBe(500);
    expect(withoutSamplesOrAnswers(read).result.distributions?.ttft?.count).toBe(500);
  });

  it('may be absent: a record written before them reads as before', () => {
    const data = JSON.parse(serializeRecord(recordOf(served(100))));
    delete data.result.distributions;
    expect(parseRecord(JSON.stringify(data)).result.distributions).toBeUndefined();
  });

  it('are refused with more than 64 buckets', () => {
    const data = JSON.parse(serializeRecord(recordOf(served(100))));
    const edges = Array.from({ length: 101 }, (_, i) => i);
    data.result.distributions.ttft = {
      count: 100,
      min: 0,
      max: 100,
      edges,
      counts: edges.slice(1),
    };
    expect(() => parseRecord(JSON.stringify(data))).toThrow(/64 buckets/);
  });
});
