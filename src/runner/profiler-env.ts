// The Neuron profiler is switched on through the environment of the benchmark process.
//
// The runtime reads NEURON_RT_INSPECT_* once, when it starts inside the benchmark
// process. Setting them from Python after `import vllm` is too late: the runtime is
// already up and the profile comes out almost empty, without any error. So the gate
// sets them here, in the environment the process is spawned with, and nowhere else.

export const PROFILER_PREFIX = 'NEURON_RT_INSPECT_';

/** The variables the gate sets for the profiled run. */
export const PROFILER_VARIABLES = [
  'NEURON_RT_INSPECT_ENABLE',
  'NEURON_RT_INSPECT_SYSTEM_PROFILE',
  'NEURON_RT_INSPECT_DEVICE_PROFILE',
  'NEURON_RT_INSPECT_OUTPUT_DIR',
] as const;

/**
 * NEURON_RT_INSPECT_DEVICE_PROFILE: `model` (or `1`) profiles the first execution of each
 * graph, `session` records everything into one NTFF (what AWS suggests for vLLM serving).
 * Device profiling is what MFU needs.
 */
export type DeviceProfileMode = 'model' | 'session' | '1' | (string & {});

export const DEFAULT_DEVICE_PROFILE_MODE = 'model';

export type EnvInput = Readonly<Record<string, string | undefined>>;

export function isProfilerVariable(name: string): boolean {
  return name.startsWith(PROFILER_PREFIX);
}

/**
 * The environment of a clean (unprofiled) run: `base` without unset entries and without
 * any NEURON_RT_INSPECT_* variable, so an inherited setting cannot profile, and slow
 * down, a measured run.
 */
export function cleanRunEnv(base: EnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !isProfilerVariable(name)) env[name] = value;
  }
  return env;
}

/**
 * The environment of the profiled run: `base` with the gate's profiler settings in place
 * of any inherited NEURON_RT_INSPECT_* variable.
 */
export function profiledRunEnv(
  base: EnvInput,
  outputDir: string,
  mode: DeviceProfileMode = DEFAULT_DEVICE_PROFILE_MODE,
): Record<string, string> {
  return {
    ...cleanRunEnv(base),
    NEURON_RT_INSPECT_ENABLE: '1',
    NEURON_RT_INSPECT_SYSTEM_PROFILE: '1',
    NEURON_RT_INSPECT_DEVICE_PROFILE: mode,
    NEURON_RT_INSPECT_OUTPUT_DIR: outputDir,
  };
}
