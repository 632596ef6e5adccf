// The Neuron persistent compile cache, as torch-neuronx / libneuronxla keep it and as
// vllm-neuron (NxD Inference) uses it when it loads a model: one folder per compiler
// version, one MODULE_ folder per compiled graph, the NEFF inside.
//
//   <cache>/neuronxcc-<neuronx-cc version>/MODULE_<graph hash>+<flags hash>/
//       compile_flags.txt  model.hlo_module.pb  model.neff
//
// Layout as published caches show it (huggingface.co/aws-neuron/optimum-neuron-cache,
// neuronxcc-2.13.66.0+6dfecc895/MODULE_0bb45ce8c3d5c44efef2+2c2d707e/). The cache is
// NEURON_COMPILE_CACHE_URL when that is a local path (file:// allowed), else
// /var/tmp/neuron-compile-cache, the default of the Neuron docs ("Neuron Persistent
// Cache", awsdocs-neuron.readthedocs-hosted.com .../neuron-caching.html). A new compiler
// version (SIM_NEURONX_CC_VERSION, what `pip list` reports) is a new folder: every graph
// misses and is compiled again, as after a Neuron SDK upgrade.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeSimFile } from './sim-file-format.mjs';
import { SIMULATED_VERSIONS } from './versions.mjs';

export const DEFAULT_CACHE_DIR = '/var/tmp/neuron-compile-cache';
const NEFF_BYTES = 2048;

/** The local cache folder and, for a remote URL the simulator cannot reach, why it is not used. */
export function cacheLocation(env) {
  const url = env.NEURON_COMPILE_CACHE_URL?.trim();
  if (!url) return { root: DEFAULT_CACHE_DIR };
  if (url.startsWith('file://')) return { root: url.slice('file://'.length) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    return {
      root: DEFAULT_CACHE_DIR,
      note: `remote cache ${url} not simulated; using the local default`,
    };
  }
  return { root: url };
}

/** The compiler version the cache is keyed by: the neuronx-cc `pip list` reports. */
export function compilerVersion(env) {
  const value = env.SIM_NEURONX_CC_VERSION?.trim();
  return value && value !== 'none' ? value : SIMULATED_VERSIONS.compiler;
}

/**
 * The graphs vllm-neuron compiles for a configuration: context encoding and token
 * generation, one per bucket with bucketing on (NxD Inference buckets by sequence length).
 */
export function graphsOf(configuration) {
  const buckets = configuration.enable_bucketing
    ? [512, configuration.max_model_len]
    : [configuration.max_model_len];
  return ['context_encoding_model', 'token_generation_model'].flatMap((graph) =>
    buckets.map((bucket) => ({ graph, bucket })),
  );
}

const hex = (text, length) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** MODULE_<20 hex of the graph>+<8 hex of the flags>, as the cache names its entries. */
export function moduleName({ graph, bucket }, configuration, flags) {
  // max_num_seqs is the batch the graphs are compiled for: another is another graph.
  const { model, tensor_parallel_size: tp, max_num_seqs: batch } = configuration;
  const key = [graph, bucket, model, tp, batch].join('|');
  return `MODULE_${hex(key, 20)}+${hex(flags.join(' '), 8)}`;
}

/**
 * The flags the compiler is called with, NEURON_CC_FLAGS last as the wrapper adds them;
 * part of the entry's name, so part of its key: new flags miss the cache too.
 */
export function compileFlags(configuration, env) {
  const extra = env.NEURON_CC_FLAGS?.trim().split(/\s+/).filter(Boolean) ?? [];
  const level = `-O${configuration.enable_bucketing ? 2 : 1}`;
  return ['--target=inf2', '--auto-cast=none', '--model-type=transformer', level, ...extra];
}

/** The cache entry of a graph: its folder and whether a NEFF is there to load. */
export function cacheEntry(root, version, name) {
  const dir = join(root, `neuronxcc-${version}`, name);
  return { dir, neff: join(dir, 'model.neff'), hit: existsSync(join(dir, 'model.neff')) };
}

/**
 * Writes a compiled graph into the cache. Written beside the entry, then renamed into
 * place, so that a reader (or a benchmark running at the same time) never sees half of one.
 */
export function storeEntry(entry, { graph, bucket }, version, flags) {
  const staging = `${entry.dir}.tmp-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'compile_flags.txt'), `${flags.join(' ')}\n`);
  writeFileSync(
    join(staging, 'model.hlo_module.pb'),
    encodeSimFile('SIMPB', { kind: 'hlo_module', graph, bucket }, { minBytes: 512 }),
  );
  writeFileSync(
    join(staging, 'model.neff'),
    encodeSimFile(
      'SIMNEFF',
      { kind: 'neff', graph, bucket, compiler_version: version },
      { minBytes: NEFF_BYTES, paddingKey: entry.dir },
    ),
  );
  try {
    renameSync(staging, entry.dir);
  } catch {
    // Another process stored the same graph first: its entry is as good as ours.
    rmSync(staging, { recursive: true, force: true });
  }
}
