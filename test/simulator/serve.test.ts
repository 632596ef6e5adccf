// The simulator's `vllm`: `vllm serve` as a real HTTP server child process (readiness,
// start-up delay, load-dependent latency, failures, a profile at its stop) and `vllm bench
// serve` sending it real requests and writing vLLM's result file, read by the gate's parser.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseResultFile } from '../../src/formats/index.js';
import { until } from '../support/poll.js';
import { freePort } from '../support/ports.js';
import { BIN, baseEnv, median, runTool, tempDir } from './helpers.js';

const MODEL = 'Qwen/Qwen3-0.6B';
/** 25× faster than simulated time, 24 requests a run: a run of the benchmark in ~1 s. */
const FAST = { SIM_SERVE_SPEEDUP: '25', SIM_SERVE_PROMPTS: '24', SIM_NOISE: '0' };

const servers: ChildProcess[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.kill('SIGKILL');
});

interface Serving {
  process: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function serve(env: Record<string, string>, args: string[] = []): Promise<Serving> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(BIN, 'vllm'),
      'serve',
      MODEL,
      '--port',
      String(port),
      '--tensor-parallel-size',
      '2',
      ...args,
    ],
    { env: baseEnv({ SIM_SERVE_STARTUP: '0.4', ...env }), stdio: 'pipe' },
  );
  servers.push(child);
  let text = '';
  child.stdout.on('data', (chunk) => (text += chunk));
  child.stderr.on('data', (chunk) => (text += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { process: child, port, output: () => text, exited };
}

async function health(port: number): Promise<number | string> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`)).status;
  } catch (error) {
    return String((error as { cause?: { code?: string } }).cause?.code ?? error);
  }
}

/** A completion of `tokens` tokens, streamed; aborted by `signal`. */
function complete(port: number, tokens: number, signal?: AbortSignal): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, prompt: 'hello', max_tokens: tokens, stream: true }),
    ...(signal ? { signal } : {}),
  });
}

/** The simulated server's /metrics: requests in flight, simulated TTFT sum and count. */
async function metrics(port: number) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const read = (name: string) =>
    Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    running: read('vllm:num_requests_running'),
    ttftSeconds: read('vllm:time_to_first_token_seconds_sum'),
    ttftCount: read('vllm:time_to_first_token_seconds_count'),
  };
}

async function bench(port: number, rate: string, env: Record<string, string> = {}) {
  const dir = await tempDir('sim-bench-serve-');
  const file = join(dir, 'result.json');
  const outcome = await runTool(
    'vllm',
    [
      'bench',
      'serve',
      '--model',
      MODEL,
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--dataset-name',
      'random',
      '--random-input-len',
      '512',
      '--random-output-len',
      '128',
      '--num-prompts',
      '200',
      '--request-rate',
      rate,
      '--percentile-metrics',
      'ttft,tpot,itl,e2el',
      '--metric-percentiles',
      '50,90,99',
      '--save-result',
      '--save-detailed',
      '--result-filename',
      file,
    ],
    { env: { ...FAST, ...env }, cwd: dir },
  );
  expect(outcome.code, outcome.stderr).toBe(0);
  return { outcome, file, result: JSON.parse(await readFile(file, 'utf8')) };
}

describe('vllm serve', () => {
  it('answers /health 503 until its start-up delay has passed, then 200, and stops on SIGTERM', async () => {
    const spawnedAt = performance.now();
    const server = await serve({ SIM_SERVE_STARTUP: '0.8' });
    expect(await until(async () => (await health(server.port)) === 503)).toBe(true);
    expect(await until(async () => (await health(server.port)) === 200)).toBe(true);
    // Not before its 0.8 s (a timer is never early; a busy host only makes it later).
    expect(performance.now() - spawnedAt).toBeGreaterThanOrEqual(800);
    expect(server.output()).toContain('INFO:     Application startup complete.');
    const models = await (await fetch(`http://127.0.0.1:${server.port}/v1/models`)).json();
    expect(models.data[0]).toMatchObject({ id: MODEL, root: MODEL });
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('Shutting down FastAPI HTTP server (SIGTERM).');
  });

  it('fails to start as the Neuron runtime does, with SIM_SERVE_FAIL=start', async () => {
    const server = await serve({ SIM_SERVE_FAIL: 'start' });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('RuntimeError: Failed to load model: NRT_RESOURCE (4)');
  });

  it('never becomes ready with SIM_SERVE_FAIL=never-ready', async () => {
    // No start-up delay: past its load (the line before it), a server that would be ready
    // is ready at once, so every answer but perhaps the first would be 200.
    const server = await serve({ SIM_SERVE_FAIL: 'never-ready', SIM_SERVE_STARTUP: '0' });
    expect(await until(() => server.output().includes('Loading compiled artifacts'))).toBe(true);
    const answers: (number | string)[] = [];
    expect(await until(async () => answers.push(await health(server.port)) === 5)).toBe(true);
    expect(answers).toEqual([503, 503, 503, 503, 503]);
  });

  it('refuses more NeuronCores than the instance has, and unknown flags', async () => {
    const cores = await serve({}, ['--tensor-parallel-size', '4']);
    expect(await cores.exited).toBe(1);
    expect(cores.output()).toContain('Requested:4 Available:2');
    const flag = await runTool('vllm', ['serve', MODEL, '--max-num-seq', '8']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unrecognized arguments: --max-num-seq');
    const knob = await runTool('vllm', ['serve', MODEL], { env: { SIM_SERVE_CAPACITY: 'lots' } });
    expect(knob.code).toBe(2);
    expect(knob.stderr).toContain('SIM_SERVE_CAPACITY must be a number');
  });

  it('writes a session profile when it stops, when started with the profiler variables', async () => {
    const dir = await tempDir('sim-serve-profile-');
    const server = await serve({
      ...FAST,
      NEURON_RT_INSPECT_ENABLE: '1',
      NEURON_RT_INSPECT_DEVICE_PROFILE: 'session',
      NEURON_RT_INSPECT_OUTPUT_DIR: join(dir, 'profile'),
    });
    expect(await until(async () => (await health(server.port)) === 200)).toBe(true);
    await bench(server.port, '4');
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const [processDir] = await readdir(join(dir, 'profile'));
    const [session] = await readdir(join(dir, 'profile', processDir!));
    const files = await readdir(join(dir, 'profile', processDir!, session!));
    expect(files.filter((name) => name.endsWith('.ntff'))).toEqual([
      'profile_nc_0_session_0.ntff',
      'profile_nc_1_session_0.ntff',
    ]);
  });
});

