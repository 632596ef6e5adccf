// The Neuron runtime's profiler variables (NEURON_RT_INSPECT_*), named as the Neuron
// Explorer environment-variables page names them:
// https://awsdocs-neuron.readthedocs-hosted.com/en/v2.33.0/tools/neuron-explorer/environment-variables.html
// The gate owns the ones that decide whether the profile is taken, of what and where it
// goes; a benchmark's `env:` may set the others (warm-up, capture filters, trace sizes),
// which reach its profiled run only.

import { editDistance } from './did-you-mean.js';

export const PROFILER_PREFIX = 'NEURON_RT_INSPECT_';

/**
 * Executions of each model the device profile skips before it records one ("to profile
 * steady-state behavior"); the docs support it in model mode only.
 */
export const WARMUP_VARIABLE = 'NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP';

/** What the gate does with each variable it owns, and what to set instead. */
const GATE_OWNED: Readonly<Record<string, string>> = {
  NEURON_RT_INSPECT_ENABLE:
    'the gate turns the profiler on for the profiled run only; use profile (auto, on-change, true or false) to choose whether there is one',
  NEURON_RT_INSPECT_DEVICE_PROFILE:
    'the gate sets the device profile mode of the profiled run; use profile-mode (auto, model or session) to choose it',
  NEURON_RT_INSPECT_OUTPUT_DIR:
    'the gate writes the profile to <out-dir>/profiles/<benchmark>/, reads and uploads it from there; use out-dir to move it',
};

/**
 * The variables the Neuron docs name (the page above), the gate's own among them: a name a
 * couple of letters from one of them is a typo the runtime would ignore without a word.
 */
const DOCUMENTED = [
  ...Object.keys(GATE_OWNED),
  'NEURON_RT_INSPECT_SYSTEM_PROFILE',
  WARMUP_VARIABLE,
  'NEURON_RT_INSPECT_EVENT_FILTER_NC',
  'NEURON_RT_INSPECT_EVENT_FILTER_TYPE',
  'NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC',
];

/** The documented variable `name` most likely meant, when it is not one itself. */
export function misspeltProfilerVariable(name: string): string | undefined {
  if (DOCUMENTED.includes(name)) return undefined;
  const upper = name.toUpperCase();
  let best: { name: string; distance: number } | undefined;
  for (const documented of DOCUMENTED) {
    const distance = editDistance(upper, documented);
    if (distance <= 2 && (best === undefined || distance < best.distance)) {
      best = { name: documented, distance };
    }
  }
  return best?.name;
}

export function isProfilerVariable(name: string): boolean {
  return name.startsWith(PROFILER_PREFIX);
}

/** Why a benchmark's `env:` may not set `name`, or undefined when it may. */
export function gateOwnedReason(name: string): string | undefined {
  return Object.hasOwn(GATE_OWNED, name) ? GATE_OWNED[name] : undefined;
}

/** The profiler variables of `env` the benchmark may set itself: the profiled run gets them. */
export function profilerTuning(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => isProfilerVariable(name) && gateOwnedReason(name) === undefined,
    ),
  );
}

/** A warm-up count as the runtime reads it: a whole number, 0 or more. */
export function isWarmupCount(value: string): boolean {
  return /^\d+$/.test(value.trim());
}
