// The SIM_* environment knobs, read and validated in one place. A bad value stops the
// tool with exit 2 and names the variable, so a typo in a test or demo never silently
// turns into a default.
import { UsageError } from './errors.mjs';
import { INSTANCE_TYPES, readLnc } from './instances.mjs';
import { OP_JITTER, parseSlowOps } from './op-model.mjs';
import { SIMULATED_VERSIONS } from './versions.mjs';

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

/** The raw value, or undefined when unset or blank (CI often passes empty strings). */
function raw(env, name) {
  const value = env[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function fail(name, value, expected) {
  return new UsageError(`${name} must be ${expected} (got "${value}")`);
}

function number(env, name, fallback, { min = -Infinity, max = Infinity, exclusiveMin = false }) {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  const expected = `a number ${exclusiveMin ? '>' : '>='} ${min}${max < Infinity ? ` and <= ${max}` : ''}`;
  if (!DECIMAL.test(value) || !Number.isFinite(parsed)) throw fail(name, value, expected);
  if (parsed < min || (exclusiveMin && parsed === min) || parsed > max) {
    throw fail(name, value, expected);
  }
  return parsed;
}

function integer(env, name, fallback, { min, max }) {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!INTEGER.test(value) || parsed < min || parsed > max) {
    throw fail(name, value, `an integer from ${min} to ${max}`);
  }
  return parsed;
}

function flag(env, name) {
  const value = raw(env, name);
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  throw fail(name, value, 'one of 1, true, 0, false');
}

function choice(env, name, fallback, choices) {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const match = choices.find((c) => c.toLowerCase() === value.toLowerCase());
  if (match === undefined) throw fail(name, value, `one of ${choices.join(', ')}`);
  return match;
}

/** SIM_INSTANCE_TYPE: shared by neuron-ls and the benchmark. */
export function readInstanceType(env) {
  return choice(env, 'SIM_INSTANCE_TYPE', 'inf2.xlarge', Object.keys(INSTANCE_TYPES));
}

/** SIM_FAIL: off, or which crash to imitate (1/true/nrt: runtime error mid-run; load). */
function readFailure(env) {
  const value = raw(env, 'SIM_FAIL');
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (['0', 'false', 'no', 'off'].includes(lower)) return undefined;
  if (['1', 'true', 'yes', 'on', 'nrt'].includes(lower)) return 'nrt';
  if (lower === 'load') return 'load';
  throw fail('SIM_FAIL', value, 'one of 0, 1, true, nrt, load');
}

/** Every knob of the simulated benchmark, with its default. */
export function readBenchmarkKnobs(env) {
  return {
    instanceType: readInstanceType(env),
    lnc: readLnc(env, readInstanceType(env)),
    slowdown: number(env, 'SIM_SLOWDOWN', 1, { min: 0, exclusiveMin: true, max: 1000 }),
    noise: number(env, 'SIM_NOISE', 0.01, { min: 0, max: 1 }),
    outliers: number(env, 'SIM_OUTLIERS', 0.01, { min: 0, max: 1 }),
    seed: integer(env, 'SIM_SEED', 1, { min: -(2 ** 53 - 1), max: 2 ** 53 - 1 }),
    queries: integer(env, 'SIM_QUERIES', 10, { min: 1, max: 100_000 }),
    fail: readFailure(env),
    hang: flag(env, 'SIM_HANG'),
    sleep: number(env, 'SIM_SLEEP', 0, { min: 0, max: 100 }),
    profileLayout: choice(env, 'SIM_PROFILE_LAYOUT', undefined, ['A', 'B']),
    ntffBytes: integer(env, 'SIM_NTFF_BYTES', 4096, { min: 0, max: 64 * 1024 * 1024 }),
    hostDrift: number(env, 'SIM_HOST_DRIFT', 0, { min: 0, max: 0.5 }),
    hostDriftPeriod: number(env, 'SIM_HOST_DRIFT_PERIOD', 60, {
      min: 0,
      exclusiveMin: true,
      max: 1e9,
    }),
    versionSlowdown: versionSlowdown(env),
    compileSlowdown: number(env, 'SIM_COMPILE_SLOWDOWN', 1, {
      min: 0,
      exclusiveMin: true,
      max: 1000,
    }),
    startupSlowdown: number(env, 'SIM_STARTUP_SLOWDOWN', 1, {
      min: 0,
      exclusiveMin: true,
      max: 1000,
    }),
    readyLine: readyLine(env),
    slowOps: [...parseSlowOps(raw(env, 'SIM_SLOW_OPS')), ...compilerSlowOps(env)],
    opJitter: number(env, 'SIM_OP_JITTER', OP_JITTER, { min: 0, max: 1 }),
    throttle: number(env, 'SIM_PROFILE_THROTTLE', 0, { min: 0, max: 1 }),
    profileWarning: raw(env, 'SIM_PROFILE_WARNING'),
    // Not a knob but part of the seed: which run of the gate this is, and of which side of
    // an A/B comparison (each side numbers its runs from 1; their noise is not the same).
    run: `${env.PERF_GATE_SIDE ? `${env.PERF_GATE_SIDE}:` : ''}${env.PERF_GATE_RUN ?? ''}`,
  };
}

/**
 * SIM_READY_LINE: the line printed once the model is loaded, before the first query; unset:
 * vLLM's own `init engine (...) took N seconds` log line; `none`: no line at all.
 */
function readyLine(env) {
  const value = raw(env, 'SIM_READY_LINE');
  if (value === undefined) return { vllm: true };
  if (value.toLowerCase() === 'none') return undefined;
  if (/[\r\n]/.test(value)) throw fail('SIM_READY_LINE', value, 'one line of text, or none');
  return { text: value };
}

/**
 * SIM_COMPILER_SLOWDOWNS: `VERSION=FACTOR` pairs, comma-separated: the slowdown of the
 * compiler version SIM_NEURONX_CC_VERSION names (the one `pip list` reports), 1 for a
 * version not listed. An SDK upgrade that makes the model slower, for A/B of environments.
 */
function versionSlowdown(env) {
  const table = raw(env, 'SIM_COMPILER_SLOWDOWNS');
  if (table === undefined) return 1;
  const version = raw(env, 'SIM_NEURONX_CC_VERSION') ?? SIMULATED_VERSIONS.compiler;
  for (const pair of table.split(',')) {
    const match = /^\s*([^=\s]+)\s*=\s*(\S+)\s*$/.exec(pair);
    const factor = Number(match?.[2]);
    if (!match || !DECIMAL.test(match[2]) || !(factor > 0)) {
      throw fail(
        'SIM_COMPILER_SLOWDOWNS',
        table,
        'VERSION=FACTOR pairs separated by commas, each factor > 0',
      );
    }
    if (match[1] === version) return factor;
  }
  return 1;
}

/**
 * SIM_COMPILER_SLOW_OPS: `VERSION:SELECTOR=FACTOR` entries separated by `;` — the ops the
 * compiler version SIM_NEURONX_CC_VERSION names makes slower (selectors as SIM_SLOW_OPS);
 * none for a version not listed. A compiler release that slows one kernel, for A/B of SDKs.
 */
function compilerSlowOps(env) {
  const table = raw(env, 'SIM_COMPILER_SLOW_OPS');
  if (table === undefined) return [];
  const version = raw(env, 'SIM_NEURONX_CC_VERSION') ?? SIMULATED_VERSIONS.compiler;
  const ops = [];
  for (const entry of table.split(';')) {
    const at = entry.indexOf(':');
    if (at <= 0) {
      throw fail('SIM_COMPILER_SLOW_OPS', table, 'VERSION:SELECTOR=FACTOR entries separated by ;');
    }
    if (entry.slice(0, at).trim() === version) ops.push(...parseSlowOps(entry.slice(at + 1)));
  }
  return ops;
}

/**
 * The host's speed now, shared by everything that runs on it: 1 + SIM_HOST_DRIFT ×
 * sin(2π · wall-clock seconds / SIM_HOST_DRIFT_PERIOD). Both sides of an A/B comparison
 * see the same drift; two invocations at different times see different hosts.
 */
export function hostFactor(knobs, nowSeconds = Date.now() / 1000) {
  if (!knobs.hostDrift) return 1;
  return 1 + knobs.hostDrift * Math.sin((2 * Math.PI * nowSeconds) / knobs.hostDriftPeriod);
}

/** The knobs of the simulated profiler viewers (neuron-explorer, neuron-profile). */
export function readProfilerKnobs(env) {
  return {
    delay: number(env, 'SIM_PROFILER_DELAY', 0, { min: 0, max: 3600 }),
    nan: flag(env, 'SIM_PROFILER_NAN'),
    fail: flag(env, 'SIM_PROFILER_FAIL'),
    extraKeys: flag(env, 'SIM_PROFILER_EXTRA_KEYS'),
    // SIM_PROFILER_TABLES=0: a profiler without parquet output; SIM_PROFILER_SCHEMA: the
    // profile_schema_version its tables say (a newer SDK's, to be refused by name).
    tables: raw(env, 'SIM_PROFILER_TABLES') === undefined ? true : flag(env, 'SIM_PROFILER_TABLES'),
    schema: schemaVersion(env),
  };
}

function schemaVersion(env) {
  const value = raw(env, 'SIM_PROFILER_SCHEMA');
  if (value === undefined) return '7.4.0';
  if (!/^\d+\.\d+\.\d+$/.test(value))
    throw fail('SIM_PROFILER_SCHEMA', value, 'a version like 7.4.0');
  return value;
}

/**
 * `count` during the gate's run SIM_ECC_RUN names (PERF_GATE_RUN of the run the monitor
 * watches), 0 during the others; in every run without SIM_ECC_RUN.
 */
function onlyInRun(env, count) {
  const run = integer(env, 'SIM_ECC_RUN', 0, { min: 0, max: 1_000_000 });
  return run === 0 || String(run) === raw(env, 'PERF_GATE_RUN') ? count : 0;
}

/** SIM_SERVE_FAIL: off, or how the simulated `vllm serve` fails (start, never-ready). */
function readServeFailure(env) {
  const value = raw(env, 'SIM_SERVE_FAIL');
  if (value === undefined || ['0', 'false', 'no', 'off'].includes(value.toLowerCase())) {
    return undefined;
  }
  return choice(env, 'SIM_SERVE_FAIL', undefined, ['start', 'never-ready']);
}

/**
 * The knobs of the simulated `vllm serve` (lib/serve-latency.mjs) and of `vllm bench
 * serve`. Latencies are simulated milliseconds; SIM_SERVE_SPEEDUP runs simulated time that
 * many times faster on the wall clock (the client reports simulated time again).
 */
/**
 * The serving stacks the simulated `vllm serve` can be (SIM_SERVE_STACK): the vLLM Neuron
 * plugin, and NxD Inference's serving path, which starts slower and answers its first token
 * later but decodes a little faster (an assumption of the simulator, not a measured figure).
 */
export const SERVE_STACKS = {
  'vllm-neuron': { startup: 1, ttft: 1, itl: 1 },
  nxdi: { startup: 1.5, ttft: 1.12, itl: 0.95 },
};

export function readServeKnobs(env) {
  // NxD Inference's vLLM integration is chosen as its user guide says: VLLM_NEURON_FRAMEWORK.
  const nxdi = raw(env, 'VLLM_NEURON_FRAMEWORK') === 'neuronx-distributed-inference';
  const stack = choice(
    env,
    'SIM_SERVE_STACK',
    nxdi ? 'nxdi' : 'vllm-neuron',
    Object.keys(SERVE_STACKS),
  );
  const shape = SERVE_STACKS[stack];
  return {
    instanceType: readInstanceType(env),
    lnc: readLnc(env, readInstanceType(env)),
    stack,
    startup: shape.startup * number(env, 'SIM_SERVE_STARTUP', 2, { min: 0, max: 3600 }),
    ttftMs:
      shape.ttft *
      number(env, 'SIM_SERVE_TTFT_MS', 60, { min: 0, exclusiveMin: true, max: 600_000 }),
    itlMs:
      shape.itl * number(env, 'SIM_SERVE_ITL_MS', 12, { min: 0, exclusiveMin: true, max: 60_000 }),
    capacity: number(env, 'SIM_SERVE_CAPACITY', 10, { min: 0, exclusiveMin: true, max: 1e6 }),
    loadGrowth: number(env, 'SIM_SERVE_LOAD_GROWTH', 1, { min: 0, max: 100 }),
    speedup: number(env, 'SIM_SERVE_SPEEDUP', 1, { min: 0, exclusiveMin: true, max: 1000 }),
    prompts: integer(env, 'SIM_SERVE_PROMPTS', 0, { min: 0, max: 100_000 }),
    fail: readServeFailure(env),
    slowdown: number(env, 'SIM_SLOWDOWN', 1, { min: 0, exclusiveMin: true, max: 1000 }),
    slowOps: [...parseSlowOps(raw(env, 'SIM_SLOW_OPS')), ...compilerSlowOps(env)],
    noise: number(env, 'SIM_NOISE', 0.01, { min: 0, max: 1 }),
    seed: integer(env, 'SIM_SEED', 1, { min: -(2 ** 53 - 1), max: 2 ** 53 - 1 }),
    // Which run of the gate the client serves, so each run has its own noise.
    run: `${env.PERF_GATE_SIDE ? `${env.PERF_GATE_SIDE}:` : ''}${env.PERF_GATE_BENCHMARK ?? ''}:${env.PERF_GATE_RUN ?? ''}`,
  };
}

/** How the served model's answers differ from the reference build's (lib/token-model.mjs). */
export function readTokenKnobs(env) {
  return {
    flips: number(env, 'SIM_TOKEN_FLIPS', 0, { min: 0, max: 1 }),
    spread: number(env, 'SIM_LOGPROB_SPREAD', 0, { min: 0, max: 10 }),
    jitter: number(env, 'SIM_LOGPROB_JITTER', 0.001, { min: 0, max: 10 }),
    onDeviceSamplingOff: flag(env, 'NEURON_ON_DEVICE_SAMPLING_DISABLED'),
  };
}

/** The knobs of the simulated neuron-monitor (lib/monitor-report.mjs). */
export function readMonitorKnobs(env) {
  return {
    instanceType: readInstanceType(env),
    lnc: readLnc(env, readInstanceType(env)),
    memoryGrowth: number(env, 'SIM_DEVICE_MEMORY_GROWTH', 1, {
      min: 0,
      exclusiveMin: true,
      max: 100,
    }),
    utilization: number(env, 'SIM_NEURONCORE_UTILIZATION', 42, { min: 0, max: 100 }),
    seed: integer(env, 'SIM_SEED', 1, { min: -(2 ** 53 - 1), max: 2 ** 53 - 1 }),
    // The runtime's pid as reported (`own`, or 0 as some hosts report) and its tag (the
    // benchmark's NEURON_PROCESS_TAG, as the runtime takes it from its process).
    pidZero: choice(env, 'SIM_MONITOR_PID', 'own', ['own', '0']) === '0',
    tag: raw(env, 'NEURON_PROCESS_TAG') ?? 'simulated',
    otherRuntime: flag(env, 'SIM_MONITOR_OTHER_RUNTIME'),
    eccEvents: onlyInRun(env, integer(env, 'SIM_ECC_EVENTS', 0, { min: 0, max: 1_000_000 })),
    executionErrors: integer(env, 'SIM_EXECUTION_ERRORS', 0, { min: 0, max: 1_000_000 }),
  };
}
