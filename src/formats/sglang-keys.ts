// The keys that tell SGLang's bench_serving output from vLLM's serve output, which it
// otherwise resembles: both formats' detection asks here, so neither claims the other.

import { isObject } from './fields.js';

/** SGLang's end-to-end latency keys: `mean_e2e_latency_ms`, `p99_e2e_latency_ms`, ... */
export const E2E = /^(mean|median|std|p\d{1,3}(?:\.\d+)?)_e2e_latency_ms$/;

/**
 * Serving keys every bench_serving version since 0.2.11 wrote, one at least: versions
 * up to 0.4.1.post7 wrote no request_throughput (python/sglang/bench_serving.py), and
 * 0.2.11 to 0.4.1.post3 no mean TTFT either, only its median.
 */
const SERVING_KEYS = ['request_throughput', 'output_throughput', 'median_ttft_ms'] as const;

/** The keys only SGLang writes beside its serving keys: what tells it from vLLM. */
export function sglangMarker(data: unknown): string | undefined {
  if (!isObject(data)) return undefined;
  const serving = SERVING_KEYS.find((key) => key in data);
  if (serving === undefined) return undefined;
  const own =
    Object.keys(data).find((key) => E2E.test(key)) ??
    ('total_output_tokens_retokenized' in data ? 'total_output_tokens_retokenized' : undefined);
  return own === undefined ? undefined : `top-level ${serving} and ${own}`;
}
