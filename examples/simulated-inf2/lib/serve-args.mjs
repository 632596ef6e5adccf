// Command lines of the simulated `vllm serve` and `vllm bench serve`, parsed the way
// vLLM's argparse parsers do (vllm/entrypoints/openai/cli_args.py, vllm/benchmarks/serve.py):
// `--flag value` or `--flag=value`, unknown flags and bad values a usage error (exit 2).
// Only the flags the simulator acts on or echoes are known; the rest are refused by name,
// so that a typo in a config fails here as it would on a real runner.
import { UsageError } from './errors.mjs';

/** `vllm serve` flags: name → kind. */
const SERVE_FLAGS = {
  '--host': 'text',
  '--port': 'port',
  '--tensor-parallel-size': 'count',
  '-tp': 'count',
  '--max-num-seqs': 'count',
  '--max-model-len': 'count',
  '--max-num-batched-tokens': 'count',
  '--block-size': 'count',
  '--served-model-name': 'text',
  '--dtype': 'text',
  '--seed': 'integer',
  '--disable-log-requests': 'switch',
  '--enable-prefix-caching': 'switch',
  '--no-enable-prefix-caching': 'switch',
  '--max-logprobs': 'integer',
  '--return-tokens-as-token-ids': 'switch',
  '--no-async-scheduling': 'switch',
  '--additional-config': 'text',
  '--device': 'text',
  '--override-neuron-config': 'text',
};

/** `vllm bench serve` flags: name → kind. */
const BENCH_FLAGS = {
  '--backend': 'text',
  '--endpoint-type': 'text',
  '--base-url': 'text',
  '--host': 'text',
  '--port': 'port',
  '--endpoint': 'text',
  '--model': 'text',
  '--tokenizer': 'text',
  '--served-model-name': 'text',
  '--label': 'text',
  '--dataset-name': 'text',
  '--random-input-len': 'count',
  '--random-output-len': 'count',
  '--random-prefix-len': 'integer',
  '--input-len': 'count',
  '--output-len': 'count',
  '--random-range-ratio': 'ratio',
  '--num-prompts': 'count',
  '--request-rate': 'rate',
  '--burstiness': 'positive',
  '--max-concurrency': 'count',
  '--seed': 'integer',
  '--num-warmups': 'integer',
  '--percentile-metrics': 'text',
  '--metric-percentiles': 'text',
  '--result-dir': 'text',
  '--result-filename': 'text',
  '--request-id-prefix': 'text',
  '--ready-check-timeout-sec': 'integer',
  '--metadata': 'pairs',
  '--save-result': 'switch',
  '--save-detailed': 'switch',
  '--append-result': 'switch',
  '--ignore-eos': 'switch',
  '--disable-tqdm': 'switch',
  '--trust-remote-code': 'switch',
};

function value(kind, flag, text) {
  const bad = (what) => new UsageError(`argument ${flag}: invalid ${what} value: '${text}'`);
  switch (kind) {
    case 'text':
      return text;
    case 'port':
      if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65535) throw bad('port');
      return Number(text);
    case 'count':
      if (!/^\d+$/.test(text) || Number(text) < 1) throw bad('positive int');
      return Number(text);
    case 'integer':
      if (!/^-?\d+$/.test(text)) throw bad('int');
      return Number(text);
    case 'ratio':
    case 'positive':
    case 'rate': {
      if (kind === 'rate' && /^inf$/i.test(text)) return Infinity;
      const number = Number(text);
      const ok =
        Number.isFinite(number) && (kind === 'ratio' ? number >= 0 && number < 1 : number > 0);
      if (text.trim() === '' || !ok) throw bad('float');
      return number;
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

/** argv → { positional: [...], flags: { '--name': value } } against `known`. */
function parse(argv, known, usage) {
  const positional = [];
  const flags = {};
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') return { help: true, positional, flags };
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const kind = known[flag];
    if (kind === undefined) throw new UsageError(`unrecognized arguments: ${arg}\n${usage}`);
    if (kind === 'switch') {
      flags[flag] = true;
      continue;
    }
    if (kind === 'pairs') {
      const pairs = [];
      while (i + 1 < argv.length && !argv[i + 1].startsWith('--')) pairs.push(argv[++i]);
      flags[flag] = pairs;
      continue;
    }
    const text = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (text === undefined) throw new UsageError(`argument ${flag}: expected one argument`);
    flags[flag] = value(kind, flag, text);
  }
  return { help: false, positional, flags };
}

export const SERVE_USAGE =
  'usage: vllm serve MODEL [--host HOST] [--port PORT] [--tensor-parallel-size N] [--max-num-seqs N] [--max-model-len N] ...';

/** `vllm serve MODEL [flags]` → the settings the simulated server uses. */
export function parseServeArgs(argv) {
  const { help, positional, flags } = parse(argv, SERVE_FLAGS, SERVE_USAGE);
  if (help) return { help };
  if (positional.length !== 1) {
    throw new UsageError(`expected one MODEL argument, got ${positional.length}\n${SERVE_USAGE}`);
  }
  const model = positional[0];
  return {
    help: false,
    model,
    servedModelName: flags['--served-model-name'] ?? model,
    host: flags['--host'] ?? '127.0.0.1',
    port: flags['--port'] ?? 8000,
    tensorParallelSize: flags['--tensor-parallel-size'] ?? flags['-tp'] ?? 1,
    maxNumSeqs: flags['--max-num-seqs'] ?? 256,
    maxModelLen: flags['--max-model-len'] ?? 2048,
    maxLogprobs: flags['--max-logprobs'] ?? 20,
    tokensAsIds: flags['--return-tokens-as-token-ids'] === true,
    onDeviceSampling:
      onDeviceSampling(
        flags['--additional-config'],
        '--additional-config',
        (c) => c?.override_neuron_config,
      ) &&
      onDeviceSampling(flags['--override-neuron-config'], '--override-neuron-config', (c) => c),
    flags,
  };
}

/**
 * Whether the server samples on the device, as vllm-neuron does unless `--additional-config`
 * sets `override_neuron_config.on_device_sampling_config` to null (NxD Inference's vLLM
 * path: `--override-neuron-config`): then it returns no log-probabilities (vllm-neuron's
 * model loader; see docs/agreement.md).
 */
function onDeviceSampling(text, flag, overrideOf) {
  if (text === undefined) return true;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`argument ${flag}: invalid loads value: '${text}'`);
  }
  const override = overrideOf(parsed);
  return !(
    override &&
    'on_device_sampling_config' in override &&
    override.on_device_sampling_config === null
  );
}

