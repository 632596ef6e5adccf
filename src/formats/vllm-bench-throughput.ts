// `vllm bench throughput --output-json F`: elapsed_time, num_requests, total_num_tokens,
// requests_per_second and tokens_per_second (prompt and output tokens together).

import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import { isObject, requireNonNegative, requireObject } from './fields.js';
import { rateMetric, throughputMetric } from './metrics.js';
import type { ResultFormat } from './types.js';

export const vllmBenchThroughputFormat: ResultFormat = {
  id: 'vllm-bench-throughput',
  description:
    'vllm bench throughput --output-json output (requests_per_second, tokens_per_second)',
  detect: (data) =>
    isObject(data) && 'requests_per_second' in data && 'tokens_per_second' in data
      ? 'top-level requests_per_second and tokens_per_second'
      : undefined,
  parse: parseVllmBenchThroughput,
};

function parseVllmBenchThroughput(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(data, file, '', 'an object with requests_per_second');
  const metrics: ParsedMetric[] = [
    throughputMetric(
      requireNonNegative(
        root.requests_per_second,
        file,
        'requests_per_second',
        'requests per second',
      ),
      'requests/s',
    ),
    rateMetric(
      'tokens_per_second',
      requireNonNegative(root.tokens_per_second, file, 'tokens_per_second', 'tokens per second'),
      'tokens/s',
    ),
  ];
  const benchmark: ParsedBenchmark = { metrics };
  const info: Record<string, unknown> = {};
  for (const key of ['num_requests', 'total_num_tokens', 'elapsed_time']) {
    if (typeof root[key] === 'number') info[key] = root[key];
  }
  if (Object.keys(info).length > 0) benchmark.info = info;
  return [benchmark];
}