describe('vllm bench serve', () => {
  it("sends real requests and writes vLLM's detailed result, which the gate reads", async () => {
    const server = await serve(FAST);
    expect(await until(async () => (await health(server.port)) === 200)).toBe(true);
    const { result, file, outcome } = await bench(server.port, '2');
    expect(outcome.stdout).toContain('============ Serving Benchmark Result ============');
    expect(result).toMatchObject({
      endpoint_type: 'openai',
      model_id: MODEL,
      num_prompts: 24,
      request_rate: 2,
      burstiness: 1,
      max_concurrency: null,
      completed: 24,
      failed: 0,
      total_output_tokens: 24 * 128,
    });
    expect(result.ttfts).toHaveLength(24);
    expect(result.itls[0]).toHaveLength(127);
    expect(result.output_lens).toEqual(new Array(24).fill(128));
    // Times in simulated seconds: 60 ms to first token and 12 ms a token at no load. The
    // wall clock only ever adds (a late timer, a busy host), so only the lower bounds are
    // tight; the upper ones catch a unit taken for another (ms for s), not a slow host.
    const ttft = median(result.ttfts);
    expect(ttft).toBeGreaterThan(0.055);
    expect(ttft).toBeLessThan(10);
    expect(result.median_itl_ms).toBeGreaterThan(11);
    expect(result.median_itl_ms).toBeLessThan(1_000);
    expect(result.p90_e2el_ms).toBeGreaterThan(result.median_e2el_ms);
    // The server logged every request, as uvicorn does.
    expect(server.output().match(/"POST \/v1\/completions HTTP\/1.1" 200 OK/g)).toHaveLength(25);

    const parsed = await parseResultFile(file, 'auto');
    expect(parsed.format).toBe('vllm-bench-serve');
    const metrics = parsed.benchmarks[0]!.metrics;
    const e2el = metrics.find((m) => m.id === 'e2el_p50');
    expect(e2el?.samples).toHaveLength(24);
    expect(e2el?.value).toBeCloseTo(result.median_e2el_ms, 6);
    expect(parsed.benchmarks[0]!.info).toMatchObject({ request_rate: 2, completed: 24 });
  });

  it('serves a request slower the more requests are in flight beside it, faster still with SIM_SERVE_LOAD_GROWTH', async () => {
    // Counts and the model's own figures, not the wall clock: `held` requests stream for
    // hours beside one more of a single token, whose simulated time to first token the
    // server reports in /metrics.
    const ttftBeside = async (held: number, knobs: Record<string, string> = {}) => {
      const server = await serve({ SIM_NOISE: '0', SIM_SERVE_SPEEDUP: '1', ...knobs });
      expect(await until(async () => (await health(server.port)) === 200)).toBe(true);
      const hold = new AbortController();
      for (let k = 0; k < held; k += 1) {
        void complete(server.port, 1_000_000, hold.signal).catch(() => undefined);
      }
      // Each held request in flight and past its first token.
      const settled = async () => {
        const now = await metrics(server.port);
        return now.running === held && now.ttftCount === held;
      };
      expect(await until(settled, 30_000)).toBe(true);
      const before = await metrics(server.port);
      await (await complete(server.port, 1)).text();
      const after = await metrics(server.port);
      hold.abort();
      server.process.kill('SIGTERM');
      expect(after.ttftCount - before.ttftCount).toBe(1);
      return after.ttftSeconds - before.ttftSeconds;
    };
    // 60 ms at no load; beside 3 others, × (1 + growth × 3 / (capacity 10 × T0 0.06 s)).
    expect(await ttftBeside(0)).toBeCloseTo(0.06, 9);
    expect(await ttftBeside(3)).toBeCloseTo(0.06 * (1 + 3 / 0.6), 9);
    expect(await ttftBeside(3, { SIM_SERVE_LOAD_GROWTH: '1.15' })).toBeCloseTo(
      0.06 * (1 + (1.15 * 3) / 0.6),
      9,
    );
  });

  it('fails after its ready check when no server answers', async () => {
    const port = await freePort();
    const outcome = await runTool(
      'vllm',
      [
        'bench',
        'serve',
        '--model',
        MODEL,
        '--port',
        String(port),
        '--ready-check-timeout-sec',
        '1',
      ],
      { env: FAST },
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('Initial test run failed');
  });
});
