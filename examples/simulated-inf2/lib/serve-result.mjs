// What `vllm bench serve --save-result` writes and prints, from the measured requests:
// the figures of calculate_metrics() and the keys of the result JSON of
// vllm/benchmarks/serve.py (vllm-project/vllm at 009e6d4a, `benchmark()` and
// `main_async()`): request and token throughputs, mean/median/std/p<P> of each
// --percentile-metrics metric in ms, and with --save-detailed the per-request arrays
// (input_lens, output_lens, ttfts, itls, start_times, generated_texts, errors; latencies and
// queue_times are kept either way), times in seconds.
import { numpyMean, numpyPercentile } from './numpy-stats.mjs';

/** Keys vLLM drops without --save-detailed ("fields with too many data points"). */
const DETAILED_KEYS = [
  'input_lens',
  'output_lens',
  'start_times',
  'ttfts',
  'itls',
  'generated_texts',
  'errors',
];

const HEADERS = {
  ttft: ['TTFT', 'Time to First Token'],
  tpot: ['TPOT', 'Time per Output Token (excl. 1st token)'],
  itl: ['ITL', 'Inter-token Latency'],
  e2el: ['E2EL', 'End-to-end Latency'],
};

const mean = (values) => (values.length === 0 ? 0 : numpyMean(values));
const percentile = (values, p) => (values.length === 0 ? 0 : numpyPercentile(values, p));
function std(values) {
  if (values.length === 0) return 0;
  const m = numpyMean(values);
  return Math.sqrt(numpyMean(values.map((v) => (v - m) ** 2)));
}

/** `99` → "99", `99.9` → "99.9": vLLM's p_word. */
const pWord = (p) => (Number.isInteger(p) ? String(p) : String(p));

/**
 * calculate_metrics(): `outputs` are the requests as measured ({ success, ttft, itl,
 * latency, promptLen, outputLen, startTime, error, text }), seconds.
 */
export function calculateMetrics(outputs, durationSeconds) {
  const ok = outputs.filter((o) => o.success);
  const ttfts = ok.map((o) => o.ttft);
  const e2els = ok.map((o) => o.latency);
  const itls = ok.flatMap((o) => o.itl);
  const tpots = ok
    .filter((o) => o.outputLen > 1)
    .map((o) => (o.latency - o.ttft) / (o.outputLen - 1));
  const totalInput = ok.reduce((sum, o) => sum + o.promptLen, 0);
  const totalOutput = ok.reduce((sum, o) => sum + o.outputLen, 0);
  return {
    completed: ok.length,
    failed: outputs.length - ok.length,
    totalInput,
    totalOutput,
    requestThroughput: ok.length / durationSeconds,
    outputThroughput: totalOutput / durationSeconds,
    totalTokenThroughput: (totalInput + totalOutput) / durationSeconds,
    samples: { ttft: ttfts, tpot: tpots, itl: itls, e2el: e2els },
    ...peaks(ok),
  };
}

/** Output tokens in the busiest second, and the requests in flight then (1-s buckets). */
function peaks(ok) {
  if (ok.length === 0) return { maxOutputTokensPerS: 0, maxConcurrentRequests: 0 };
  const start = Math.min(...ok.map((o) => o.startTime));
  const end = Math.max(...ok.map((o) => o.startTime + o.latency));
  const seconds = Math.ceil(end - start) + 1;
  const tokens = new Array(seconds).fill(0);
  const concurrent = new Array(seconds).fill(0);
  for (const o of ok) {
    let at = o.startTime + o.ttft;
    for (const time of [at, ...o.itl.map((gap) => (at += gap))]) {
      const bucket = Math.floor(time - start);
      if (bucket >= 0 && bucket < seconds) tokens[bucket] += 1;
    }
    const first = Math.floor(o.startTime - start);
    const last = Math.floor(o.startTime + o.latency - start);
    for (let second = first; second <= last; second += 1) concurrent[second] += 1;
  }
  const busiest = tokens.indexOf(Math.max(...tokens));
  return { maxOutputTokensPerS: tokens[busiest], maxConcurrentRequests: Math.max(...concurrent) };
}

