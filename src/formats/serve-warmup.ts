// `warmup:` on a `vllm bench serve --save-detailed` result: the run's first requests (by
// `start_times`, else in the file's order, which is the order they were sent) or its first
// seconds are cut from the per-request arrays before the file is parsed, and the figures
// vLLM computed over every request (its latency keys, throughputs, totals) are replaced by
// ones of the requests kept. What was cut is kept beside it: how many, and their median
// TTFT against the rest's, for the report's line.

import { inputError } from '../errors.js';
import type { WarmupRule, WarmupRun } from '../model.js';
import { median } from '../stats/percentile.js';
import { isObject, type JsonObject } from './fields.js';

/** The --save-detailed arrays with one entry per request (generated_texts is not read). */
const PER_REQUEST_KEYS = [
  'input_lens',
  'output_lens',
  'ttfts',
  'itls',
  'latencies',
  'start_times',
  'queue_times',
  'errors',
  'generated_texts',
] as const;

/** The latency keys of each metric whose samples the arrays give (recomputed from them). */
const METRIC_SAMPLES: Record<string, readonly string[]> = {
  ttft: ['ttfts'],
  itl: ['itls'],
  e2el: ['latencies'],
  tpot: ['ttfts', 'latencies', 'output_lens'],
};

/** Figures of all the run's requests with no per-request source: left out, not kept wrong. */
const WHOLE_RUN_KEYS = ['request_goodput', 'request_goodput:', 'max_output_tokens_per_s'];

/**
 * The result without its warm-up requests, and what was cut. Throws an input error naming
 * `warmup:` when the file has no per-request arrays or the rule leaves no request.
 */
export function withoutWarmup(
  data: unknown,
  rule: WarmupRule,
  file: string,
): { data: unknown; run: WarmupRun } {
  if (!isObject(data)) return { data, run: emptyRun(rule) };
  const count = requestCount(data);
  if (count === undefined) {
    throw inputError(
      file,
      'warmup: needs the per-request arrays (ttfts, latencies, itls) of vllm bench serve --save-detailed; add --save-detailed to the command, or remove warmup:',
    );
  }
  const startTimes = numbers(data.start_times, count);
  const excluded = warmupMask(rule, count, startTimes, file);
  const keptCount = count - excluded.reduce((sum, flag) => sum + flag, 0);
  if (keptCount === 0) {
    throw inputError(
      file,
      `warmup: ${ruleText(rule)} leaves none of the run's ${count} requests; lower it, or send more requests a run`,
    );
  }
  const kept = { ...data };
  for (const key of PER_REQUEST_KEYS) {
    const values = data[key];
    if (Array.isArray(values) && values.length === count) {
      kept[key] = values.filter((_, index) => !excluded[index]);
    }
  }
  recomputeTotals(kept, data, excluded, startTimes);
  return {
    data: kept,
    run: {
      rule,
      excluded: count - keptCount,
      kept: keptCount,
      byStartTime: startTimes !== undefined,
      ...ttftMedians(data, excluded),
    },
  };
}

function emptyRun(rule: WarmupRule): WarmupRun {
  return { rule, excluded: 0, kept: 0, byStartTime: false };
}

function ruleText(rule: WarmupRule): string {
  return 'requests' in rule
    ? `the first ${rule.requests} request(s)`
    : `the first ${rule.seconds} s`;
}

/** Requests in the file: the length of its first per-request latency array. */
function requestCount(data: JsonObject): number | undefined {
  for (const key of ['ttfts', 'latencies', 'itls']) {
    const values = data[key];
    if (Array.isArray(values)) return values.length;
  }
  return undefined;
}

/** `values` when it is `count` finite numbers (the parser checks every array later). */
function numbers(values: unknown, count: number): number[] | undefined {
  if (!Array.isArray(values) || values.length !== count) return undefined;
  return values.every((v) => typeof v === 'number' && Number.isFinite(v))
    ? (values as number[])
    : undefined;
}

