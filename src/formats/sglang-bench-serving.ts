// SGLang's `python -m sglang.bench_serving --output-file F`: one JSON object per line
// (appended), with vLLM's serve keys for throughput, TTFT, TPOT and ITL, but end-to-end
// latency as `<stat>_e2e_latency_ms` and the total rate as `total_throughput`
// (sglang/bench_serving.py, `result = {...}`). Read by the vLLM serve parser once those
// keys carry vLLM's names, so the figures and ids are the same for both tools. Versions
// 0.2.11 to 0.4.1.post7 wrote no request_throughput (and up to 0.4.1.post3 only the
// medians of TTFT and ITL): read the same way, with the rates they lack not measured.

import type { ParsedBenchmark } from '../model.js';
import { requireObject, type JsonObject } from './fields.js';
import { E2E, sglangMarker } from './sglang-keys.js';
import type { ResultFormat } from './types.js';
import { parseServeResult } from './vllm-bench-serve.js';

/**
 * The workload settings SGLang echoes beside vLLM's (sglang/bench_serving.py): lines that
 * differ in them are other benchmarks, named by them (`random_input_len=4096`).
 */
const SETTINGS = [
  'dataset_name',
  'random_input_len',
  'random_output_len',
  'random_range_ratio',
  'sharegpt_output_len',
  'num_prompts',
  'mode',
] as const;

export const sglangBenchServingFormat: ResultFormat = {
  id: 'sglang-bench-serving',
  serving: true,
  description:
    'python -m sglang.bench_serving --output-file output (<stat>_e2e_latency_ms, output_throughput; one JSON per line)',
  detect: sglangMarker,
  parse: parseSglang,
  jsonLines: true,
  runSettings: ['backend', 'request_rate', 'max_concurrency', ...SETTINGS],
};

function parseSglang(data: unknown, file: string): ParsedBenchmark[] {
  const root = requireObject(data, file, '', 'an object of bench_serving results');
  return parseServeResult(withVllmNames(root), file, sglangKeyName).map((benchmark) => {
    const info: Record<string, unknown> = { ...benchmark.info };
    for (const key of SETTINGS) {
      if (root[key] !== undefined && root[key] !== null) info[key] = root[key];
    }
    // Its own settings are settings, not `--metadata` tags as vLLM's parser took them.
    const tags = { ...(info.metadata as Record<string, unknown> | undefined) };
    for (const key of SETTINGS) delete tags[key];
    if (Object.keys(tags).length > 0) info.metadata = tags;
    else delete info.metadata;
    return { ...benchmark, info };
  });
}

/** SGLang's name for a vLLM key, for the notes of the rates a line lacks. */
function sglangKeyName(vllmKey: string): string {
  return vllmKey === 'total_token_throughput' ? 'total_throughput' : vllmKey;
}

/** The line with SGLang's names for E2E latency and the total rate changed to vLLM's. */
function withVllmNames(root: JsonObject): JsonObject {
  const renamed: JsonObject = {};
  for (const [key, value] of Object.entries(root)) {
    const e2e = E2E.exec(key);
    if (e2e) renamed[`${e2e[1]}_e2el_ms`] = value;
    else if (key === 'total_throughput' && !('total_token_throughput' in root)) {
      renamed.total_token_throughput = value;
    } else renamed[key] = value;
  }
  return renamed;
}
