// The keys that tell SGLang's bench_serving output from vLLM's serve output, which it
// otherwise resembles: both formats' detection asks here, so neither claims the other.

import { isObject } from './fields.js';

/** SGLang's end-to-end latency keys: `mean_e2e_latency_ms`, `p99_e2e_latency_ms`, ... */
export const E2E = /^(mean|median|std|p\d{1,3}(?:\.\d+)?)_e2e_latency_ms$/;

/** The keys only SGLang writes beside request_throughput: what tells it from vLLM. */
export function sglangMarker(data: unknown): string | undefined {
  if (!isObject(data) || !('request_throughput' in data)) return undefined;
  const e2e = Object.keys(data).find((key) => E2E.test(key));
  if (e2e) return `top-level request_throughput and ${e2e}`;
  return 'total_output_tokens_retokenized' in data
    ? 'top-level request_throughput and total_output_tokens_retokenized'
    : undefined;
}
