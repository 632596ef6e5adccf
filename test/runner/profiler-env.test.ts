import { describe, expect, it } from 'vitest';
import { PROFILER_VARIABLES, cleanRunEnv, profiledRunEnv } from '../../src/runner/profiler-env.js';

const inherited = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/runner',
  UNSET: undefined,
  NEURON_RT_INSPECT_ENABLE: '1',
  NEURON_RT_INSPECT_OUTPUT_DIR: '/stale/profile',
  NEURON_RT_INSPECT_ON_FAIL: '1',
  NEURON_RT_VISIBLE_CORES: '0-1',
};

describe('cleanRunEnv', () => {
  it('removes every inherited NEURON_RT_INSPECT_* variable and unset entries', () => {
    expect(cleanRunEnv(inherited)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/runner',
      NEURON_RT_VISIBLE_CORES: '0-1',
    });
  });

  it('leaves its input alone', () => {
    const base = { ...inherited };
    cleanRunEnv(base);
    expect(base).toEqual(inherited);
  });
});

describe('profiledRunEnv', () => {
  it('sets the four profiler variables and drops other inherited ones', () => {
    const env = profiledRunEnv(inherited, '/out/profiles/bench');
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/runner',
      NEURON_RT_VISIBLE_CORES: '0-1',
      NEURON_RT_INSPECT_ENABLE: '1',
      NEURON_RT_INSPECT_SYSTEM_PROFILE: '1',
      NEURON_RT_INSPECT_DEVICE_PROFILE: 'model',
      NEURON_RT_INSPECT_OUTPUT_DIR: '/out/profiles/bench',
    });
    expect(
      Object.keys(env)
        .filter((name) => name.startsWith('NEURON_RT_INSPECT_'))
        .sort(),
    ).toEqual([...PROFILER_VARIABLES].sort());
  });

  it("adds the benchmark's own tuning variables; the gate's own settings win", () => {
    const own = {
      NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '5',
      NEURON_RT_INSPECT_SYSTEM_PROFILE: '0',
      NEURON_RT_INSPECT_OUTPUT_DIR: '/elsewhere',
      NEURON_RT_INSPECT_ENABLE: '0',
      MAX_NUM_SEQS: '4',
    };
    const env = profiledRunEnv({ PATH: '/bin' }, '/out/profiles/bench', 'session', own);
    expect(env).toEqual({
      PATH: '/bin',
      NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '5',
      NEURON_RT_INSPECT_SYSTEM_PROFILE: '0',
      NEURON_RT_INSPECT_ENABLE: '1',
      NEURON_RT_INSPECT_DEVICE_PROFILE: 'session',
      NEURON_RT_INSPECT_OUTPUT_DIR: '/out/profiles/bench',
    });
  });

  it('takes the device profile mode', () => {
    expect(profiledRunEnv({}, '/p', 'session').NEURON_RT_INSPECT_DEVICE_PROFILE).toBe('session');
  });
});