/** 1 for each request the rule leaves out, in the file's order. */
function warmupMask(
  rule: WarmupRule,
  count: number,
  startTimes: number[] | undefined,
  file: string,
): Uint8Array {
  const mask = new Uint8Array(count);
  // The order requests were sent in: their start times, else the file's order.
  const order = [...Array(count).keys()];
  if (startTimes) order.sort((a, b) => startTimes[a]! - startTimes[b]! || a - b);
  if ('requests' in rule) {
    for (const index of order.slice(0, rule.requests)) mask[index] = 1;
    return mask;
  }
  if (!startTimes) {
    throw inputError(
      file,
      'warmup: { seconds } needs start_times in the result (vllm bench serve --save-detailed writes them since vLLM 0.10); use warmup: { requests: N } instead',
    );
  }
  const cutoff = startTimes[order[0]!]! + rule.seconds;
  for (const index of order) if (startTimes[index]! < cutoff) mask[index] = 1;
  return mask;
}

/**
 * The run's counts, totals and rates over the kept requests; its latency keys dropped
 * where the arrays give their samples, so that the parser computes them from those.
 */
function recomputeTotals(
  kept: JsonObject,
  data: JsonObject,
  excluded: Uint8Array,
  startTimes: number[] | undefined,
): void {
  for (const [metric, sources] of Object.entries(METRIC_SAMPLES)) {
    if (!sources.every((key) => Array.isArray(data[key]))) continue;
    const latencyKey = new RegExp(`^(mean|median|std|p\\d+(\\.\\d+)?)_${metric}_ms$`);
    for (const key of Object.keys(kept)) if (latencyKey.test(key)) delete kept[key];
  }
  for (const key of WHOLE_RUN_KEYS) delete kept[key];
  const errors = Array.isArray(data.errors) ? data.errors : [];
  const ok = (index: number) => !(typeof errors[index] === 'string' && errors[index] !== '');
  const keptIndices = [...excluded.keys()].filter((index) => !excluded[index]);
  const succeeded = keptIndices.filter(ok);
  kept.completed = succeeded.length;
  if (typeof data.failed === 'number') kept.failed = keptIndices.length - succeeded.length;
  const sum = (key: string) => {
    const values = numbers(data[key], excluded.length);
    return values ? succeeded.reduce((total, index) => total + values[index]!, 0) : undefined;
  };
  const input = sum('input_lens');
  const output = sum('output_lens');
  if (input !== undefined) kept.total_input_tokens = input;
  if (output !== undefined) kept.total_output_tokens = output;
  const duration = keptDuration(data, excluded, keptIndices, startTimes);
  if (duration === undefined || duration <= 0) {
    for (const key of ['request_throughput', 'output_throughput', 'total_token_throughput']) {
      delete kept[key];
    }
    delete kept.duration;
    return;
  }
  kept.duration = duration;
  kept.request_throughput = succeeded.length / duration;
  if (output !== undefined) kept.output_throughput = output / duration;
  if (input !== undefined && output !== undefined) {
    kept.total_token_throughput = (input + output) / duration;
  }
}

/**
 * Seconds the kept requests took: from the first one's start to the last one's end when
 * the file has start times and latencies; else the run's duration in proportion to the
 * requests kept (at a set request rate, requests are sent evenly over the run).
 */
function keptDuration(
  data: JsonObject,
  excluded: Uint8Array,
  keptIndices: number[],
  startTimes: number[] | undefined,
): number | undefined {
  const latencies = numbers(data.latencies, excluded.length);
  if (startTimes && latencies) {
    let first = Infinity;
    let last = -Infinity;
    for (const index of keptIndices) {
      first = Math.min(first, startTimes[index]!);
      last = Math.max(last, startTimes[index]! + latencies[index]!);
    }
    return last - first;
  }
  if (typeof data.duration !== 'number') return undefined;
  return (data.duration * keptIndices.length) / excluded.length;
}

/** Median TTFT (ms) of the successful requests cut and kept. */
function ttftMedians(
  data: JsonObject,
  excluded: Uint8Array,
): Pick<WarmupRun, 'excludedTtftMedianMs' | 'keptTtftMedianMs'> {
  const ttfts = numbers(data.ttfts, excluded.length);
  if (!ttfts) return {};
  const errors = Array.isArray(data.errors) ? data.errors : [];
  const cut: number[] = [];
  const rest: number[] = [];
  ttfts.forEach((seconds, index) => {
    if (typeof errors[index] === 'string' && errors[index] !== '') return;
    (excluded[index] ? cut : rest).push(seconds * 1000);
  });
  return {
    ...(cut.length > 0 ? { excludedTtftMedianMs: median(cut) } : {}),
    ...(rest.length > 0 ? { keptTtftMedianMs: median(rest) } : {}),
  };
}
