// One run of the simulated reranker benchmark, in the order the real script works: load
// the model, time each query, print the summary, save the result file. The Neuron runtime
// writes its profile when the process ends, so the profile comes last.
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setInterval } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { parseBenchmarkArgs, USAGE } from './benchmark-args.mjs';
import { buildResult, summaryLines } from './benchmark-result.mjs';
import { UsageError } from './errors.mjs';
import { compileGraphs } from './compile-step.mjs';
import { coreCount } from './instances.mjs';
import { readInspectSettings } from './inspect-settings.mjs';
import { readBenchmarkKnobs } from './knobs.mjs';
import { simulateLatencies } from './latency-model.mjs';
import { createRandom } from './prng.mjs';
import { writeProfile } from './profile-writer.mjs';
import { SIMULATED_VERSIONS } from './versions.mjs';
import { pythonTraceback, runtimeError, vllmLog } from './vllm-log.mjs';

const SCRIPT = '/home/ubuntu/vllm-neuron/examples/offline_benchmark.py';
const VLLM = '/opt/aws_neuronx_venv_pytorch_vllm/lib/python3.10/site-packages/vllm';
const MAIN_FRAMES = [
  [SCRIPT, 231, '<module>', 'main()'],
  [SCRIPT, 214, 'main', 'results = run_benchmark(llm, queries, args)'],
];
const DOCUMENTS_PER_QUERY = 20;
const BATCH_SIZE = 8;
/** The query at which SIM_FAIL=nrt crashes, so the log shows some progress first. */
const CRASH_AT_QUERY = 3;

const info = (source, message) => vllmLog('INFO', source, message);
const say = (line) => process.stdout.write(`${line}\n`);

/** Sleep `seconds × SIM_SLEEP` of real time (0 by default: tests and the demo stay fast). */
async function pass(seconds, knobs) {
  if (knobs.sleep > 0) await delay(seconds * knobs.sleep * 1000);
}

function hangForever() {
  // What `vllm bench` did with vllm-neuron at the time: start, then never return.
  return new Promise(() => setInterval(() => {}, 60_000));
}

function crash(component, nrtMessage, frames, exception) {
  runtimeError(component, nrtMessage);
  pythonTraceback(frames, exception);
  return 1;
}

/** Undefined when `path` (SIM_NEURON_DEVICE) is unset or opens read-write; else the error code. */
function openDevice(path) {
  if (!path?.trim()) return undefined;
  try {
    closeSync(openSync(path, 'r+'));
    return undefined;
  } catch (error) {
    return error.code ?? String(error);
  }
}

function loadModel(configuration) {
  info('__init__.py:216', 'Automatically detected platform neuron.');
  info(
    'llm_engine.py:221',
    `Initializing a V1 LLM engine (v${SIMULATED_VERSIONS.vllm}) with config: ` +
      `model='${configuration.model}', tensor_parallel_size=${configuration.tensor_parallel_size}, ` +
      `max_num_seqs=${configuration.max_num_seqs}, ` +
      `max_num_batched_tokens=${configuration.max_num_batched_tokens}, ` +
      `max_model_len=${configuration.max_model_len}, ` +
      `enable_prefix_caching=${configuration.enable_prefix_caching ? 'True' : 'False'}`,
  );
}

/**
 * The line that says the engine is ready, as vLLM's V1 engine core logs it once it has
 * loaded the model and warmed up (`SIM_READY_LINE` replaces it, `none` leaves it out).
 */
function sayReady(readyLine, seconds) {
  if (readyLine?.vllm) {
    info(
      'core.py:204',
      `init engine (profile, create kv cache, warmup model) took ${seconds.toFixed(2)} seconds`,
    );
  } else if (readyLine) say(readyLine.text);
}