export const BENCH_USAGE =
  'usage: vllm bench serve [--base-url URL | --host HOST --port PORT] [--model MODEL] [--dataset-name random] ' +
  '[--random-input-len N] [--random-output-len N] [--num-prompts N] [--request-rate R] [--burstiness B] ' +
  '[--max-concurrency N] [--percentile-metrics M,...] [--metric-percentiles P,...] [--save-result] ' +
  '[--save-detailed] [--result-dir DIR] [--result-filename FILE] [--metadata KEY=VALUE ...] ...';

const PERCENTILE_METRICS = ['ttft', 'tpot', 'itl', 'e2el'];

/** `vllm bench serve [flags]` → the benchmark's settings, with vLLM's defaults. */
export function parseBenchArgs(argv) {
  const { help, positional, flags } = parse(argv, BENCH_FLAGS, BENCH_USAGE);
  if (help) return { help };
  if (positional.length > 0) {
    throw new UsageError(`unrecognized arguments: ${positional.join(' ')}\n${BENCH_USAGE}`);
  }
  const dataset = flags['--dataset-name'] ?? 'random';
  if (dataset !== 'random') {
    throw new UsageError(`--dataset-name ${dataset} is not simulated: only random is`);
  }
  const metrics = (flags['--percentile-metrics'] ?? 'ttft,tpot,itl').split(',');
  const unknown = metrics.find((metric) => !PERCENTILE_METRICS.includes(metric));
  if (unknown !== undefined) {
    throw new UsageError(
      `--percentile-metrics: ${unknown} is not one of ${PERCENTILE_METRICS.join(', ')}`,
    );
  }
  const percentiles = (flags['--metric-percentiles'] ?? '99').split(',').map((text) => {
    const p = Number(text);
    if (text.trim() === '' || !(p >= 0 && p <= 100)) {
      throw new UsageError(`--metric-percentiles: '${text}' is not a percentile`);
    }
    return p;
  });
  for (const pair of flags['--metadata'] ?? []) {
    if (!pair.includes('='))
      throw new UsageError('Invalid metadata format. Please use KEY=VALUE format.');
  }
  const backend = flags['--backend'] ?? flags['--endpoint-type'] ?? 'openai';
  return {
    help: false,
    backend,
    baseUrl: flags['--base-url'],
    host: flags['--host'] ?? '127.0.0.1',
    port: flags['--port'] ?? 8000,
    endpoint: flags['--endpoint'] ?? '/v1/completions',
    model: flags['--model'],
    tokenizer: flags['--tokenizer'],
    servedModelName: flags['--served-model-name'],
    label: flags['--label'] ?? null,
    inputLen: flags['--input-len'] ?? flags['--random-input-len'] ?? 1024,
    outputLen: flags['--output-len'] ?? flags['--random-output-len'] ?? 128,
    rangeRatio: flags['--random-range-ratio'] ?? 0,
    prefixLen: Math.max(0, flags['--random-prefix-len'] ?? 0),
    numPrompts: flags['--num-prompts'] ?? 1000,
    requestRate: flags['--request-rate'] ?? Infinity,
    burstiness: flags['--burstiness'] ?? 1,
    maxConcurrency: flags['--max-concurrency'] ?? null,
    seed: flags['--seed'] ?? 0,
    percentileMetrics: metrics,
    percentiles,
    saveResult: flags['--save-result'] === true,
    saveDetailed: flags['--save-detailed'] === true,
    appendResult: flags['--append-result'] === true,
    resultDir: flags['--result-dir'],
    resultFilename: flags['--result-filename'],
    requestIdPrefix: flags['--request-id-prefix'],
    readyCheckTimeoutSec: flags['--ready-check-timeout-sec'] ?? 600,
    metadata: flags['--metadata'] ?? [],
  };
}
