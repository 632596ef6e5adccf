// `vllm bench throughput --output-json F`: elapsed_time, num_requests, total_num_tokens,
// requests_per_second and tokens_per_second (prompt and output tokens together), all five
// in every file (vllm/benchmarks/throughput.py, main): detection asks for all five, since
// other tools write the two rates too (optimum-neuron's embedding benchmark).

import type { ParsedBenchmark, ParsedMetric } from '../model.js';
import { definedByKeys } from './defining-keys.js';
import { measuredOrNoted, requireNonNegative, requireObject, type NotMeasured } from './fields.js';
import { rateDefinition, rateMetric, throughputMetric } from './metrics.js';
import type { ResultFormat } from './types.js';

export const vllmBenchThroughputFormat: ResultFormat = {
  id: 'vllm-bench-throughput',
  description:
    'vllm bench throughput --output-json output (requests_per_second, tokens_per_second)',
  ...definedByKeys([
    'elapsed_time',
    'num_requests',
    'total_num_tokens',
    'requests_per_second',
    'tokens_per_second',
  ]),
  parse: parseVllmBenchThroughput,
};

function parseVllmBenchThroughput(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(data, file, '', 'an object with requests_per_second');
  // A NaN rate (no request finished in time) is not measured; the other one still is.
  const notes: NotMeasured = {};
  const metrics: ParsedMetric[] = [];
  const requests = measuredOrNoted(
    root.requests_per_second,
    file,
    'requests_per_second',
    'requests per second',
    rateDefinition('throughput', 'requests/s'),
    notes,
  );
  if (requests !== undefined) metrics.push(throughputMetric(requests, 'requests/s'));
  else if (notes.throughput === undefined) {
    requireNonNegative(
      root.requests_per_second,
      file,
      'requests_per_second',
      'requests per second',
    );
  }
  const tokens = measuredOrNoted(
    root.tokens_per_second,
    file,
    'tokens_per_second',
    'tokens per second',
    rateDefinition('tokens_per_second', 'tokens/s'),
    notes,
  );
  if (tokens !== undefined) metrics.push(rateMetric('tokens_per_second', tokens, 'tokens/s'));
  else if (notes.tokens_per_second === undefined) {
    requireNonNegative(root.tokens_per_second, file, 'tokens_per_second', 'tokens per second');
  }
  const benchmark: ParsedBenchmark = { metrics };
  if (Object.keys(notes).length > 0) benchmark.notMeasured = notes;
  const info: Record<string, unknown> = {};
  for (const key of ['num_requests', 'total_num_tokens', 'elapsed_time']) {
    if (typeof root[key] === 'number') info[key] = root[key];
  }
  if (Object.keys(info).length > 0) benchmark.info = info;
  return [benchmark];
}
