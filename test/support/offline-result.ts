// Builds result files in the reference offline-benchmark shape for tests.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** numpy's default percentile, written out independently of src/stats for cross-checking. */
function numpyPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = ((sorted.length - 1) * p) / 100;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

export function offlineResult(rawTimes: number[]) {
  const total = rawTimes.reduce((a, b) => a + b, 0);
  return {
    configuration: {
      model: './models/Qwen3-0.6B-Reranker',
      max_num_seqs: 4,
      enable_bucketing: true,
    },
    metrics: {
      avg_time_per_query: total / rawTimes.length,
      min_time_per_query: Math.min(...rawTimes),
      max_time_per_query: Math.max(...rawTimes),
      p50_time: numpyPercentile(rawTimes, 50),
      p95_time: numpyPercentile(rawTimes, 95),
      p99_time: numpyPercentile(rawTimes, 99),
      total_queries: rawTimes.length,
      total_time: total,
      throughput_queries_per_sec: rawTimes.length / total,
    },
    raw_times: rawTimes,
  };
}

/** Ten latencies around 300 ms, scaled by `factor`, with a per-run wobble. */
export function rawTimes(factor: number, run: number): number[] {
  const base = [0.2961, 0.3012, 0.2987, 0.3071, 0.3105, 0.295, 0.334, 0.3972, 0.312, 0.315];
  return base.map((t, i) => t * factor * (1 + 0.002 * Math.sin(run * 7 + i)));
}

export async function tempDir(prefix = 'perf-gate-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function writeJson(dir: string, name: string, data: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(data, null, 2));
  return path;
}
