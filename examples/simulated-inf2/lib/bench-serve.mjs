// The simulated `vllm bench serve`: sends --num-prompts completion requests to a server
// over HTTP at --request-rate (Poisson arrivals, or gamma with --burstiness, spread over
// num_prompts / rate seconds and seeded by --seed, as vllm/benchmarks/serve.py's
// get_request() does), streams each answer, times it (TTFT at the first chunk, the gap of a
// chunk of k tokens split into k ITLs, E2E at the end), and writes vLLM's result JSON.
// SIM_SERVE_SPEEDUP runs simulated time faster on the wall clock: arrivals are that many
// times closer and measured times are reported that many times longer.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, isAbsolute, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolError } from './errors.mjs';
import { readServeKnobs } from './knobs.mjs';
import { createRandom } from './prng.mjs';
import { BENCH_USAGE, parseBenchArgs } from './serve-args.mjs';
import { buildResult, calculateMetrics, summaryLines } from './serve-result.mjs';

const say = (line) => process.stdout.write(`${line}\n`);

/** Runs the benchmark; resolves to the exit status. */
export async function runBenchServe(argv, env) {
  const args = parseBenchArgs(argv);
  if (args.help) {
    say(BENCH_USAGE);
    return 0;
  }
  const knobs = readServeKnobs(env);
  const baseUrl = (args.baseUrl ?? `http://${args.host}:${args.port}`).replace(/\/+$/, '');
  const prompts = knobs.prompts || args.numPrompts;
  say(
    `Namespace(backend='${args.backend}', base_url=${args.baseUrl ? `'${args.baseUrl}'` : 'None'}, endpoint='${args.endpoint}', num_prompts=${prompts}, request_rate=${args.requestRate}, seed=${args.seed})`,
  );
  const modelId = args.model ?? (await firstModel(baseUrl));
  const client = {
    url: `${baseUrl}${args.endpoint}`,
    model: args.servedModelName ?? modelId,
    prefix: args.requestIdPrefix ?? requestIdPrefix(knobs),
    speedup: knobs.speedup,
  };
  const requests = sampleRequests(args, prompts);
  say('Starting initial single prompt test run...');
  await waitForEndpoint(client, requests[0], args.readyCheckTimeoutSec);
  say('Initial test run completed.');
  say('Starting main benchmark run...');
  say(`Traffic request rate: ${Number.isFinite(args.requestRate) ? args.requestRate : 'inf'}`);
  say(
    `Burstiness factor: ${args.burstiness} (${args.burstiness === 1 ? 'Poisson process' : 'Gamma distribution'})`,
  );
  say(`Maximum request concurrency: ${args.maxConcurrency ?? 'None'}`);

  const { outputs, durationSeconds } = await runRequests(client, requests, args);
  const metrics = calculateMetrics(outputs, durationSeconds);
  const date = resultDate(new Date());
  const result = buildResult({ args, modelId, date, durationSeconds, outputs, metrics });
  for (const line of summaryLines({ args, durationSeconds, metrics, result })) say(line);
  if (args.saveResult || args.appendResult) saveResult(result, args, modelId, date);
  return 0;
}

/** vLLM's default `bench-<8 hex>-`; under the gate, one per run, so each run has its own noise. */
function requestIdPrefix(knobs) {
  if (knobs.run === ':') return `bench-${randomBytes(4).toString('hex')}-`;
  const hex = createRandom(`prefix:${knobs.seed}:${knobs.run}`).uniform().toString(16).slice(2, 10);
  return `bench-${hex.padEnd(8, '0')}-`;
}

/** The random dataset: --random-input-len / --random-output-len, ± --random-range-ratio. */
function sampleRequests(args, count) {
  const random = createRandom(`dataset:${args.seed}`);
  const around = (length) => {
    const low = Math.max(1, Math.floor(length * (1 - args.rangeRatio)));
    const high = Math.ceil(length * (1 + args.rangeRatio));
    return low + random.below(high - low + 1);
  };
  // Random token ids as vLLM's RandomDataset draws them (its own stream, so the lengths
  // stay those of --seed), after --random-prefix-len ids every prompt shares.
  const ids = createRandom(`dataset-tokens:${args.seed}`);
  const words = (length) => Array.from({ length }, () => `t${ids.below(151_000)}`);
  const prefix = words(args.prefixLen);
  return Array.from({ length: count }, () => {
    const inputLen = around(args.inputLen);
    const promptLen = args.prefixLen + inputLen;
    const prompt = [...prefix, ...words(inputLen)].join(' ');
    return { prompt, promptLen, outputLen: around(args.outputLen) };
  });
}

/** Arrival times, seconds from the start: vLLM's get_request(), without ramp-up. */
function arrivalTimes(args, count) {
  if (!Number.isFinite(args.requestRate)) return new Array(count).fill(0);
  const random = createRandom(`arrivals:${args.seed}`);
  const scale = 1 / (args.requestRate * args.burstiness);
  const times = [];
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    at += gamma(random, args.burstiness) * scale;
    times.push(at);
  }
  // Rescaled so that the last arrives at count / rate, as vLLM does to steady throughput.
  const factor = count / args.requestRate / times.at(-1);
  return times.map((time) => time * factor);
}

/** A gamma(shape, 1) draw (Marsaglia and Tsang; shape < 1 boosted). */
function gamma(random, shape) {
  if (shape < 1) return gamma(random, shape + 1) * random.uniform() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = random.normal();
    const v = (1 + c * x) ** 3;
    if (v > 0 && Math.log(random.uniform()) < 0.5 * x * x + d - d * v + d * Math.log(v))
      return d * v;
  }
}

