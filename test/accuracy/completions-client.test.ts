// The agreement check's client against the simulated `vllm serve` (a real child process and
// real HTTP) and against a server that answers what an attacker's would.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgreementUnavailable,
  completionsScorer,
  scoredPositions,
  servedModel,
} from '../../src/accuracy/completions-client.js';
import { BIN, baseEnv } from '../simulator/helpers.js';
import { until } from '../support/poll.js';
import { freePort } from '../support/ports.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const CPU_SAMPLING = '{"override_neuron_config": {"on_device_sampling_config": null}}';
const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const server of servers.splice(0)) server.close();
});

async function serve(args: string[], env: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(BIN, 'vllm'), 'serve', MODEL, '--port', String(port), ...args],
    {
      env: baseEnv({ SIM_SERVE_STARTUP: '0', SIM_SERVE_SPEEDUP: '100', ...env }),
      stdio: 'ignore',
    },
  );
  children.push(child);
  const origin = `http://127.0.0.1:${port}`;
  const ready = await until(
    async () => (await fetch(`${origin}/health`).catch(() => undefined))?.status === 200,
  );
  expect(ready).toBe(true);
  return origin;
}

/** Listens on a free loopback port; its origin. */
async function listening(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

const options = (origin: string, topK = 5) => ({ origin, model: MODEL, topK, timeoutMs: 10_000 });

describe('the completions client on the simulated vllm serve', () => {
  it('reads the model, tokenizes, and scores each position with its top-k', async () => {
    // No run-to-run jitter: this prompt's third token is a near tie that goes either way.
    const origin = await serve(['--additional-config', CPU_SAMPLING], { SIM_LOGPROB_JITTER: '0' });
    expect(await servedModel(origin, 10_000)).toBe(MODEL);
    const scorer = completionsScorer(options(origin));
    const ids = await scorer.tokenize('The capital of France is');
    expect(ids).toHaveLength(5);
    const answer = await scorer.complete(ids, 8);
    expect(answer).toHaveLength(8);
    for (const position of answer) {
      expect(position.top.size).toBe(5);
      // The greedy token is the most likely of its top-k.
      const [first] = [...position.top].sort((a, b) => b[1] - a[1]);
      expect(first![0]).toBe(position.token);
    }
    // Greedy decoding of one build without jitter gives the same tokens again.
    const again = await scorer.complete(ids, 8);
    expect(again.map((p) => p.token)).toEqual(answer.map((p) => p.token));
  });

  it('says how to get log-probabilities from a server that samples on the device', async () => {
    const origin = await serve([]);
    const scorer = completionsScorer(options(origin));
    await expect(scorer.complete([1, 2, 3], 4)).rejects.toThrow(/on_device_sampling_config": null/);
  });

  it("names the server's own refusal of a top-k above its --max-logprobs", async () => {
    const origin = await serve(['--additional-config', CPU_SAMPLING, '--max-logprobs', '4']);
    const scorer = completionsScorer(options(origin, 5));
    await expect(scorer.complete([1, 2, 3], 4)).rejects.toThrow(
      'POST /v1/completions: HTTP 400: Requested sample logprobs of 5, which is greater than max allowed: 4',
    );
  });
});

describe('the completions client on a hostile server', () => {
  async function hostile(
    answer: (path: string) => { status?: number; body: string | Buffer },
  ): Promise<string> {
    const server = createServer((request, response) => {
      const { status = 200, body } = answer(request.url ?? '');
      response.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    return listening(server);
  }

  it('stops reading an answer over 8 MiB', async () => {
    const origin = await hostile(() => ({ body: Buffer.alloc(9 * 1024 * 1024, 32) }));
    await expect(completionsScorer(options(origin)).complete([1], 1)).rejects.toThrow(/over 8 MiB/);
  });

  it('refuses tokens that are not token ids, and log-probabilities that are not', async () => {
    const completion = (tokens: unknown[], tops: unknown[]) =>
      JSON.stringify({ choices: [{ logprobs: { tokens, top_logprobs: tops } }] });
    expect(() => scoredPositions(JSON.parse(completion(['Paris'], [{ Paris: -0.1 }])), 5)).toThrow(
      /not token_id:N/,
    );
    expect(() =>
      scoredPositions(JSON.parse(completion(['token_id:7'], [{ 'token_id:7': 3 }])), 5),
    ).toThrow(/not a log-probability/);
    const many = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`token_id:${i}`, -i - 0.5]),
    );
    expect(() => scoredPositions(JSON.parse(completion(['token_id:0'], [many])), 5)).toThrow(
      /30 entries where 5/,
    );
    expect(() => scoredPositions({ choices: [] }, 5)).toThrow(AgreementUnavailable);
    // Every probability raised to 1 would make any two distributions look alike.
    const certain = { 'token_id:1': 0, 'token_id:2': 0, 'token_id:3': 0 };
    expect(() => scoredPositions(JSON.parse(completion(['token_id:1'], [certain])), 5)).toThrow(
      /sum to a probability of 3\.000, above 1/,
    );
    // The greedy token is the most likely one, or the answer was not greedy.
    const notGreedy = { 'token_id:1': -2, 'token_id:2': -0.2 };
    expect(() => scoredPositions(JSON.parse(completion(['token_id:1'], [notGreedy])), 5)).toThrow(
      /token_id:1 is not the most likely/,
    );
  });

  it('gives up on a server that never answers, within the request timeout', async () => {
    const server = createServer(() => undefined);
    const origin = await listening(server);
    const scorer = completionsScorer({ ...options(origin), timeoutMs: 200 });
    await expect(scorer.tokenize('hello')).rejects.toThrow(/no whole answer within 0.2 s/);
  });

  it('gives up on a server that trickles its answer a byte at a time, within the request timeout', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => response.write(' '), 20);
      response.on('close', () => clearInterval(drip));
    });
    const origin = await listening(server);
    const scorer = completionsScorer({ ...options(origin), timeoutMs: 300 });
    await expect(scorer.tokenize('hello')).rejects.toThrow(/no whole answer within 0.3 s/);
  });

  it("quotes a server's error message bounded", async () => {
    const origin = await hostile(() => ({
      status: 500,
      body: JSON.stringify({ error: { message: 'x'.repeat(5000) } }),
    }));
    const error = await completionsScorer(options(origin))
      .tokenize('hi')
      .catch((e: Error) => e);
    expect(String(error)).toMatch(/HTTP 500: x{300}$/);
  });
});
