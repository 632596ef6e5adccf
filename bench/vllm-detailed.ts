// A realistic `vllm bench serve --save-result --save-detailed` file, written the way vLLM
// writes it: Python's json.dump (", " and ": " separators, ensure_ascii, float repr), the
// top-level keys of vllm/benchmarks/serve.py in its order, and one entry per request in
// every per-request array (input_lens, output_lens, ttfts, itls, generated_texts, errors,
// start_times, latencies, queue_times; see test/fixtures/
// formats/vllm-bench-serve/detailed.json). Failed requests carry an error text,
// zeros and an empty ITL list, as vLLM records them. Seeded: the same options give the
// same bytes.
//
// The file is streamed to disk in pieces, so generating 250 MB needs only its ITLs in
// memory (8 bytes each), not the text.

import { closeSync, openSync, writeSync } from 'node:fs';
import type { Rng } from './random.js';
import { createRng } from './random.js';
import { meanOf } from '../src/stats/mean.js';

export interface DetailedFileOptions {
  requests: number;
  /** Inter-token latencies per successful request (output tokens − 1). */
  itlsPerRequest: number;
  /**
   * Approximate file size: the generated texts are made as long as it takes. Without it,
   * each request generates about 4 characters per output token.
   */
  targetBytes?: number;
  seed: string;
  /** Every latency is multiplied by this (1.03 = a build 3% slower). */
  slowdown?: number;
  /** Share of requests that failed (error text, zeros, no ITLs). */
  failureRate?: number;
}

/** What was written, for the bench to print. */
export interface DetailedFileFacts {
  bytes: number;
  requests: number;
  failed: number;
  itls: number;
}

const TTFT_MEDIAN_S = 0.31;
const TTFT_SIGMA = 0.25;
const ITL_MEDIAN_S = 0.0455;
const ITL_SIGMA = 0.08;
/** Share of token steps delayed by a prefill of another request. */
const ITL_SPIKE_RATE = 0.01;
const ITL_SPIKE_FACTOR = 6;
const WORDS = [
  'the',
  'model',
  'Inferentia',
  'token',
  'latency',
  'neuron',
  'core',
  'batch',
  'of',
  'and',
  'requests',
  'served',
  'with',
  'a',
  'cache',
  'prefix',
  'is',
  'in',
  'to',
  'compiled',
  'graph',
  'bucket',
  'sequence',
  'throughput',
  'élan',
  'naïve',
  '東京',
  'data',
  '"quoted"',
  'tab\tbed',
  'back\\slash',
  'emoji🙂',
];
const ESCAPED_LENGTHS = WORDS.map((word) => pyString(word).length - 2);
const CHUNK_CHARS = 4 * 1024 * 1024;

export function writeVllmDetailedFile(
  path: string,
  options: DetailedFileOptions,
): DetailedFileFacts {
  const rng = createRng(`vllm-detailed/${options.seed}`);
  const slowdown = options.slowdown ?? 1;
  const n = options.requests;
  const perRequest = options.itlsPerRequest;
  const failed = failures(rng, n, options.failureRate ?? 0.004);

  const ttfts = new Float64Array(n);
  const latencies = new Float64Array(n);
  const itls = new Float64Array(n * perRequest);
  const inputLens = new Int32Array(n);
  const startTimes = new Float64Array(n);
  let clock = 353399.725848632;
  for (let i = 0; i < n; i += 1) {
    inputLens[i] = 200 + Math.floor(rng.next() * 112);
    clock += rng.next() * 0.02;
    startTimes[i] = clock;
    if (failed.has(i)) continue;
    ttfts[i] = TTFT_MEDIAN_S * slowdown * Math.exp(TTFT_SIGMA * rng.normal());
    let sum = ttfts[i]!;
    for (let k = 0; k < perRequest; k += 1) {
      const spike = rng.next() < ITL_SPIKE_RATE ? ITL_SPIKE_FACTOR : 1;
      const itl = ITL_MEDIAN_S * slowdown * spike * Math.exp(ITL_SIGMA * rng.normal());
      itls[i * perRequest + k] = itl;
      sum += itl;
    }
    latencies[i] = sum;
  }
  const completed = n - failed.size;
  const duration = clock - startTimes[0]! + 10;
  const outputTokens = completed * (perRequest + 1);
  const inputTokens = inputLens.reduce((sum, len, i) => sum + (failed.has(i) ? 0 : len), 0);

  const out = new ChunkedWriter(path);
  const head = {
    date: '20260815-101500',
    endpoint_type: 'vllm',
    backend: 'vllm',
    label: null,
    model_id: 'meta-llama/Llama-3.1-8B-Instruct',
    tokenizer_id: 'meta-llama/Llama-3.1-8B-Instruct',
    num_prompts: n,
    request_rate: 'inf',
    burstiness: 1.0,
    max_concurrency: 64,
    duration,
    completed,
    failed: failed.size,
    total_input_tokens: inputTokens,
    total_output_tokens: outputTokens,
    request_throughput: completed / duration,
    request_goodput: null,
    output_throughput: outputTokens / duration,
    total_token_throughput: (inputTokens + outputTokens) / duration,
  };
  out.write(`{${pythonEntries(head)}`);
  out.write(', "input_lens": ');
  writeArray(out, n, (i) => String(inputLens[i]));
  out.write(', "output_lens": ');
  writeArray(out, n, (i) => (failed.has(i) ? '0' : String(perRequest + 1)));
  out.write(', "ttfts": ');
  writeArray(out, n, (i) => pyFloat(ttfts[i]!));
  out.write(', "itls": ');
  writeArray(out, n, (i) => {
    if (failed.has(i)) return '[]';
    const parts = new Array<string>(perRequest);
    for (let k = 0; k < perRequest; k += 1) parts[k] = pyFloat(itls[i * perRequest + k]!);
    return `[${parts.join(', ')}]`;
  });
  out.write(', "start_times": ');
  writeArray(out, n, (i) => pyFloat(startTimes[i]!));
  out.write(', "latencies": ');
  writeArray(out, n, (i) => pyFloat(latencies[i]!));
  out.write(', "queue_times": ');
  writeArray(out, n, () => pyFloat(rng.next() < 0.9 ? 0 : rng.next() * 0.05));
  out.write(', "errors": ');
  writeArray(out, n, (i) =>
    failed.has(i)
      ? pyString(
          'Traceback (most recent call last):\n  aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected\n',
        )
      : '""',
  );
  // The texts come last, sized to reach the target: everything before is known by now.
  const textBudget =
    options.targetBytes === undefined
      ? undefined
      : Math.max(0, options.targetBytes - out.bytes - 4096) / Math.max(1, completed);
  out.write(', "generated_texts": ');
  writeArray(out, n, (i) =>
    failed.has(i) ? '""' : pyString(generatedText(rng, textBudget ?? (perRequest + 1) * 4)),
  );
  const tail: Record<string, unknown> = {
    max_output_tokens_per_s: (outputTokens / duration) * 1.4,
    max_concurrent_requests: 64,
  };
  Object.assign(tail, summaryOf(ttfts, latencies, itls, failed, perRequest));
  out.write(`, ${pythonEntries(tail)}}`);
  const bytes = out.close();
  return { bytes, requests: n, failed: failed.size, itls: completed * perRequest };
}

