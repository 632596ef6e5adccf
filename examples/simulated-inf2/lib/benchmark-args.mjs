// Command line of the simulated offline_benchmark.py, parsed the way argparse would:
// unknown flags and bad values give a usage line and exit 2. Every setting lands in the
// `configuration` object that the result file echoes, in the reference file's key order.
import { readFileSync } from 'node:fs';
import { UsageError } from './errors.mjs';

/** The reference configuration (offline_benchmark_result.json), used for unset flags. */
export const DEFAULT_CONFIGURATION = Object.freeze({
  model: './models/Qwen3-0.6B-Reranker',
  tensor_parallel_size: 2,
  max_num_seqs: 4,
  max_num_batched_tokens: 256,
  max_model_len: 2048,
  block_size: 32,
  pa_num_blocks: 512,
  enable_prefix_caching: false,
  enable_bucketing: true,
  kv_cache_quant: false,
  sequence_parallel: false,
  flash_decoding: false,
});

const BOOLEAN_KEYS = Object.keys(DEFAULT_CONFIGURATION).filter(
  (key) => typeof DEFAULT_CONFIGURATION[key] === 'boolean',
);
const INTEGER_KEYS = Object.keys(DEFAULT_CONFIGURATION).filter(
  (key) => typeof DEFAULT_CONFIGURATION[key] === 'number',
);
const flagOf = (key) => `--${key.replaceAll('_', '-')}`;

export const USAGE = [
  'usage: offline-benchmark [-h] [--output-file FILE] [--config-json FILE] [--model MODEL]',
  ...INTEGER_KEYS.map((key) => `       [${flagOf(key)} N]`),
  ...BOOLEAN_KEYS.map((key) => `       [${flagOf(key)} | ${flagOf(key).replace('--', '--no-')}]`),
].join('\n');

function parseBoolean(flag, value) {
  if (value === undefined) return true;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new UsageError(`argument ${flag}: invalid boolean value: '${value}'`);
}

function parseInteger(flag, value) {
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`argument ${flag}: invalid positive int value: '${value ?? ''}'`);
  }
  return Number(value);
}

/** argv → { configuration, outputFile, help }. */
export function parseBenchmarkArgs(argv) {
  const configuration = { ...DEFAULT_CONFIGURATION };
  let outputFile;
  let help = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const next = () => inline ?? argv[(i += 1)];

    if (flag === '-h' || flag === '--help') {
      help = true;
      continue;
    }
    if (flag === '--output-file') {
      outputFile = next();
      if (!outputFile) throw new UsageError('argument --output-file: expected one argument');
      continue;
    }
    if (flag === '--config-json') {
      applyConfigJson(configuration, next());
      continue;
    }
    if (flag === '--model') {
      configuration.model = next();
      if (!configuration.model) throw new UsageError('argument --model: expected one argument');
      continue;
    }
    const intKey = INTEGER_KEYS.find((key) => flagOf(key) === flag);
    if (intKey) {
      configuration[intKey] = parseInteger(flag, next());
      continue;
    }
    const boolKey = BOOLEAN_KEYS.find((key) => flagOf(key) === flag);
    if (boolKey) {
      configuration[boolKey] = parseBoolean(flag, inline);
      continue;
    }
    const negatedKey = BOOLEAN_KEYS.find((key) => flagOf(key).replace('--', '--no-') === flag);
    if (negatedKey && inline === undefined) {
      configuration[negatedKey] = false;
      continue;
    }
    throw new UsageError(`unrecognized arguments: ${arg}`);
  }
  return { configuration, outputFile, help };
}

/**
 * `--config-json FILE`: settings from a JSON object, such as the parameters of one sweep
 * variant (the gate's PERF_GATE_PARAMS). Known settings are applied with their types
 * checked; other keys (input_file, batch_size, ...) are not the simulator's business.
 */
function applyConfigJson(configuration, path) {
  if (!path) throw new UsageError('argument --config-json: expected one argument');
  let data;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`argument --config-json: cannot read ${path}: ${error.message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError(`argument --config-json: ${path} is not a JSON object`);
  }
  for (const [key, value] of Object.entries(data)) {
    if (!Object.hasOwn(DEFAULT_CONFIGURATION, key)) continue;
    if (typeof value !== typeof DEFAULT_CONFIGURATION[key]) {
      throw new UsageError(
        `argument --config-json: ${key} must be a ${typeof DEFAULT_CONFIGURATION[key]}, found ${JSON.stringify(value)}`,
      );
    }
    configuration[key] = value;
  }
}