/** Runs the benchmark; resolves to the exit status. */
export async function runOfflineBenchmark(argv, env) {
  let parsed;
  try {
    parsed = parseBenchmarkArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) process.stderr.write(`${USAGE}\n`);
    throw error;
  }
  if (parsed.help) {
    say(USAGE);
    return 0;
  }
  const { configuration } = parsed;
  const knobs = readBenchmarkKnobs(env);
  const inspect = readInspectSettings(env, knobs);
  const outputFile = parsed.outputFile ?? (env.PERF_GATE_OUTPUT?.trim() || undefined);
  const startedAt = new Date();

  loadModel(configuration);
  for (const warning of inspect?.warnings ?? []) vllmLog('WARNING', 'nrt', warning);
  if (inspect) {
    info(
      'neuron_worker.py:121',
      `Neuron runtime profiling enabled: system profile ${inspect.systemProfile ? 'on' : 'off'}, ` +
        `device profile ${inspect.deviceProfile}, output ${inspect.outputDir}`,
    );
  }
  // The Neuron runtime opens the devices read-write before it loads anything.
  const deviceProblem = openDevice(env.SIM_NEURON_DEVICE);
  if (deviceProblem) {
    return crash(
      'NRT:nrt_init',
      `Failed to open Neuron device ${env.SIM_NEURON_DEVICE}: ${deviceProblem}`,
      [MAIN_FRAMES[0], [SCRIPT, 205, 'main', 'llm = LLM(**engine_args)']],
      'RuntimeError: nrt_init failed with NRT_FAILURE (1)',
    );
  }
  const available = coreCount(knobs.instanceType, knobs.lnc);
  if (configuration.tensor_parallel_size > available) {
    return crash(
      'NRT:nrt_allocate_neuron_cores',
      `Logical Neuron Core(s) not available - Requested:${configuration.tensor_parallel_size} ` +
        `Available:${available}`,
      [MAIN_FRAMES[0], [SCRIPT, 205, 'main', 'llm = LLM(**engine_args)']],
      'RuntimeError: nrt_init failed with NRT_LOAD_NOT_ENOUGH_NC (9)',
    );
  }
  if (knobs.fail === 'load') {
    return crash(
      'TDRV:dmem_alloc_internal',
      'Failed to alloc DEVICE memory: 2147483648',
      [MAIN_FRAMES[0], [SCRIPT, 205, 'main', 'llm = LLM(**engine_args)']],
      'RuntimeError: Failed to load model: NRT_RESOURCE (4): out of device memory',
    );
  }
  if (knobs.hang) return hangForever();

  const compile = await compileGraphs(configuration, knobs, env, (s) => pass(s, knobs));
  // SIM_STARTUP_SLOWDOWN stretches the load after the draw, so the draws stay the same.
  const loadSeconds =
    createRandom(`load:${knobs.seed}:${knobs.run}`).lognormal(42, 0.05) * knobs.startupSlowdown;
  await pass(loadSeconds, knobs);
  info('llm_engine.py:470', `Model loaded in ${loadSeconds.toFixed(2)} s`);
  sayReady(knobs.readyLine, compile.seconds + loadSeconds);

  const { rawTimes, drift } = simulateLatencies({
    knobs,
    configuration,
    profilingOverhead: inspect?.overhead ?? 1,
  });
  say(
    `Processing ${rawTimes.length} queries (${DOCUMENTS_PER_QUERY} candidate documents each, ` +
      `batch size ${BATCH_SIZE})`,
  );
  for (const [i, seconds] of rawTimes.entries()) {
    say(`Processing query ${i + 1}/${rawTimes.length}`);
    if (knobs.fail === 'nrt' && i + 1 === Math.min(CRASH_AT_QUERY, rawTimes.length)) {
      return crash(
        'NRT:nrt_execute',
        'Execution failed on NeuronCore 0: NRT_EXEC_COMPLETED_WITH_ERR (1004)',
        [
          ...MAIN_FRAMES,
          [SCRIPT, 142, 'run_benchmark', 'outputs = llm.generate(prompts, sampling_params)'],
          [`${VLLM}/entrypoints/llm.py`, 465, 'generate', 'outputs = self._run_engine(use_tqdm)'],
        ],
        'RuntimeError: NRT execution failed with status 1004 (NRT_EXEC_COMPLETED_WITH_ERR)',
      );
    }
    await pass(seconds, knobs);
  }

  const result = buildResult(configuration, rawTimes);
  for (const line of summaryLines(result.metrics)) say(line);
  if (outputFile) {
    mkdirSync(dirname(outputFile), { recursive: true });
    writeFileSync(outputFile, `${JSON.stringify(result, null, 2)}\n`);
    say(`Results saved to ${outputFile}`);
  } else {
    say('No --output-file given (and PERF_GATE_OUTPUT unset): results not saved');
  }
  if (inspect) {
    const { sessionDir, files } = writeProfile({
      settings: inspect,
      knobs,
      configuration,
      drift,
      startedAt,
    });
    info('nrt', `Profile written to ${sessionDir} (${files.length} files)`);
  }
  return 0;
}
