// Synthetic result files of the vllm-neuron offline reranker benchmark, in the exact shape
// of test/fixtures/formats/offline-benchmark/reference.json (times in seconds), drawn
// from a seeded noise model of the reference workload (Qwen3-Reranker-0.6B on
// inf2.xlarge, 10 queries per run, P50 0.307 s, P95 0.397 s).

import type { RunInfo } from '../src/model.js';
import type { Rng } from './random.js';

export interface NoiseModel {
  /** Median per-query latency in seconds. */
  medianSeconds: number;
  /** Standard deviation of ln(latency) between queries of one run. */
  querySigma: number;
  queriesPerRun: number;
  /** Coefficient of variation of the per-run drift factor (0.01 = 1%). */
  runCv: number;
  /** Share of queries that are slow outliers. */
  outlierRate: number;
  /** How much slower an outlier query is. */
  outlierFactor: number;
  /**
   * With a fixed query set (the real script runs the same 10 queries every time), each
   * query keeps its own latency from run to run: `queryOffsets` are its ln offsets (drawn
   * once, `querySigma` apart) and only `queryJitter` (ln-sigma) varies between runs.
   * Without it every run draws fresh queries from the lognormal.
   */
  fixedQueries?: { queryOffsets: number[]; queryJitter: number };
}

/**
 * Run-to-run jitter of one query of a fixed set: the reference workload's pytest rounds vary by 6 ms
 * in 2992 ms for 10 queries (0.2%), i.e. about 0.2% × √10 ≈ 0.63% per query.
 */
export const FIXED_QUERY_JITTER = 0.0063;

/** The ln offsets of a fixed set of queries, drawn once and reused by every run. */
export function drawQuerySet(rng: Rng, model: Omit<NoiseModel, 'runCv'>): number[] {
  return Array.from({ length: model.queriesPerRun }, () => model.querySigma * rng.normal());
}

/**
 * The reference workload: ln((P95 0.3972) / (P50 0.3071)) / 1.645 ≈ 0.156, so a lognormal
 * with that sigma reproduces the published P50/P95; `runCv` is set per noise level.
 */
export const REFERENCE_WORKLOAD: Omit<NoiseModel, 'runCv'> = Object.freeze({
  medianSeconds: 0.307,
  querySigma: 0.156,
  queriesPerRun: 10,
  outlierRate: 0.01,
  outlierFactor: 1.5,
});

/** The `configuration` the script echoes: the reference workload's best configuration. */
const CONFIGURATION = Object.freeze({
  model: './models/Qwen3-0.6B-Reranker',
  tensor_parallel_size: 2,
  max_num_seqs: 4,
  max_num_batched_tokens: 256,
  max_model_len: 2048,
  block_size: 32,
  pa_num_blocks: 512,
  enable_prefix_caching: false,
  enable_bucketing: true,
  kv_cache_quant: false,
  sequence_parallel: false,
  flash_decoding: false,
});

export interface OfflineBenchmarkResult {
  configuration: Record<string, unknown>;
  metrics: {
    avg_time_per_query: number;
    min_time_per_query: number;
    max_time_per_query: number;
    p50_time: number;
    p95_time: number;
    p99_time: number;
    total_queries: number;
    total_time: number;
    throughput_queries_per_sec: number;
  };
  raw_times: number[];
}

/**
 * One run: a drift factor for the whole run (lognormal with CV `runCv`, median 1), then
 * per-query lognormal latencies with rare outliers; `slowdown` (0.05 = 5% slower)
 * multiplies every latency.
 */
export function syntheticRun(rng: Rng, model: NoiseModel, slowdown = 0): OfflineBenchmarkResult {
  const runSigma = Math.sqrt(Math.log1p(model.runCv * model.runCv));
  const drift = Math.exp(runSigma * rng.normal());
  const scale = model.medianSeconds * drift * (1 + slowdown);
  const rawTimes: number[] = [];
  for (let i = 0; i < model.queriesPerRun; i += 1) {
    const outlier = rng.next() < model.outlierRate ? model.outlierFactor : 1;
    const spread = model.fixedQueries
      ? model.fixedQueries.queryOffsets[i]! + model.fixedQueries.queryJitter * rng.normal()
      : model.querySigma * rng.normal();
    rawTimes.push(scale * outlier * Math.exp(spread));
  }
  return offlineResult(rawTimes);
}

export function syntheticRunText(rng: Rng, model: NoiseModel, slowdown = 0): string {
  return JSON.stringify(syntheticRun(rng, model, slowdown), null, 2);
}

/** What offline_benchmark.py writes for these per-query times. */
export function offlineResult(rawTimes: number[]): OfflineBenchmarkResult {
  const sorted = [...rawTimes].sort((a, b) => a - b);
  // The script sums the per-query times, so throughput is queries / sum of latencies.
  const totalTime = rawTimes.reduce((sum, t) => sum + t, 0);
  return {
    configuration: { ...CONFIGURATION },
    metrics: {
      avg_time_per_query: totalTime / rawTimes.length,
      min_time_per_query: sorted[0]!,
      max_time_per_query: sorted[sorted.length - 1]!,
      p50_time: numpyPercentile(sorted, 50),
      p95_time: numpyPercentile(sorted, 95),
      p99_time: numpyPercentile(sorted, 99),
      total_queries: rawTimes.length,
      total_time: totalTime,
      throughput_queries_per_sec: rawTimes.length / totalTime,
    },
    raw_times: rawTimes,
  };
}

/** np.percentile(values, p) with the default 'linear' method, on sorted values. */
export function numpyPercentile(sorted: ArrayLike<number>, p: number): number {
  const rank = (sorted.length - 1) * (p / 100);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  const a = sorted[below]!;
  const b = sorted[above]!;
  const t = rank - below;
  // numpy's _lerp works from the nearer end, which decides the last bit.
  return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t;
}

/** `count` clean runs that each ended well, as a synthetic result's `runs`. */
export function cleanRuns(count: number): RunInfo[] {
  return Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    kind: 'clean' as const,
    ok: true,
    durationMs: 60_000,
    exitCode: 0,
    timedOut: false,
  }));
}
