// `vllm bench serve --save-result --save-detailed` results for tests, in the shape
// vllm/benchmarks/serve.py writes (the summary keys of process_one_metric and the
// per-request arrays of --save-detailed), from a server whose latency grows with load as
// a queue's does: base / (1 − load / saturation). Seeded: the same options, the same file.
import { normal, seededRandom } from '../../src/stats/rng.js';

export interface ServeRunOptions {
  /** request_rate as vllm bench serve echoes it. */
  rate: number;
  /** The rate at which the queue saturates. */
  saturation: number;
  seed: string;
  requests?: number;
  ttftMs?: number;
  tpotMs?: number;
  outputTokens?: number;
  /** Spread of each request's latency (lognormal sigma). */
  requestSpread?: number;
  /** The run's own factor on every latency (run-to-run noise). */
  runFactor?: number;
  /** Without the per-request arrays (no --save-detailed). */
  summaryOnly?: boolean;
}

/** numpy's default percentile, written out independently of src/stats. */
function numpyPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = ((sorted.length - 1) * p) / 100;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

function summaryKeys(name: string, valuesMs: number[]): Record<string, number> {
  const mean = valuesMs.reduce((s, v) => s + v, 0) / valuesMs.length;
  const std = Math.sqrt(valuesMs.reduce((s, v) => s + (v - mean) ** 2, 0) / valuesMs.length);
  return {
    [`mean_${name}_ms`]: mean,
    [`median_${name}_ms`]: numpyPercentile(valuesMs, 50),
    [`std_${name}_ms`]: std,
    [`p50_${name}_ms`]: numpyPercentile(valuesMs, 50),
    [`p99_${name}_ms`]: numpyPercentile(valuesMs, 99),
  };
}

export function serveResult(options: ServeRunOptions): Record<string, unknown> {
  const random = seededRandom(options.seed);
  const requests = options.requests ?? 40;
  const tokens = options.outputTokens ?? 6;
  const spread = options.requestSpread ?? 0.15;
  const queue = 1 / Math.max(0.02, 1 - options.rate / options.saturation);
  const scale = (options.runFactor ?? 1) * queue;
  const noisy = () => Math.exp(spread * normal(random));
  const ttfts: number[] = [];
  const itls: number[][] = [];
  const latencies: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    const ttft = ((options.ttftMs ?? 100) * scale * noisy()) / 1000;
    const gaps = Array.from(
      { length: tokens - 1 },
      () => ((options.tpotMs ?? 20) * Math.sqrt(scale) * noisy()) / 1000,
    );
    ttfts.push(ttft);
    itls.push(gaps);
    latencies.push(ttft + gaps.reduce((s, g) => s + g, 0));
  }
  const duration = requests / options.rate;
  const ms = (seconds: number[]) => seconds.map((s) => s * 1000);
  const tpots = latencies.map((l, i) => ((l - ttfts[i]!) * 1000) / (tokens - 1));
  const result: Record<string, unknown> = {
    date: '20260901-120000',
    endpoint_type: 'openai',
    backend: 'vllm',
    label: null,
    model_id: 'Qwen/Qwen3-0.6B',
    tokenizer_id: 'Qwen/Qwen3-0.6B',
    num_prompts: requests,
    request_rate: options.rate,
    burstiness: 1.0,
    max_concurrency: null,
    duration,
    completed: requests,
    failed: 0,
    total_input_tokens: requests * 128,
    total_output_tokens: requests * tokens,
    request_throughput: requests / duration,
    request_goodput: null,
    output_throughput: (requests * tokens) / duration,
    total_token_throughput: (requests * (tokens + 128)) / duration,
    ...summaryKeys('ttft', ms(ttfts)),
    ...summaryKeys('tpot', tpots),
    ...summaryKeys('itl', ms(itls.flat())),
    ...summaryKeys('e2el', ms(latencies)),
  };
  if (options.summaryOnly) return result;
  return {
    ...result,
    input_lens: ttfts.map(() => 128),
    output_lens: ttfts.map(() => tokens),
    ttfts,
    itls,
    latencies,
    errors: ttfts.map(() => ''),
  };
}
