// The simulated `vllm serve MODEL --port N`: an OpenAI-compatible HTTP server on loopback
// that loads its model for SIM_SERVE_STARTUP seconds (/health answers 503 until then, 200
// after), then streams completions token by token at the latency serve-latency.mjs gives
// for the load it is under. It logs as vLLM and uvicorn do, stops on SIGTERM or SIGINT,
// and writes a Neuron profile when it stops if NEURON_RT_INSPECT_ENABLE=1 was set at its
// start (a session profile is written when the process ends).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CONFIGURATION } from './benchmark-args.mjs';
import { coreCount } from './instances.mjs';
import { readInspectSettings } from './inspect-settings.mjs';
import { answerWithLogprobs, promptIds, RequestRefused } from './completion-logprobs.mjs';
import { readBenchmarkKnobs, readServeKnobs, readTokenKnobs } from './knobs.mjs';
import { stepSlowdown } from './op-model.mjs';
import { writeProfile } from './profile-writer.mjs';
import { parseServeArgs, SERVE_USAGE } from './serve-args.mjs';
import { holdHostMemory } from './serve-host-memory.mjs';
import { compileForServe } from './serve-compile.mjs';
import { loadFactor, requestBase } from './serve-latency.mjs';
import { createServeMetrics, metricsText } from './serve-metrics.mjs';
import { createServeScheduler, prefillShare, promptTokenList } from './serve-scheduling.mjs';
import { SIMULATED_VERSIONS } from './versions.mjs';
import { pythonTraceback, runtimeError, vllmLog } from './vllm-log.mjs';

/** Shortest wall-clock gap between two chunks of a stream: closer tokens share a chunk. */
const MIN_CHUNK_MS = 4;

const info = (source, message) => vllmLog('INFO', source, message);

