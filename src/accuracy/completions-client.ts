// The agreement check's side of vLLM's OpenAI-compatible server: POST /tokenize, and POST
// /v1/completions with greedy decoding and the top-k log-probabilities of each token
// (vllm/entrypoints/openai/protocol.py: CompletionRequest, CompletionLogProbs), tokens as
// `token_id:N` so that two ids that decode to one text stay two. The server runs the code
// under test (a pull request's, in A/B mode): every answer is bounded in size and time and
// read field by field; nothing it says is trusted beyond the numbers it is asked for.

import { request } from 'node:http';
import type { ScoredPosition } from './agreement.js';
import type { Scorer } from './teacher-forced.js';

/** The most an answer may be: 32 tokens of top-20 are ~40 KB. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const TOKEN_ID = /^token_id:(\d{1,9})$/;

/** A server that cannot take part in the check, and why (said as the check's error). */
export class AgreementUnavailable extends Error {}

export interface CompletionsOptions {
  /** http://127.0.0.1:8000: the server's origin on loopback. */
  origin: string;
  model: string;
  topK: number;
  timeoutMs: number;
}

/** A Scorer over the server, and its tokenizer. */
export function completionsScorer(options: CompletionsOptions): Scorer & {
  tokenize(prompt: string): Promise<number[]>;
} {
  return {
    tokenize: async (prompt) => {
      const answer = await postJson(options, '/tokenize', { model: options.model, prompt });
      const tokens = isObject(answer) ? answer.tokens : undefined;
      if (!Array.isArray(tokens) || !tokens.every(isTokenId)) {
        throw new AgreementUnavailable(
          'POST /tokenize did not answer a list of token ids (`tokens`)',
        );
      }
      return tokens;
    },
    complete: async (promptIds, maxTokens) => {
      const answer = await postJson(options, '/v1/completions', {
        model: options.model,
        prompt: promptIds,
        max_tokens: maxTokens,
        temperature: 0,
        seed: 0,
        logprobs: options.topK,
        return_tokens_as_token_ids: true,
        ignore_eos: true,
        stream: false,
      });
      return scoredPositions(answer, options.topK);
    },
  };
}

/** The served model's name: the first of GET /v1/models. */
export async function servedModel(origin: string, timeoutMs: number): Promise<string> {
  const answer = await exchange({ origin, timeoutMs }, 'GET', '/v1/models');
  const data = isObject(answer) ? answer.data : undefined;
  const first: unknown = Array.isArray(data) ? data[0] : undefined;
  const id = isObject(first) ? first.id : undefined;
  if (typeof id !== 'string' || id === '' || id.length > 512) {
    throw new AgreementUnavailable('GET /v1/models named no model; set `accuracy.model`');
  }
  return id;
}

/** The positions of a completion's first choice, from its `logprobs`. */
export function scoredPositions(answer: unknown, topK: number): ScoredPosition[] {
  const choice: unknown =
    isObject(answer) && Array.isArray(answer.choices) ? answer.choices[0] : undefined;
  if (!isObject(choice)) throw new AgreementUnavailable('the completion had no `choices`');
  const logprobs = choice.logprobs;
  if (logprobs === null || logprobs === undefined) {
    throw new AgreementUnavailable(
      'the server returned no log-probabilities (`choices[0].logprobs` is null). vllm-neuron samples on the device by default and then returns none: start the server with --additional-config \'{"override_neuron_config": {"on_device_sampling_config": null}}\' (docs/agreement.md)',
    );
  }
  const tokens = isObject(logprobs) ? logprobs.tokens : undefined;
  const tops = isObject(logprobs) ? logprobs.top_logprobs : undefined;
  if (!Array.isArray(tokens) || !Array.isArray(tops) || tokens.length !== tops.length) {
    throw new AgreementUnavailable(
      '`choices[0].logprobs` lacks `tokens` and `top_logprobs` of one length',
    );
  }
  return tokens.map((token, i) => position(token, tops[i], topK));
}

