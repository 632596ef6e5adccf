import { describe, expect, it } from 'vitest';
import { gateKey } from '../../src/action/gate-key.js';

const parts = { workflow: 'Performance PR', job: 'perf', configSource: '.github/perf-gate.yml' };

describe('gateKey', () => {
  it('is readable and the same for the same workflow, job, config and matrix', () => {
    const key = gateKey(parts);
    expect(key).toMatch(/^performance-pr-perf-[0-9a-f]{8}$/);
    expect(gateKey({ ...parts })).toBe(key);
  });

  it('differs per matrix combination and per config, so each keeps its own comment and history', () => {
    const small = gateKey({ ...parts, matrix: '{"runner":"inf2-xlarge"}' });
    const large = gateKey({ ...parts, matrix: '{"runner":"inf2-8xlarge"}' });
    expect(small).not.toBe(large);
    expect(small).not.toBe(gateKey(parts));
    expect(gateKey({ ...parts, configSource: '.github/other.yml' })).not.toBe(gateKey(parts));
  });

  it('takes an explicit key as it is', () => {
    expect(gateKey({ ...parts, explicit: 'inf2-perf' })).toBe('inf2-perf');
  });
});