/** Runs the server until it is stopped; resolves to the exit status. */
export async function runServe(argv, env) {
  const args = parseServeArgs(argv);
  if (args.help) {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  const knobs = readServeKnobs(env);
  knobs.tokens = readTokenKnobs(env);
  knobs.stepSlowdown = stepSlowdown(knobs.slowOps, args.tensorParallelSize);
  info('api_server.py:1896', `vLLM API server version ${SIMULATED_VERSIONS.vllm}`);
  info(
    'platform.py:41',
    knobs.stack === 'nxdi'
      ? 'Neuron backend: NxD Inference (neuronx-distributed-inference) through vLLM --device neuron'
      : 'Neuron backend: vLLM Neuron plugin (vllm-neuron)',
  );
  info('utils.py:328', `non-default args: ${JSON.stringify({ model: args.model, ...args.flags })}`);
  const refused = loadRefusal(args, knobs);
  if (refused !== undefined) return refused;
  const inspect = readInspectSettings(env, {});
  if (inspect) {
    info(
      'neuron_worker.py:121',
      `Neuron runtime profiling enabled: device profile ${inspect.deviceProfile}, output ${inspect.outputDir}`,
    );
  }
  const state = {
    ready: false,
    served: 0,
    startedAt: new Date(),
    // --max-num-seqs, the queue and the KV cache (serve-scheduling.mjs), and the figures
    // of GET /metrics (serve-metrics.mjs).
    ...createServeScheduler(args, env),
    metrics: createServeMetrics(),
  };
  const server = createServer((request, response) =>
    handle(request, response, { args, knobs, state }),
  );
  const listening = await listen(server, args);
  if (listening !== undefined) return listening;
  info(
    'launcher.py:28',
    `Loading compiled artifacts from ${env.NEURON_COMPILE_CACHE_URL || '/var/tmp/neuron-compile-cache'}`,
  );
  const stopped = stopOnSignal(server, { args, env, knobs, inspect, state });
  if (knobs.fail === 'start') return startFailure(knobs);
  // The compile cache, as the offline benchmark's model load (serve-compile.mjs).
  if ((await compileForServe(args, env, stopped)) === 'stopped') return stopped;
  holdHostMemory(args, env); // the weights and slots /proc sees (serve-host-memory.mjs)
  await sleep(knobs.startup * 1000);
  if (knobs.fail !== 'never-ready') {
    state.ready = true;
    info('api_server.py:1971', `Starting vLLM API server 0 on http://${args.host}:${args.port}`);
    process.stdout.write(`INFO:     Started server process [${process.pid}]\n`);
    process.stdout.write('INFO:     Waiting for application startup.\n');
    process.stdout.write('INFO:     Application startup complete.\n');
  }
  return stopped;
}

/** Tensor parallelism beyond the instance's NeuronCores fails as the runtime does. */
function loadRefusal(args, knobs) {
  const available = coreCount(knobs.instanceType, knobs.lnc);
  if (args.tensorParallelSize <= available) return undefined;
  runtimeError(
    'NRT:nrt_allocate_neuron_cores',
    `Logical Neuron Core(s) not available - Requested:${args.tensorParallelSize} Available:${available}`,
  );
  pythonTraceback([], 'RuntimeError: nrt_init failed with NRT_LOAD_NOT_ENOUGH_NC (9)');
  return 1;
}

async function startFailure(knobs) {
  await sleep(Math.min(knobs.startup, 0.2) * 1000);
  runtimeError('TDRV:dmem_alloc_internal', 'Failed to alloc DEVICE memory: 2147483648');
  pythonTraceback(
    [
      [
        '/opt/vllm/vllm/entrypoints/openai/api_server.py',
        1896,
        'run_server',
        'await run_server_worker(...)',
      ],
    ],
    'RuntimeError: Failed to load model: NRT_RESOURCE (4): out of device memory',
  );
  return 1;
}

function listen(server, args) {
  return new Promise((resolve) => {
    server.once('error', (error) => {
      vllmLog(
        'ERROR',
        'api_server.py:1980',
        `[Errno 98] error while attempting to bind on address ('${args.host}', ${args.port}): ${error.code === 'EADDRINUSE' ? 'address already in use' : error.message}`,
      );
      resolve(1);
    });
    server.listen(args.port, args.host, () => resolve(undefined));
  });
}

/** Resolves to 0 once SIGTERM or SIGINT came, the profile (if any) written. */
function stopOnSignal(server, context) {
  return new Promise((resolve) => {
    const stop = (signal) => {
      info('launcher.py:80', `Shutting down FastAPI HTTP server (${signal}).`);
      if (context.inspect) writeServerProfile(context);
      server.closeAllConnections?.();
      server.close();
      process.stdout.write('INFO:     Shutting down\nINFO:     Finished server process\n');
      resolve(0);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

function writeServerProfile({ args, env, knobs, inspect, state }) {
  const configuration = {
    ...DEFAULT_CONFIGURATION,
    model: args.model,
    tensor_parallel_size: args.tensorParallelSize,
    max_num_seqs: args.maxNumSeqs,
    max_model_len: args.maxModelLen,
  };
  const profileKnobs = { ...readBenchmarkKnobs(env), queries: Math.max(1, state.served) };
  const { sessionDir, files } = writeProfile({
    settings: inspect,
    knobs: profileKnobs,
    configuration,
    drift: knobs.slowdown,
    startedAt: state.startedAt,
  });
  info('nrt', `Profile written to ${sessionDir} (${files.length} files)`);
}

function handle(request, response, context) {
  const { state } = context;
  const path = request.url?.split('?')[0];
  if (request.method === 'GET' && path === '/health') {
    response.writeHead(state.ready ? 200 : 503).end();
    return;
  }
  if (!state.ready) {
    json(response, 503, { error: { message: 'The server is starting', code: 503 } });
    return;
  }
  if (request.method === 'GET' && path === '/metrics') {
    const { scheduler, kv, metrics } = state;
    response
      .writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' })
      .end(metricsText({ modelName: context.args.servedModelName, scheduler, kv, metrics }));
    return;
  }
  if (request.method === 'GET' && path === '/v1/models') {
    const { servedModelName, model, maxModelLen } = context.args;
    json(response, 200, {
      object: 'list',
      data: [
        {
          id: servedModelName,
          object: 'model',
          owned_by: 'vllm',
          root: model,
          max_model_len: maxModelLen,
        },
      ],
    });
    return;
  }
  if (request.method === 'POST' && (path === '/v1/completions' || path === '/tokenize')) {
    const answer = path === '/tokenize' ? tokenizeAnswer : complete;
    readBody(request).then(
      (body) => answer(body, request, response, context),
      () => json(response, 400, { error: { message: 'invalid JSON body', code: 400 } }),
    );
    return;
  }
  json(response, 404, { detail: 'Not Found' });
}

function json(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request) {
  let text = '';
  for await (const chunk of request) text += chunk;
  return JSON.parse(text);
}

/** vLLM's POST /tokenize: the prompt's token ids. */
function tokenizeAnswer(body, _request, response, { args }) {
  if (!knownModel(body, args, response)) return;
  const tokens = promptIds(String(body.prompt ?? ''));
  json(response, 200, { count: tokens.length, max_model_len: args.maxModelLen, tokens });
}

function knownModel(body, args, response) {
  if (body.model === args.servedModelName) return true;
  const message = `The model \`${body.model}\` does not exist.`;
  json(response, 404, { error: { message, type: 'NotFoundError', code: 404 } });
  return false;
}

/** One completion, streamed when asked (as vllm bench serve asks). */
async function complete(body, request, response, context) {
  const { args, knobs, state } = context;
  if (!knownModel(body, args, response)) return;
  const prompt = promptTokenList(body.prompt);
  const promptTokens = prompt.length;
  const outputTokens = Math.max(1, Number(body.max_tokens) || 16);
  // A sequence holds KV blocks for --max-model-len tokens at most.
  const needs = state.kv.blocksFor(Math.min(promptTokens + outputTokens, args.maxModelLen));
  if (needs > state.kv.blocks) {
    const message = `The request needs ${needs} KV-cache blocks; the cache has ${state.kv.blocks} (SIM_SERVE_KV_BLOCKS).`;
    json(response, 400, { error: { message, type: 'BadRequestError', code: 400 } });
    return;
  }
  let scored;
  try {
    scored =
      body.stream === true ? undefined : answerWithLogprobs(body, args, knobs.tokens, outputTokens);
  } catch (error) {
    if (!(error instanceof RequestRefused)) throw error;
    json(response, error.status, {
      error: { message: error.message, type: 'BadRequestError', code: error.status },
    });
    return;
  }
  const requestId = String(request.headers['x-request-id'] ?? randomUUID());
  const base = requestBase(knobs, {
    requestId,
    prefix: requestId.replace(/[^-]*$/, ''),
    outputTokens,
  });
  const usage = {
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + outputTokens,
    completion_tokens: outputTokens,
  };
  const answer = { ...body, id: requestId };
  const reply =
    body.stream === true
      ? streamed(response, answer, usage)
      : whole(response, answer, usage, scored);
  const seq = { promptTokens: prompt, generated: 0, maxTokens: args.maxModelLen };
  // A client that leaves gives back its place in the queue or its slot (vLLM's abort).
  response.on('close', () => state.scheduler.finish(seq));
  try {
    for await (const tokens of tokenSchedule(base, seq, outputTokens, knobs, state)) {
      if (!reply.add(tokens)) return;
    }
    if (seq.state === 'done') return;
    reply.end();
    state.served += 1;
    state.metrics.succeeded += 1;
    process.stdout.write(
      `INFO:     127.0.0.1:${request.socket.remotePort} - "POST /v1/completions HTTP/1.1" 200 OK\n`,
    );
  } finally {
    state.scheduler.finish(seq);
  }
}

/** One OpenAI completions chunk (or the whole answer); `body.id` is the request's. */
function completionChunk(body, text, finish, logprobs = null) {
  return {
    id: `cmpl-${body.id}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, text, logprobs, finish_reason: finish, stop_reason: null }],
    usage: null,
  };
}

/** A streamed answer: a server-sent event per chunk, the usage, `[DONE]`. */
function streamed(response, body, usage) {
  let gone = false;
  response.on('close', () => (gone = !response.writableFinished));
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  const send = (data) => response.write(`data: ${JSON.stringify(data)}\n\n`);
  return {
    add: ({ count, last }) => {
      if (gone) return false;
      send(completionChunk(body, ' tok'.repeat(count), last ? 'length' : null));
      return true;
    },
    end: () => {
      if (body.stream_options?.include_usage)
        send({ ...completionChunk(body, '', null), choices: [], usage });
      response.end('data: [DONE]\n\n');
    },
  };
}

/** An answer in one piece, once the last token is due: the model's tokens when scored. */
function whole(response, body, usage, scored) {
  let text = '';
  return {
    add: ({ count }) => {
      text += ' tok'.repeat(count);
      return true;
    },
    end: () => {
      const chunk = scored
        ? completionChunk(body, scored.text, 'length', scored.logprobs)
        : completionChunk(body, text, 'length');
      json(response, 200, { ...chunk, usage });
    },
  };
}

/**
 * The tokens of one request as they come due on the wall clock: it waits for a slot and its
 * KV blocks (lib/scheduler.mjs), then its first token comes after the time to first token,
 * each next after an inter-token latency, both stretched by the requests running at that
 * moment. A preempted request waits again and computes its prompt and output again before
 * its next token. Due times are absolute, so a late timer never delays the tokens after
 * it; a chunk follows the one before by MIN_CHUNK_MS at least (tokens due meanwhile share
 * it), but the first and the last token go when they are due, so TTFT and E2E are not
 * rounded.
 */
async function* tokenSchedule(base, seq, outputTokens, knobs, state) {
  const { scheduler, metrics } = state;
  const arrived = performance.now();
  const wall = (simulatedMs) => simulatedMs / knobs.speedup;
  const stretch = () => loadFactor(knobs, scheduler.running() - 1, base.seconds);
  let due;
  let prefillsMs = 0;
  // Waits for a slot, then computes the sequence so far (a cached prefix shortens it);
  // again after each preemption. False when the client left meanwhile.
  const prefill = async () => {
    for (;;) {
      await seq.admitted;
      const computed = seq.promptTokens.length + seq.generated - seq.cachedTokens;
      const ms = base.ttftMs * stretch() * prefillShare(seq.promptTokens.length, computed);
      prefillsMs += ms;
      due = performance.now() + wall(ms);
      await sleepUntil(due);
      if (seq.state !== 'waiting') return seq.state === 'running';
    }
  };
  scheduler.admit(seq);
  if (!(await prefill())) return;
  // The server's figures in simulated seconds: the queue's wall time scaled back, the
  // prefills as the model gave them (so at no load exactly the model's time).
  const queueSeconds = (seq.waitedMs * knobs.speedup) / 1000;
  metrics.queueTime.observe(queueSeconds);
  metrics.ttft.observe(queueSeconds + prefillsMs / 1000);
  let sent = 1;
  seq.generated = 1;
  yield { count: 1, last: sent >= outputTokens };
  let lastChunk = performance.now();
  while (sent < outputTokens) {
    const step = wall(base.itlMs * stretch());
    const remaining = outputTokens - sent;
    const finalDue = due + remaining * step;
    const wake = Math.min(finalDue, Math.max(due + step, lastChunk + MIN_CHUNK_MS));
    await sleepUntil(wake);
    let count = 0;
    let next = due;
    while (count < remaining && (count === 0 || next + step <= wake + 1e-6)) {
      next += step;
      count += 1;
    }
    if (seq.state === 'done') return;
    if (seq.state === 'waiting' || !scheduler.grow(seq, seq.promptTokens.length + sent + count)) {
      // Preempted: back at the head of the queue, then prompt and output computed again.
      if (!(await prefill())) return;
      lastChunk = performance.now();
      continue;
    }
    due = next;
    sent += count;
    seq.generated = sent;
    lastChunk = performance.now();
    yield { count, last: sent >= outputTokens };
  }
  metrics.e2e.observe(((performance.now() - arrived) * knobs.speedup) / 1000);
}

function sleepUntil(wallMs) {
  return sleep(Math.max(0, wallMs - performance.now()));
}
