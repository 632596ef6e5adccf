// The compile step of a model load, as vllm-neuron (NxD Inference) logs it: each graph is
// loaded from the compile cache or compiled and stored there, then one line says how long
// compiling all graphs took ("INFO:Neuron:Finished Compilation for all HLOs in 49.70
// seconds", NxD Inference's model builder; ~1 s when every graph came from the cache).
import {
  cacheEntry,
  cacheLocation,
  compileFlags,
  compilerVersion,
  graphsOf,
  moduleName,
  storeEntry,
} from './compile-cache.mjs';
import { createRandom } from './prng.mjs';
import { neuronCacheLog } from './vllm-log.mjs';

/** Simulated seconds to compile one graph: context encoding is the larger graph. */
const COMPILE_SECONDS = { context_encoding_model: 95, token_generation_model: 60 };
/** Simulated seconds to load one NEFF from the cache. */
const LOAD_SECONDS = 0.2;

/**
 * Loads or compiles every graph of the configuration; `pass(seconds)` spends simulated
 * time. Resolves to { compiled, cached, seconds }.
 */
export async function compileGraphs(configuration, knobs, env, pass) {
  const { root, note } = cacheLocation(env);
  const version = compilerVersion(env);
  const flags = compileFlags(configuration, env);
  const random = createRandom(`compile:${knobs.seed}:${knobs.run}`);
  neuronCacheLog('NEURON_CACHE', `Compile cache path: ${root}`);
  if (note) neuronCacheLog('NEURON_CACHE', note);
  let seconds = 0;
  let compiled = 0;
  for (const graph of graphsOf(configuration)) {
    const entry = cacheEntry(root, version, moduleName(graph, configuration, flags));
    if (entry.hit) {
      seconds += LOAD_SECONDS;
      await pass(LOAD_SECONDS);
      neuronCacheLog(
        'NEURON_CC_WRAPPER',
        `Using a cached neff at ${entry.neff}. Exiting with a successfully compiled graph.`,
      );
      continue;
    }
    const took = random.lognormal(COMPILE_SECONDS[graph.graph] * knobs.compileSlowdown, 0.05);
    seconds += took;
    await pass(took);
    storeEntry(entry, graph, version, flags);
    compiled += 1;
    process.stdout.write('Compiler status PASS\n');
    neuronCacheLog('NEURON_CC_WRAPPER', 'Exiting with a successfully compiled graph.');
  }
  process.stdout.write(
    `INFO:Neuron:Finished Compilation for all HLOs in ${seconds.toFixed(2)} seconds\n`,
  );
  return { compiled, cached: graphsOf(configuration).length - compiled, seconds };
}