function position(token: unknown, top: unknown, topK: number): ScoredPosition {
  const id = tokenIdOf(token);
  if (!isObject(top))
    throw new AgreementUnavailable(`position ${String(token)}: no \`top_logprobs\``);
  const entries = Object.entries(top);
  if (entries.length === 0 || entries.length > topK + 1) {
    throw new AgreementUnavailable(
      `\`top_logprobs\` has ${entries.length} entries where ${topK} were asked for`,
    );
  }
  const map = new Map<number, number>();
  for (const [name, logprob] of entries) {
    if (typeof logprob !== 'number' || !(logprob <= 0) || !Number.isFinite(logprob)) {
      throw new AgreementUnavailable(
        `\`top_logprobs\` has ${JSON.stringify(logprob)} for ${name.slice(0, 40)}: not a log-probability`,
      );
    }
    map.set(tokenIdOf(name), logprob);
  }
  checkDistribution(id, map);
  // The k most likely: vLLM adds the sampled token when it is not among them.
  const top_ = new Map([...map].sort((a, b) => b[1] - a[1]).slice(0, topK));
  return { token: id, top: top_ };
}

/**
 * What a greedy answer's position must be: probabilities that sum to 1 at most (a server
 * that raised them all to 0 would make any two distributions look alike), and the greedy
 * token the most likely of them.
 */
function checkDistribution(token: number, top: ReadonlyMap<number, number>): void {
  let mass = 0;
  let most = -Infinity;
  for (const logprob of top.values()) {
    mass += Math.exp(logprob);
    most = Math.max(most, logprob);
  }
  if (mass > 1 + 1e-3) {
    throw new AgreementUnavailable(
      `\`top_logprobs\` sum to a probability of ${mass.toFixed(3)}, above 1: not a distribution`,
    );
  }
  const own = top.get(token);
  if (own === undefined || own < most - 1e-6) {
    throw new AgreementUnavailable(
      `token_id:${token} is not the most likely of its \`top_logprobs\`: not a greedy answer (temperature 0)`,
    );
  }
}

function tokenIdOf(token: unknown): number {
  const match = typeof token === 'string' ? TOKEN_ID.exec(token) : null;
  if (!match) {
    throw new AgreementUnavailable(
      `the server named a token ${JSON.stringify(String(token).slice(0, 40))}, not token_id:N: it ignores return_tokens_as_token_ids (start it with --return-tokens-as-token-ids)`,
    );
  }
  return Number(match[1]);
}

function isTokenId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) < 2 ** 31;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function postJson(options: CompletionsOptions, path: string, body: unknown): Promise<unknown> {
  return exchange(options, 'POST', path, JSON.stringify(body));
}

/** One request to the server, its answer parsed; an error says the path and what went wrong. */
function exchange(
  { origin, timeoutMs }: { origin: string; timeoutMs: number },
  method: 'GET' | 'POST',
  path: string,
  body?: string,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const fail = (why: string) => reject(new AgreementUnavailable(`${method} ${path}: ${why}`));
    const headers = body === undefined ? {} : { 'content-type': 'application/json' };
    const sent = request(new URL(path, origin), { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          response.destroy();
          fail(`an answer over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
        } else chunks.push(chunk);
      });
      response.on('error', (error) => fail(error.message));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode !== 200) {
          fail(`HTTP ${response.statusCode ?? '?'}: ${errorText(text)}`);
          return;
        }
        try {
          resolve(JSON.parse(text));
        } catch {
          fail('an answer that is not JSON');
        }
      });
    });
    // A total deadline, not an idle one: a server that trickles a byte at a time must not
    // hold the gate (node's `timeout` only ends a silent socket).
    const deadline = setTimeout(
      () => sent.destroy(new Error(`no whole answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    sent.on('close', () => clearTimeout(deadline));
    sent.on('error', (error) => fail(error.message));
    sent.end(body);
  });
}

/** The server's error message, bounded: `error.message` of an OpenAI error, else the text. */
function errorText(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    const error = isObject(parsed) ? parsed.error : undefined;
    const message = isObject(error) ? error.message : undefined;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300);
}
