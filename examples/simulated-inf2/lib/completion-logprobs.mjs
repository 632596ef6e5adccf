// What the simulated `vllm serve` puts in a completion that asks for log-probabilities, in
// the shape of vLLM's OpenAI server (vllm/entrypoints/openai/protocol.py,
// CompletionLogProbs): `tokens`, `token_logprobs`, `top_logprobs` (k entries, and the
// sampled token's), `text_offset`; tokens as `token_id:N` with --return-tokens-as-token-ids
// or the request's `return_tokens_as_token_ids`. Greedy decoding only (temperature 0), as
// the gate's agreement check asks. With on-device sampling on (vllm-neuron's default) the
// answer has no log-probabilities, as vllm-neuron's sampler returns none.
import { greedy, MAX_LOGPROBS, tokenize, tokenSettings, VOCAB_SIZE } from './token-model.mjs';

/** A request the server refuses, with vLLM's status and message. */
export class RequestRefused extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The prompt's token ids: a list of ids as given, else the text tokenized. */
export function promptIds(prompt) {
  if (!Array.isArray(prompt)) return tokenize(String(prompt ?? ''));
  const bad = prompt.find((id) => !Number.isInteger(id) || id < 0 || id >= VOCAB_SIZE);
  if (bad !== undefined) {
    throw new RequestRefused(400, `Token id ${JSON.stringify(bad)} is out of vocabulary`);
  }
  return prompt;
}

/**
 * The answer's tokens and their log-probabilities, or undefined when the request asks for
 * none (the server then answers ' tok' per token, as for a benchmark).
 */
export function answerWithLogprobs(body, args, tokenKnobs, outputTokens) {
  if (body.logprobs === undefined || body.logprobs === null) return undefined;
  const k = body.logprobs;
  if (!Number.isInteger(k) || k < 0) {
    throw new RequestRefused(
      400,
      `logprobs must be a non-negative integer (got ${JSON.stringify(k)})`,
    );
  }
  const limit = Math.min(args.maxLogprobs, MAX_LOGPROBS);
  if (k > limit) {
    throw new RequestRefused(
      400,
      `Requested sample logprobs of ${k}, which is greater than max allowed: ${limit}`,
    );
  }
  if (body.temperature !== 0) {
    throw new RequestRefused(
      400,
      'the simulated model answers log-probabilities only for greedy decoding (temperature 0)',
    );
  }
  const settings = tokenSettings({ model: args.model, ...tokenKnobs });
  const positions = greedy(promptIds(body.prompt), outputTokens, settings);
  const asIds = args.tokensAsIds || body.return_tokens_as_token_ids === true;
  const name = (id) => (asIds ? `token_id:${id}` : `w${id}`);
  const text = positions.map((candidates) => ` ${name(candidates[0].id)}`).join('');
  const withLogprobs = !args.onDeviceSampling || tokenKnobs.onDeviceSamplingOff;
  return { text, logprobs: withLogprobs ? logprobsObject(positions, k, name) : null };
}

function logprobsObject(positions, k, name) {
  let offset = 0;
  const textOffset = [];
  for (const candidates of positions) {
    textOffset.push(offset);
    offset += name(candidates[0].id).length + 1;
  }
  return {
    tokens: positions.map((candidates) => name(candidates[0].id)),
    token_logprobs: positions.map((candidates) => candidates[0].logprob),
    top_logprobs: positions.map((candidates) =>
      Object.fromEntries(candidates.slice(0, Math.max(k, 1)).map((c) => [name(c.id), c.logprob])),
    ),
    text_offset: textOffset,
  };
}
