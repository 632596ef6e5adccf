// The simulated model's next-token distribution: what `vllm serve` answers when a
// completion asks for log-probabilities (`logprobs: k`). Each context (the prompt's token
// ids and the tokens after them) has its own top-20 candidates, drawn from a generator
// keyed by the model and the context, so every run of the same build greedily produces
// the same tokens, as a real model does, except where two candidates nearly tie.
//
// A build's change is a knob: SIM_TOKEN_FLIPS swaps the top two candidates of that share of
// contexts (the same contexts every run: the greedy token changes and the answer forks
// there), SIM_LOGPROB_SPREAD flattens every distribution as a temperature of 1 + spread
// would. Run-to-run nondeterminism is SIM_LOGPROB_JITTER: each log-probability of each
// request moves by that much (normal, per request), so a near tie (about 0.6% of contexts,
// the top two within 0.002 nats) goes either way, as BF16 reductions in another order do.
import { createHash } from 'node:crypto';
import { createRandom } from './prng.mjs';

/** Qwen3's vocabulary size. */
export const VOCAB_SIZE = 151_936;
/** vLLM's `--max-logprobs` default: the most candidates a request may ask for. */
export const MAX_LOGPROBS = 20;
/** Share of contexts whose top two candidates nearly tie, and how near. */
const NEAR_TIE_SHARE = 0.006;
const NEAR_TIE_GAP = 0.002;
/** Mean gap (nats) between neighbouring candidates elsewhere. */
const MEAN_GAP = 0.9;

/** Token ids of a text: one per word or punctuation mark, stable across runs and servers. */
export function tokenize(text) {
  const words = String(text).match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? [];
  return words.map((word) => wordId(word));
}

function wordId(word) {
  return createHash('sha256').update(`word:${word}`).digest().readUInt32LE(0) % VOCAB_SIZE;
}

/** How a build and a run shape the distributions: knobs.mjs readTokenKnobs. */
export function tokenSettings({ model, flips = 0, spread = 0, jitter = 0, noise = Math.random }) {
  return { model, flips, spread, jitter, noise };
}

/**
 * The top MAX_LOGPROBS candidates after `context`, most likely first: `{ id, logprob }`.
 * `noise` (a uniform source) is this request's run-to-run jitter.
 */
export function nextCandidates(context, settings, noise = settings.noise) {
  const key = contextKey(settings.model, context);
  const probabilities = baseProbabilities(key);
  const ids = candidateIds(key);
  if (settings.flips > 0 && createRandom(`flip:${key}`).uniform() < settings.flips) {
    [ids[0], ids[1]] = [ids[1], ids[0]];
  }
  const shaped =
    settings.spread > 0 ? flattened(probabilities, 1 + settings.spread) : probabilities;
  const jittered = settings.jitter > 0 ? withLogitNoise(shaped, settings.jitter, noise) : shaped;
  const candidates = jittered.map((p, i) => ({ id: ids[i], logprob: Math.log(p) }));
  return candidates.sort((a, b) => b.logprob - a.logprob);
}

/**
 * Run-to-run noise as a device gives it: on the logits, then a softmax again, so the
 * candidates and the tail still sum to 1 (noise on the log-probabilities themselves would
 * not).
 */
function withLogitNoise(probabilities, jitter, noise) {
  const tail = Math.max(0, 1 - probabilities.reduce((sum, p) => sum + p, 0));
  const raised = probabilities.map((p) => p * Math.exp(jitter * gaussian(noise)));
  const total = raised.reduce((sum, p) => sum + p, 0) + tail;
  return raised.map((p) => p / total);
}

/** Greedy decoding from `promptIds`: the tokens and each position's candidates. */
export function greedy(promptIds, maxTokens, settings) {
  const context = [...promptIds];
  const positions = [];
  for (let i = 0; i < maxTokens; i += 1) {
    const candidates = nextCandidates(context, settings);
    positions.push(candidates);
    context.push(candidates[0].id);
  }
  return positions;
}

function contextKey(model, context) {
  const hash = createHash('sha256').update(`model:${model}`);
  hash.update(Uint32Array.from(context));
  return hash.digest('hex').slice(0, 32);
}

/** The candidates' probabilities, most likely first, their sum below 1 (the tail's mass). */
function baseProbabilities(key) {
  const random = createRandom(`probabilities:${key}`);
  const top = 0.3 + 0.67 * random.uniform();
  const nearTie = random.uniform() < NEAR_TIE_SHARE;
  const probabilities = [top];
  let logprob = Math.log(top);
  for (let i = 1; i < MAX_LOGPROBS; i += 1) {
    const gap =
      i === 1 && nearTie ? NEAR_TIE_GAP * random.uniform() : -MEAN_GAP * Math.log(random.uniform());
    logprob -= gap;
    probabilities.push(Math.exp(logprob));
  }
  const total = probabilities.reduce((sum, p) => sum + p, 0);
  return total < 0.999 ? probabilities : probabilities.map((p) => (p * 0.999) / total);
}

/** MAX_LOGPROBS distinct token ids. */
function candidateIds(key) {
  const random = createRandom(`ids:${key}`);
  const ids = new Set();
  while (ids.size < MAX_LOGPROBS) ids.add(random.below(VOCAB_SIZE));
  return [...ids];
}

/** The distribution at temperature `t`, the tail's mass one bucket of its own. */
function flattened(probabilities, t) {
  const tail = Math.max(1e-9, 1 - probabilities.reduce((sum, p) => sum + p, 0));
  const powered = probabilities.map((p) => p ** (1 / t));
  const total = powered.reduce((sum, p) => sum + p, 0) + tail ** (1 / t);
  return powered.map((p) => p / total);
}

function gaussian(uniform) {
  const u1 = Math.max(uniform(), 1e-12);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * uniform());
}
