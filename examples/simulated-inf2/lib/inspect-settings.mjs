// The Neuron runtime's profiler variables, read the way the runtime reads them: once, from
// the environment the process was started with.

/** How much slower the measured loop gets while the profiler records (it is not free). */
const SYSTEM_PROFILE_OVERHEAD = 1.02;
const DEVICE_PROFILE_OVERHEAD = { off: 1, model: 1.03, session: 1.1 };

/**
 * undefined when NEURON_RT_INSPECT_ENABLE is not 1; otherwise where and what to record.
 * `warnings` lists values the runtime would ignore, for the log.
 */
export function readInspectSettings(env, knobs) {
  if ((env.NEURON_RT_INSPECT_ENABLE ?? '').trim() !== '1') return undefined;
  const warnings = [];
  const rawDevice = (env.NEURON_RT_INSPECT_DEVICE_PROFILE ?? '').trim().toLowerCase();
  let deviceProfile = 'off';
  if (rawDevice === '1' || rawDevice === 'model') deviceProfile = 'model';
  else if (rawDevice === 'session') deviceProfile = 'session';
  else if (rawDevice !== '' && rawDevice !== '0') {
    warnings.push(
      `NEURON_RT_INSPECT_DEVICE_PROFILE="${rawDevice}" is not one of 0, 1, model, session; ` +
        'device profiling stays off',
    );
  }
  const systemProfile = (env.NEURON_RT_INSPECT_SYSTEM_PROFILE ?? '1').trim() !== '0';
  const outputDir = env.NEURON_RT_INSPECT_OUTPUT_DIR?.trim() || './output';
  const layout = knobs.profileLayout ?? (deviceProfile === 'session' ? 'B' : 'A');
  const overhead =
    (systemProfile ? SYSTEM_PROFILE_OVERHEAD : 1) * DEVICE_PROFILE_OVERHEAD[deviceProfile];
  return { outputDir, systemProfile, deviceProfile, layout, overhead, warnings };
}
