// The compile step of the simulated `vllm serve`, before it loads the model: the graphs of
// its settings (--max-model-len buckets, --max-num-seqs batch, --tensor-parallel-size) loaded
// from the Neuron compile cache or compiled into it, logged as neuronx-cc and the Neuron
// runtime do. The same step as the offline benchmark's (compile-step.mjs), the same cache
// (NEURON_COMPILE_CACHE_URL, else /var/tmp/neuron-compile-cache): a server and an offline
// run of one model and settings share their graphs. Compiling takes simulated seconds (the
// log says them); on the wall clock they take SIM_SLEEP times as long, as in the offline
// benchmark (0 by default, so a served test waits no longer than SIM_SERVE_STARTUP).
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CONFIGURATION } from './benchmark-args.mjs';
import { compileGraphs } from './compile-step.mjs';
import { readBenchmarkKnobs } from './knobs.mjs';

/** The model configuration the server's flags give, the offline benchmark's defaults else. */
export function serveConfiguration(args) {
  const batchedTokens = args.flags?.['--max-num-batched-tokens'];
  return {
    ...DEFAULT_CONFIGURATION,
    model: args.model,
    tensor_parallel_size: args.tensorParallelSize,
    max_num_seqs: args.maxNumSeqs,
    max_model_len: args.maxModelLen,
    ...(batchedTokens !== undefined ? { max_num_batched_tokens: batchedTokens } : {}),
  };
}

/**
 * The knobs the compile step reads (SIM_SEED, SIM_SLEEP, SIM_COMPILE_SLOWDOWN). SIM_FAIL is
 * the offline benchmark's crash and is not the server's (SIM_SERVE_FAIL): left out.
 */
function compileKnobs(env) {
  return readBenchmarkKnobs({ ...env, SIM_FAIL: undefined });
}

/**
 * Loads or compiles every graph of the server's settings. Resolves to the step's
 * { compiled, cached, seconds }, or to 'stopped' when `stopped` (the server's stop on
 * SIGTERM) settles first: a server stopped while it compiles stops then.
 */
export async function compileForServe(args, env, stopped) {
  const knobs = compileKnobs(env);
  const pass = (seconds) => (knobs.sleep > 0 ? sleep(seconds * knobs.sleep * 1000) : undefined);
  const compiling = compileGraphs(serveConfiguration(args), knobs, env, pass);
  return Promise.race([compiling, stopped.then(() => 'stopped')]);
}
