// `neuron-perf-gate compare` on optimum-neuron's embedding benchmark output, from the
// committed bundle with no config: the built-in thresholds gate each latency and rate the
// file holds, and a copy with one figure worse fails on that figure alone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';
import { compareTexts, failingIds } from '../support/compare-files.js';

const REFERENCE = readFileSync(
  join(ROOT, 'test', 'fixtures', 'formats', 'optimum-neuron-benchmark', 'reference.json'),
  'utf8',
);

/** The reference with `key` multiplied by `factor`, every other key as it was. */
function withFigure(key: string, factor: number): string {
  const data = JSON.parse(REFERENCE) as Record<string, number>;
  expect(data[key], key).toBeTypeOf('number');
  return JSON.stringify({ ...data, [key]: data[key]! * factor }, null, 2);
}

describe('compare on optimum-neuron-benchmark files', () => {
  it('passes an unchanged copy, read as optimum-neuron-benchmark with every figure', async () => {
    const run = await compareTexts(REFERENCE, REFERENCE);
    expect(run.code, run.stderr).toBe(0);
    const [benchmark] = run.report.benchmarks;
    expect(benchmark.format).toBe('optimum-neuron-benchmark');
    expect(benchmark.metrics.map((metric: { id: string }) => metric.id)).toEqual(
      expect.arrayContaining([
        'throughput',
        'tokens_per_second',
        'latency_p50',
        'latency_p90',
        'latency_p99',
        'latency_mean',
      ]),
    );
    expect(failingIds(run.report)).toEqual([]);
  });

  it.each([
    ['P99 50% slower', 'latency_p99_ms', 1.5, ['latency_p99']],
    ['P50 30% slower', 'latency_p50_ms', 1.3, ['latency_p50']],
    ['throughput 30% lower', 'requests_per_second', 0.7, ['throughput']],
  ])('fails a copy with %s on that metric alone', async (_what, key, factor, failing) => {
    const run = await compareTexts(REFERENCE, withFigure(key, factor));
    expect(run.code, run.stderr).toBe(1);
    expect(failingIds(run.report)).toEqual(failing);
  });
});
