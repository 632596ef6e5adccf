import { readFile } from 'node:fs/promises';
import { execa } from 'execa';
import type { Environment } from '../model.js';
import { findNeuronTool } from '../runner/detect-neuron.js';
import { parseNeuronLs } from './neuron-ls.js';

type Env = Record<string, string | undefined>;

/** On EC2 Nitro instances the DMI product name is the instance type, read without network. */
const DMI_PRODUCT_NAME = '/sys/devices/virtual/dmi/id/product_name';

/**
 * Where this run happens: instance type, Neuron devices and cores, runner and commit.
 * Every probe is optional: a missing tool leaves its field out rather than failing.
 */
export async function probeEnvironment(env: Env): Promise<Environment> {
  const [instanceType, devices] = await Promise.all([
    readInstanceType(env),
    readNeuronDevices(env),
  ]);
  const environment: Environment = {};
  if (instanceType) environment.instanceType = instanceType;
  if (devices) {
    environment.neuronDevices = devices.devices;
    environment.neuronCores = devices.cores;
  }
  if (env.RUNNER_NAME) environment.runner = env.RUNNER_NAME;
  if (env.GITHUB_SHA) environment.commit = env.GITHUB_SHA;
  if (env.GITHUB_REF) environment.ref = env.GITHUB_REF;
  return environment;
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

async function readNeuronDevices(env: Env) {
  const neuronLs = await findNeuronTool('neuron-ls', env);
  if (!neuronLs) return undefined;
  try {
    const { stdout } = await execa(neuronLs, ['--json-output'], {
      env: env as Record<string, string>,
      extendEnv: false,
      timeout: 30_000,
      stdin: 'ignore',
    });
    return parseNeuronLs(stdout);
  } catch {
    return undefined;
  }
}
