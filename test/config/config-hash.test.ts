import { describe, expect, it } from 'vitest';

import { configHash } from '../../src/config/config-hash.js';
import type { HashedSettings } from '../../src/config/config-hash.js';

const base: HashedSettings = {
  command: 'python offline_benchmark.py --output-file "$PERF_GATE_OUTPUT"',
  format: 'offline-benchmark',
  runs: 3,
  env: { MAX_NUM_SEQS: '4', TP: '2' },
  workingDirectory: '/work/repo/bench',
};

describe('configHash', () => {
  it('is the first 12 hex digits of a sha256, pinned', () => {
    // Pinned (the sha256 of the canonical JSON, computed independently): baselines store
    // this value, so changing the recipe would orphan them.
    expect(configHash(base, '/work/repo')).toBe('98972bc27a0e');
  });

  it('does not depend on where the workspace is checked out', () => {
    const elsewhere = { ...base, workingDirectory: '/home/runner/_work/repo/bench' };
    expect(configHash(elsewhere, '/home/runner/_work/repo')).toBe(configHash(base, '/work/repo'));
  });

  it('does not depend on the order of env variables', () => {
    const reordered = { ...base, env: { TP: '2', MAX_NUM_SEQS: '4' } };
    expect(configHash(reordered, '/work/repo')).toBe(configHash(base, '/work/repo'));
  });

  it('leaves out the profiler variables, which reach the profiled run only', () => {
    const tuned = {
      ...base,
      env: { ...base.env, NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP: '5' },
    };
    expect(configHash(tuned, '/work/repo')).toBe(configHash(base, '/work/repo'));
  });

  it.each<[string, Partial<HashedSettings>]>([
    ['command', { command: 'python other.py' }],
    ['format', { format: 'auto' }],
    ['runs', { runs: 5 }],
    ['env value', { env: { MAX_NUM_SEQS: '8', TP: '2' } }],
    ['env name', { env: { MAX_NUM_SEQS: '4' } }],
    ['working directory', { workingDirectory: '/work/repo' }],
  ])('changes with the %s', (_field, change) => {
    expect(configHash({ ...base, ...change }, '/work/repo')).not.toBe(
      configHash(base, '/work/repo'),
    );
  });
});