/** The result JSON, keys in vLLM's order. */
export function buildResult({ args, modelId, date, durationSeconds, outputs, metrics }) {
  const result = {
    date,
    endpoint_type: args.backend,
    backend: args.backend,
    label: args.label,
    model_id: modelId,
    tokenizer_id: args.tokenizer ?? modelId,
    num_prompts: outputs.length,
  };
  for (const pair of args.metadata) {
    const eq = pair.indexOf('=');
    result[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  Object.assign(result, {
    request_rate: Number.isFinite(args.requestRate) ? args.requestRate : 'inf',
    burstiness: args.burstiness,
    max_concurrency: args.maxConcurrency,
    duration: durationSeconds,
    completed: metrics.completed,
    failed: metrics.failed,
    total_input_tokens: metrics.totalInput,
    total_output_tokens: metrics.totalOutput,
    request_throughput: metrics.requestThroughput,
    request_goodput: null,
    output_throughput: metrics.outputThroughput,
    total_token_throughput: metrics.totalTokenThroughput,
    input_lens: outputs.map((o) => o.promptLen),
    output_lens: outputs.map((o) => (o.success ? o.outputLen : 0)),
    ttfts: outputs.map((o) => o.ttft),
    itls: outputs.map((o) => o.itl),
    latencies: outputs.map((o) => o.latency),
    start_times: outputs.map((o) => o.startTime),
    queue_times: outputs.map((o) => o.queueTime),
    generated_texts: outputs.map((o) => o.text),
    errors: outputs.map((o) => o.error),
    max_output_tokens_per_s: metrics.maxOutputTokensPerS,
    max_concurrent_requests: metrics.maxConcurrentRequests,
    rtfx: 0,
  });
  for (const name of args.percentileMetrics) {
    const values = metrics.samples[name];
    result[`mean_${name}_ms`] = mean(values) * 1000;
    result[`median_${name}_ms`] = percentile(values, 50) * 1000;
    result[`std_${name}_ms`] = std(values) * 1000;
    for (const p of args.percentiles)
      result[`p${pWord(p)}_${name}_ms`] = percentile(values, p) * 1000;
  }
  if (!args.saveDetailed) for (const key of DETAILED_KEYS) delete result[key];
  return result;
}

/** The block vLLM prints after the run. */
export function summaryLines({ args, durationSeconds, metrics, result }) {
  const row = (label, value) => `${label.padEnd(40)} ${value}`;
  const lines = [
    center(' Serving Benchmark Result ', '='),
    row('Successful requests:', metrics.completed),
    row('Failed requests:', metrics.failed),
  ];
  if (args.maxConcurrency !== null)
    lines.push(row('Maximum request concurrency:', args.maxConcurrency));
  if (Number.isFinite(args.requestRate))
    lines.push(row('Request rate configured (RPS):', args.requestRate.toFixed(2)));
  lines.push(
    row('Benchmark duration (s):', durationSeconds.toFixed(2)),
    row('Total input tokens:', metrics.totalInput),
    row('Total generated tokens:', metrics.totalOutput),
    row('Request throughput (req/s):', metrics.requestThroughput.toFixed(2)),
    row('Output token throughput (tok/s):', metrics.outputThroughput.toFixed(2)),
    row('Peak output token throughput (tok/s):', metrics.maxOutputTokensPerS.toFixed(2)),
    row('Peak concurrent requests:', metrics.maxConcurrentRequests.toFixed(2)),
    row('Total token throughput (tok/s):', metrics.totalTokenThroughput.toFixed(2)),
  );
  for (const name of args.percentileMetrics) {
    const [short, header] = HEADERS[name];
    lines.push(center(header, '-'));
    lines.push(row(`Mean ${short} (ms):`, result[`mean_${name}_ms`].toFixed(2)));
    lines.push(row(`Median ${short} (ms):`, result[`median_${name}_ms`].toFixed(2)));
    for (const p of args.percentiles) {
      lines.push(row(`P${pWord(p)} ${short} (ms):`, result[`p${pWord(p)}_${name}_ms`].toFixed(2)));
    }
  }
  lines.push('='.repeat(50));
  return lines;
}

/** Python's "{s:{c}^{n}}" with n = 50: centred, the odd fill character on the right. */
function center(text, fill) {
  const left = Math.floor((50 - text.length) / 2);
  return `${fill.repeat(Math.max(0, left))}${text}`.padEnd(50, fill);
}
