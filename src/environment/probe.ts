import { readFile } from 'node:fs/promises';
import type { Environment } from '../model.js';
import { findNeuronTool } from '../runner/detect-neuron.js';
import { readLogicalNcConfig } from './lnc.js';
import { parseNeuronLs } from './neuron-ls.js';
import { PROBED_FIELDS, runProbeCommand, type ProbedFields } from './probe-command.js';
import { PROBE_TIMEOUT_MS, toolOutput, type ToolContext } from './tool-output.js';
import type { ProcessRunner } from '../runner/types.js';
import { probeSoftwareVersions } from './versions.js';

type Env = Readonly<Record<string, string | undefined>>;

/** On EC2 Nitro instances the DMI product name is the instance type, read without network. */
const DMI_PRODUCT_NAME = '/sys/devices/virtual/dmi/id/product_name';

export interface ProbeOptions {
  /** Runs the probes, contained like the benchmark (they are found through its PATH). */
  runner: ProcessRunner;
  /**
   * A shell command printing fingerprint fields (JSON object or key=value lines). Its
   * values win over the default probes (DMI, neuron-ls, pip).
   */
  probeCommand?: string;
  /** Per probe; 30 s by default. */
  timeoutMs?: number;
  /** Where the probes run (bisect: the commit's worktree); ours by default. */
  cwd?: string;
}

export interface ProbedEnvironment {
  environment: Environment;
  /**
   * Problems of the configured probe command, and processes any probe left running; the
   * default probes are otherwise silent.
   */
  warnings: string[];
}

/**
 * Where this run happens: instance type, Neuron devices and cores (and LNC), Neuron SDK, compiler,
 * runtime and vLLM versions, runner and commit. A default probe that finds nothing
 * leaves its field out rather than failing. Use probeEnvironmentWithWarnings to learn
 * why a configured probe command was not used.
 */
export async function probeEnvironment(env: Env, options: ProbeOptions): Promise<Environment> {
  return (await probeEnvironmentWithWarnings(env, options)).environment;
}

/** probeEnvironment, with what went wrong with the configured probe command. */
export async function probeEnvironmentWithWarnings(
  env: Env,
  options: ProbeOptions,
): Promise<ProbedEnvironment> {
  const { probeCommand, timeoutMs, cwd, runner } = options;
  const tools: ToolContext = {
    runner,
    env,
    timeoutMs: timeoutMs ?? PROBE_TIMEOUT_MS,
    ...(cwd !== undefined ? { cwd } : {}),
    warnings: [],
  };
  const [instanceType, devices, versions, configured] = await Promise.all([
    readInstanceType(env),
    readNeuronDevices(tools),
    probeSoftwareVersions(tools),
    probeCommand === undefined || probeCommand.trim() === ''
      ? undefined
      : runProbeCommand(probeCommand, env, { runner, timeoutMs, cwd }),
  ]);
  const instance = instanceType ?? devices?.instanceType;
  const logicalNcConfig = await readLogicalNcConfig(env, devices?.logicalNcConfig, instance);
  const probed: ProbedFields = {
    ...(instance ? { instanceType: instance } : {}),
    ...(devices ? { neuronDevices: devices.devices, neuronCores: devices.cores } : {}),
    ...(logicalNcConfig !== undefined ? { logicalNcConfig } : {}),
    ...versions,
    ...configured?.values,
  };
  return {
    environment: { ...inFingerprintOrder(probed), ...runInfo(env) },
    warnings: [...(configured?.warnings ?? []), ...tools.warnings],
  };
}

async function readInstanceType(env: Env): Promise<string | undefined> {
  if (env.PERF_GATE_INSTANCE_TYPE) return env.PERF_GATE_INSTANCE_TYPE;
  try {
    const name = (await readFile(DMI_PRODUCT_NAME, 'utf8')).trim();
    return /^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * neuron-ls's JSON: `--output-format json` from SDK 2.34 (which drops `--json-output`), else
 * `--json-output` (SDKs before it refuse the new option).
 */
async function readNeuronDevices(tools: ToolContext) {
  const neuronLs = await findNeuronTool('neuron-ls', tools.env);
  if (!neuronLs) return undefined;
  for (const args of [['--output-format', 'json'], ['--json-output']]) {
    const stdout = await toolOutput(tools, neuronLs, args);
    const devices = stdout === undefined ? undefined : parseNeuronLs(stdout);
    if (devices !== undefined) return devices;
  }
  return undefined;
}

/** One field order whichever probe found what, so stored records read alike. */
function inFingerprintOrder(probed: ProbedFields): Environment {
  const environment: Environment = {};
  for (const key of PROBED_FIELDS) {
    if (probed[key] !== undefined) (environment as Record<string, unknown>)[key] = probed[key];
  }
  return environment;
}

function runInfo(env: Env): Environment {
  return {
    ...(env.RUNNER_NAME ? { runner: env.RUNNER_NAME } : {}),
    ...(env.GITHUB_SHA ? { commit: env.GITHUB_SHA } : {}),
    ...(env.GITHUB_REF ? { ref: env.GITHUB_REF } : {}),
  };
}
