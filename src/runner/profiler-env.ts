// The Neuron profiler is switched on through the environment of the benchmark process.
//
// The runtime reads NEURON_RT_INSPECT_* once, when it starts inside the benchmark
// process. Setting them from Python after `import vllm` is too late: the runtime is
// already up and the profile comes out almost empty, without any error. So the gate
// sets them here, in the environment the process is spawned with, and nowhere else.

import { isProfilerVariable, profilerTuning } from '../config/profiler-variables.js';
import type { ProfileMode } from '../model.js';

export { isProfilerVariable, PROFILER_PREFIX } from '../config/profiler-variables.js';

/** The variables the gate sets for the profiled run. */
export const PROFILER_VARIABLES = [
  'NEURON_RT_INSPECT_ENABLE',
  'NEURON_RT_INSPECT_SYSTEM_PROFILE',
  'NEURON_RT_INSPECT_DEVICE_PROFILE',
  'NEURON_RT_INSPECT_OUTPUT_DIR',
] as const;

export type EnvInput = Readonly<Record<string, string | undefined>>;

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
 * The environment of the profiled run: `base` without any inherited NEURON_RT_INSPECT_*
 * variable, then the profiler variables of the benchmark's own `env` that the gate does
 * not own (a warm-up count, capture filters; it may turn the system profile off), then the
 * gate's settings, which always win. Device profiling (`mode`) is what MFU needs.
 */
export function profiledRunEnv(
  base: EnvInput,
  outputDir: string,
  mode: ProfileMode = 'model',
  own: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    ...cleanRunEnv(base),
    NEURON_RT_INSPECT_SYSTEM_PROFILE: '1',
    ...profilerTuning(own),
    NEURON_RT_INSPECT_ENABLE: '1',
    NEURON_RT_INSPECT_DEVICE_PROFILE: mode,
    NEURON_RT_INSPECT_OUTPUT_DIR: outputDir,
  };
}
