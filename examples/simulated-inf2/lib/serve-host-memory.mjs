// The host memory the simulated `vllm serve` holds while it loads and keeps until it stops,
// as /proc shows a real server's: the model's weights as the host keeps them (the checkpoint
// is read into host memory before the runtime copies it to the NeuronCores) and a host
// buffer for each sequence slot, sized by --max-num-seqs × --max-model-len. Really
// allocated and written, page by page, so VmRSS counts it.
//
// Scaled down from a real server's (Qwen3-0.6B's bf16 weights alone are 1.2 GB) so that
// tests running servers side by side fit: 128 MiB of weights, 1 KiB a token of each slot,
// the slots at most 128 MiB. SIM_SERVE_HOST_MEMORY multiplies both: 1.3 is a build that
// holds 30% more, 0 holds none.
import { UsageError } from './errors.mjs';
import { vllmLog } from './vllm-log.mjs';

const MIB = 1024 * 1024;
export const WEIGHTS_BYTES = 128 * MIB;
export const SLOT_BYTES_PER_TOKEN = 1024;
export const MAX_SLOTS_BYTES = 128 * MIB;
const MAX_FACTOR = 8;

/** Kept here so that nothing frees them before the process ends. */
const held = [];

/** What the server holds: weights and slots in bytes, for these args and SIM_SERVE_HOST_MEMORY. */
export function hostMemoryPlan(args, env) {
  const factor = hostMemoryFactor(env);
  const slots = Math.min(
    args.maxNumSeqs * args.maxModelLen * SLOT_BYTES_PER_TOKEN,
    MAX_SLOTS_BYTES,
  );
  return {
    weightsBytes: Math.round(WEIGHTS_BYTES * factor),
    slotsBytes: Math.round(slots * factor),
  };
}

/** Allocates and writes the plan's buffers, logs them as vLLM logs its memory; the plan. */
export function holdHostMemory(args, env) {
  const plan = hostMemoryPlan(args, env);
  // A non-zero fill writes every page: a zeroed buffer may stay unbacked and not resident.
  for (const bytes of [plan.weightsBytes, plan.slotsBytes]) {
    if (bytes > 0) held.push(Buffer.alloc(bytes, 1));
  }
  const mib = (bytes) => (bytes / MIB).toFixed(1);
  vllmLog(
    'INFO',
    'neuron_worker.py:204',
    `Host memory: model weights ${mib(plan.weightsBytes)} MiB, sequence slots ${mib(plan.slotsBytes)} MiB (${args.maxNumSeqs} × ${args.maxModelLen} tokens)`,
  );
  return plan;
}

function hostMemoryFactor(env) {
  const text = (env.SIM_SERVE_HOST_MEMORY ?? '').trim();
  if (text === '') return 1;
  const factor = Number(text);
  if (!/^(\d+\.?\d*|\.\d+)$/.test(text) || factor > MAX_FACTOR) {
    throw new UsageError(
      `SIM_SERVE_HOST_MEMORY must be a number >= 0 and <= ${MAX_FACTOR} (got "${text}")`,
    );
  }
  return factor;
}
