// A stored record's result as mergeByName and withOlderRecords take it, for the drift tests.
import type { BenchmarkResult } from '../../src/model.js';

/** Benchmark 'b' as one record measured it: each metric in ms, lower is better. */
export function recordResult(values: Record<string, number[]>): BenchmarkResult {
  return {
    name: 'b',
    format: 'offline-benchmark',
    runs: [],
    metrics: Object.entries(values).map(([id, v]) => ({
      id,
      unit: 'ms',
      direction: 'lower-is-better' as const,
      values: v,
    })),
  };
}