async function runRequests(client, requests, args) {
  const arrivals = arrivalTimes(args, requests.length);
  const slots = new Semaphore(args.maxConcurrency ?? Infinity);
  const started = performance.now();
  const tasks = [];
  for (const [index, request] of requests.entries()) {
    await sleep(
      Math.max(0, started + (arrivals[index] * 1000) / client.speedup - performance.now()),
    );
    const arrived = performance.now();
    tasks.push(
      slots.run(async () => {
        const queueTime = ((performance.now() - arrived) / 1000) * client.speedup;
        const output = await send(client, request, `${client.prefix}${index}`, started);
        return { ...output, queueTime };
      }),
    );
  }
  const outputs = await Promise.all(tasks);
  return { outputs, durationSeconds: ((performance.now() - started) / 1000) * client.speedup };
}

class Semaphore {
  constructor(limit) {
    this.free = limit;
    this.waiting = [];
  }
  async run(task) {
    if (this.free <= 0) await new Promise((resolve) => this.waiting.push(resolve));
    else this.free -= 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}

/** One streamed completion, timed; never throws (a failure is an output with its error). */
function send(client, request, requestId, benchStart) {
  const toSimulated = (wallMs) => (wallMs / 1000) * client.speedup;
  const body = JSON.stringify({
    model: client.model,
    prompt: request.prompt,
    max_tokens: request.outputLen,
    temperature: 0,
    ignore_eos: true,
    stream: true,
    stream_options: { include_usage: true },
  });
  const sent = performance.now();
  const output = {
    success: false,
    ttft: 0,
    itl: [],
    latency: 0,
    promptLen: request.promptLen,
    outputLen: 0,
    startTime: toSimulated(sent - benchStart),
    text: '',
    error: '',
  };
  return new Promise((resolve) => {
    const fail = (message) => resolve({ ...output, error: message });
    const headers = { 'content-type': 'application/json', 'x-request-id': requestId };
    const post = httpRequest(client.url, { method: 'POST', agent: false, headers }, (response) => {
      if (response.statusCode !== 200) {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => fail(`${response.statusMessage ?? ''}: ${text}`));
        return;
      }
      response.setEncoding('utf8');
      response.on('data', eventReader(output, sent, toSimulated));
      response.on('end', () => {
        output.latency = toSimulated(performance.now() - sent);
        output.success = output.text !== '';
        if (!output.success) output.error = 'no text in the answer';
        resolve(output);
      });
      response.on('error', (error) => fail(String(error)));
    });
    post.on('error', (error) =>
      fail(`Traceback (most recent call last):\n  aiohttp.ClientConnectorError: ${error.message}`),
    );
    post.end(body);
  });
}

/**
 * Reads the server-sent events of a stream into `output` as they arrive: the first text is
 * the first token (TTFT), each later chunk of k tokens k inter-token latencies of a k-th of
 * its gap, and the usage chunk the output length.
 */
function eventReader(output, sent, toSimulated) {
  let last = sent;
  let buffer = '';
  return (chunk) => {
    const now = performance.now();
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end).replace(/^data: /, '');
      buffer = buffer.slice(end + 2);
      if (event === '[DONE]') continue;
      const data = JSON.parse(event);
      if (data.usage) output.outputLen = data.usage.completion_tokens;
      const text = data.choices?.[0]?.text ?? '';
      if (text === '') continue;
      const tokens = text.split(' ').filter(Boolean).length;
      if (output.text === '') output.ttft = toSimulated(now - sent);
      else output.itl.push(...new Array(tokens).fill(toSimulated(now - last) / tokens));
      output.text += text;
      last = now;
    }
  };
}

/** Retries the first prompt until the server answers it or the timeout passes (ready_checker.py). */
async function waitForEndpoint(client, request, timeoutSec) {
  const deadline = performance.now() + timeoutSec * 1000;
  for (;;) {
    const output = await send(client, request, `${client.prefix}test`, performance.now());
    if (output.success) return;
    if (performance.now() >= deadline) {
      throw new ToolError(
        `Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: ${output.error}`,
      );
    }
    await sleep(1000);
  }
}

/** The first model the server lists, when --model is not given. */
function firstModel(baseUrl) {
  const failed = (why) =>
    new ToolError(`Failed to fetch models from server at ${baseUrl}/v1/models: ${why}`);
  return new Promise((resolve, reject) => {
    const get = httpRequest(`${baseUrl}/v1/models`, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => {
        try {
          resolve(JSON.parse(text).data[0].id);
        } catch {
          reject(failed(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`));
        }
      });
    });
    get.on('error', (error) => reject(failed(error.message)));
    get.end();
  });
}

function resultDate(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}

/** Where vLLM saves: --result-filename (in --result-dir), else its own name in the cwd. */
function saveResult(result, args, modelId, date) {
  const concurrency = args.maxConcurrency !== null ? `-concurrency${args.maxConcurrency}` : '';
  const rate = Number.isFinite(args.requestRate) ? args.requestRate : 'inf';
  let file =
    args.resultFilename ??
    `${args.label ?? args.backend}-${rate}qps${concurrency}-${modelId.split('/').at(-1)}-${date}.json`;
  if (args.resultDir) file = isAbsolute(file) ? file : join(args.resultDir, file);
  mkdirSync(dirname(file) || '.', { recursive: true });
  if (args.appendResult) appendFileSync(file, `${JSON.stringify(result)}\n`);
  else writeFileSync(file, JSON.stringify(result));
  say(`Results saved to ${file}`);
}
