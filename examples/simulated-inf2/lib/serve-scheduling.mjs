// How the simulated `vllm serve` schedules: its --max-num-seqs slots and KV cache
// (lib/scheduler.mjs, lib/kv-cache.mjs) from its flags and knobs, and what a cached prefix
// saves of a request's prefill.
import { UsageError } from './errors.mjs';
import { createKvCache } from './kv-cache.mjs';
import { createScheduler } from './scheduler.mjs';

/** Tokens per KV block: vLLM on Neuron's default --block-size. */
export const NEURON_BLOCK_SIZE = 32;

/**
 * The share of a prompt's time to first token that does not depend on its length (the
 * first decode step, sampling): a prefix read from the cache saves only the rest. An
 * assumption of the simulator, not a measured figure.
 */
const FIXED_PREFILL_SHARE = 0.2;

/**
 * The scheduler and KV cache of a server started with `args`. The cache holds
 * SIM_SERVE_KV_BLOCKS blocks; by default as many as --max-num-seqs requests of
 * --max-model-len tokens need, as vllm-neuron sizes it, so that only a smaller cache
 * preempts. Prefix caching is off unless --enable-prefix-caching, as vLLM on Neuron's
 * prefix-caching tutorial has it (a baseline without, then the flag).
 */
export function createServeScheduler(args, env) {
  const blockSize = args.flags['--block-size'] ?? NEURON_BLOCK_SIZE;
  const fitsAll = args.maxNumSeqs * Math.ceil(args.maxModelLen / blockSize);
  const blocks = kvBlocks(env, fitsAll);
  const prefixCaching =
    args.flags['--enable-prefix-caching'] === true &&
    args.flags['--no-enable-prefix-caching'] !== true;
  const kv = createKvCache({ blocks, blockSize, prefixCaching });
  return { kv, scheduler: createScheduler({ maxNumSeqs: args.maxNumSeqs, kv }) };
}

function kvBlocks(env, fallback) {
  const text = env.SIM_SERVE_KV_BLOCKS?.trim();
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 10_000_000) {
    throw new UsageError(
      `SIM_SERVE_KV_BLOCKS must be a whole number of blocks, 1 or more (got "${text}")`,
    );
  }
  return Number(text);
}

/** A prompt's tokens as the server counts them: its ids, else one per word. */
export function promptTokenList(prompt) {
  if (Array.isArray(prompt)) return prompt.map(String);
  return String(prompt ?? '')
    .split(/\s+/)
    .filter(Boolean);
}

/**
 * A prefill's time as a share of the prompt's at no cache: `computed` tokens computed for
 * a prompt of `promptLength` (fewer with a cached prefix, more when a preempted request
 * computes its prompt and output again).
 */
export function prefillShare(promptLength, computed) {
  if (promptLength <= 0) return 1;
  return FIXED_PREFILL_SHARE + (1 - FIXED_PREFILL_SHARE) * (computed / promptLength);
}