/** Which requests failed: a few, at random places. */
function failures(rng: Rng, n: number, rate: number): Set<number> {
  const failed = new Set<number>();
  for (let i = 0; i < n; i += 1) if (rng.next() < rate) failed.add(i);
  // The first request always succeeds: start_times[0] anchors the duration.
  failed.delete(0);
  return failed;
}

/** The summary keys vLLM prints beside the arrays (means and P99 of the successful requests). */
function summaryOf(
  ttfts: Float64Array,
  latencies: Float64Array,
  itls: Float64Array,
  failed: Set<number>,
  perRequest: number,
): Record<string, number> {
  const ok = (values: Float64Array) => values.filter((_, i) => !failed.has(i));
  const okItls = itls.filter((_, j) => !failed.has(Math.floor(j / perRequest)));
  const okTtfts = ok(ttfts);
  const tpots = ok(latencies).map((latency, i) => (latency - okTtfts[i]!) / perRequest);
  const figures: Record<string, number> = {};
  for (const [name, seconds] of [
    ['ttft', ok(ttfts)],
    ['tpot', tpots],
    ['itl', okItls],
    ['e2el', ok(latencies)],
  ] as const) {
    const sorted = Float64Array.from(seconds).sort();
    const mean = meanOf(sorted);
    const at = (p: number) => sorted[Math.round((p / 100) * (sorted.length - 1))]! * 1000;
    figures[`mean_${name}_ms`] = mean * 1000;
    figures[`median_${name}_ms`] = at(50);
    figures[`std_${name}_ms`] =
      Math.sqrt(sorted.reduce((sum, v) => sum + (v - mean) ** 2, 0) / sorted.length) * 1000;
    figures[`p99_${name}_ms`] = at(99);
  }
  return figures;
}

/** Text that json.dump writes as about `bytes` bytes (escapes counted). */
function generatedText(rng: Rng, bytes: number): string {
  const words: string[] = [];
  let length = 0;
  while (length < bytes) {
    const index = Math.floor(rng.next() * WORDS.length);
    const newline = rng.next() < 0.03;
    words.push(WORDS[index]!, newline ? '\n' : ' ');
    length += ESCAPED_LENGTHS[index]! + (newline ? 2 : 1);
  }
  return words.join('');
}

function writeArray(out: ChunkedWriter, n: number, item: (i: number) => string): void {
  out.write('[');
  for (let i = 0; i < n; i += 1) out.write(i === 0 ? item(i) : `, ${item(i)}`);
  out.write(']');
}

/** `key: value, ...` as json.dump writes a dict's items. */
function pythonEntries(object: Record<string, unknown>): string {
  return Object.entries(object)
    .map(([key, value]) => `${pyString(key)}: ${pyValue(value)}`)
    .join(', ');
}

function pyValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return pyString(value);
  throw new Error(`pyValue: unexpected ${typeof value}`);
}

/** Python's float repr: shortest round-trip digits, `.0` on whole numbers, e-05 exponents. */
export function pyFloat(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
  const text = String(value);
  if (Math.abs(value) < 1e-4 && value !== 0) {
    const [mantissa, exponent] = value.toExponential().split('e');
    const sign = exponent!.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exponent!.replace(/^[-+]/, '').padStart(2, '0')}`;
  }
  return text;
}

/** json.dumps of a string with ensure_ascii: non-ASCII as \uXXXX (surrogate pairs kept). */
export function pyString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Buffers small writes into a few large ones. */
class ChunkedWriter {
  private readonly fd: number;
  private parts: string[] = [];
  private pending = 0;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  write(text: string): void {
    this.parts.push(text);
    this.pending += text.length;
    // Everything written is ASCII (ensure_ascii), so characters are bytes.
    this.bytes += text.length;
    if (this.pending >= CHUNK_CHARS) this.flush();
  }

  close(): number {
    this.flush();
    closeSync(this.fd);
    return this.bytes;
  }

  private flush(): void {
    if (this.parts.length === 0) return;
    writeSync(this.fd, this.parts.join(''), null, 'latin1');
    this.parts = [];
    this.pending = 0;
  }
}
