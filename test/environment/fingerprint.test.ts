import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FINGERPRINT_FIELDS,
  describeDifference,
  describeUnknown,
  fingerprintDifferences,
  sameFingerprint,
  unknownFields,
  type FingerprintKey,
} from '../../src/environment/fingerprint.js';
import type { Environment } from '../../src/model.js';

const INF2_XLARGE: Environment = {
  instanceType: 'inf2.xlarge',
  neuronDevices: 1,
  neuronCores: 2,
  neuronSdkVersion: '2.26.0',
  compilerVersion: '2.21.18209.0',
  runtimeVersion: '2.28.23.0',
  vllmVersion: '0.10.2',
  vllmNeuronVersion: '0.2.0',
  configHash: '1a2b3c4d5e6f',
  runner: 'inf2-runner-1',
  commit: 'a'.repeat(40),
  ref: 'refs/heads/main',
};

const KEYS = FINGERPRINT_FIELDS.map((entry) => entry.field);

function without(environment: Environment, keys: readonly string[]): Environment {
  return Object.fromEntries(
    Object.entries(environment).filter(([key]) => !keys.includes(key)),
  ) as Environment;
}

describe('fingerprintDifferences', () => {
  it('finds nothing between an environment and itself', () => {
    expect(fingerprintDifferences(INF2_XLARGE, { ...INF2_XLARGE })).toEqual([]);
    expect(sameFingerprint(INF2_XLARGE, { ...INF2_XLARGE })).toBe(true);
  });

  it('names each changed field with both values, in the fixed order', () => {
    const current = {
      ...INF2_XLARGE,
      vllmVersion: '0.11.0',
      instanceType: 'inf2.8xlarge',
      neuronSdkVersion: '2.27.0',
    };
    expect(fingerprintDifferences(INF2_XLARGE, current)).toEqual([
      {
        field: 'instanceType',
        label: 'instance type',
        baseline: 'inf2.xlarge',
        current: 'inf2.8xlarge',
      },
      { field: 'neuronSdkVersion', label: 'Neuron SDK', baseline: '2.26.0', current: '2.27.0' },
      { field: 'vllmVersion', label: 'vLLM', baseline: '0.10.2', current: '0.11.0' },
    ]);
    expect(sameFingerprint(INF2_XLARGE, current)).toBe(false);
  });

  it('ignores what is not part of the fingerprint: runner, commit, ref, device count', () => {
    const elsewhere = {
      ...INF2_XLARGE,
      runner: 'other',
      commit: 'b'.repeat(40),
      ref: 'refs/pull/7/merge',
      neuronDevices: 6,
    };
    expect(sameFingerprint(INF2_XLARGE, elsewhere)).toBe(true);
  });

  it('does not count a field missing on either side as a difference', () => {
    const older = without(INF2_XLARGE, ['vllmVersion', 'runtimeVersion']);
    const current = { ...INF2_XLARGE, vllmVersion: '0.11.0', runtimeVersion: '2.29.0.0' };
    expect(fingerprintDifferences(older, current)).toEqual([]);
    expect(fingerprintDifferences(current, older)).toEqual([]);
    expect(sameFingerprint({}, current)).toBe(true);
  });

  it('compares NeuronCores by value, whether stored as a number or text', () => {
    const asText = { ...INF2_XLARGE, neuronCores: '2' } as unknown as Environment;
    expect(sameFingerprint(INF2_XLARGE, asText)).toBe(true);
    expect(fingerprintDifferences(INF2_XLARGE, { ...INF2_XLARGE, neuronCores: 24 })).toEqual([
      { field: 'neuronCores', label: 'NeuronCores', baseline: '2', current: '24' },
    ]);
  });

  it('counts an LNC known on one side only as a difference on trn2, not on inf2', () => {
    const trn2 = { instanceType: 'trn2.48xlarge', neuronCores: 64 };
    const before = fingerprintDifferences(trn2, { ...trn2, logicalNcConfig: 2 });
    expect(before).toEqual([
      {
        field: 'logicalNcConfig',
        label: 'LNC (physical cores per logical NeuronCore)',
        current: '2',
      },
    ]);
    expect(before.map(describeDifference)).toEqual([
      'LNC (physical cores per logical NeuronCore) unknown → 2',
    ]);
    expect(unknownFields(trn2, { ...trn2, logicalNcConfig: 2 })).toEqual([]);
    const inf2 = { instanceType: 'inf2.xlarge' };
    expect(fingerprintDifferences(inf2, { ...inf2, logicalNcConfig: 1 })).toEqual([]);
  });

  it('holds for any environments: reflexive, symmetric, and blind to missing fields', () => {
    const value = fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined });
    const environment = fc.record(
      Object.fromEntries(KEYS.map((key) => [key, value])) as Record<FingerprintKey, typeof value>,
    ) as fc.Arbitrary<Environment>;
    fc.assert(
      fc.property(environment, environment, fc.subarray(KEYS), (a, b, dropped) => {
        expect(sameFingerprint(a, a)).toBe(true);
        const forward = fingerprintDifferences(a, b);
        const backward = fingerprintDifferences(b, a);
        expect(backward.map((d) => [d.field, d.current, d.baseline])).toEqual(
          forward.map((d) => [d.field, d.baseline, d.current]),
        );
        // Forgetting fields can only remove differences, never add one.
        const fewer = fingerprintDifferences(without(a, dropped), b).map((d) => d.field);
        expect(fewer).toEqual(forward.map((d) => d.field).filter((f) => !dropped.includes(f)));
        // Every fingerprint field is either equal, different, or unknown on one side.
        const unknown = unknownFields(a, b).map((u) => u.field);
        for (const key of KEYS) {
          const compared = a[key] !== undefined && b[key] !== undefined;
          expect(unknown.includes(key)).toBe((a[key] === undefined) !== (b[key] === undefined));
          expect(forward.some((d) => d.field === key)).toBe(compared && a[key] !== b[key]);
        }
      }),
    );
  });
});

describe('describeDifference', () => {
  const describeChange = (change: Environment): string[] =>
    fingerprintDifferences(INF2_XLARGE, { ...INF2_XLARGE, ...change }).map(describeDifference);

  it('reads "label before → after" for versions and values', () => {
    expect(describeChange({ neuronSdkVersion: '2.27.0' })).toEqual(['Neuron SDK 2.26.0 → 2.27.0']);
    expect(describeChange({ instanceType: 'inf2.8xlarge' })).toEqual([
      'instance type inf2.xlarge → inf2.8xlarge',
    ]);
    expect(
      describeChange({
        neuronCores: 24,
        compilerVersion: '2.22.1.0',
        runtimeVersion: '2.29.1.0',
        vllmNeuronVersion: '0.3.0',
      }),
    ).toEqual([
      'NeuronCores 2 → 24',
      'neuronx-cc 2.21.18209.0 → 2.22.1.0',
      'Neuron runtime 2.28.23.0 → 2.29.1.0',
      'vllm-neuron 0.2.0 → 0.3.0',
    ]);
  });

  it('shortens config hashes to 7 digits, unless that would hide the change', () => {
    expect(describeChange({ configHash: '9f8e7d6c5b4a' })).toEqual([
      'benchmark config changed (hash 1a2b3c4 → 9f8e7d6)',
    ]);
    expect(describeChange({ configHash: '1a2b3c4d5e00' })).toEqual([
      'benchmark config changed (hash 1a2b3c4d5e6f → 1a2b3c4d5e00)',
    ]);
  });

  it('says "unknown" for a missing side when given one', () => {
    expect(describeDifference({ field: 'vllmVersion', label: 'vLLM', current: '0.11.0' })).toBe(
      'vLLM unknown → 0.11.0',
    );
  });
});

describe('unknownFields', () => {
  it('lists fields known on one side only, saying which side lacks them', () => {
    const older = without(INF2_XLARGE, ['vllmVersion', 'configHash']);
    const current = without(INF2_XLARGE, ['instanceType', 'vllmNeuronVersion']);
    const unknown = unknownFields(older, current);
    expect(unknown).toEqual([
      { field: 'instanceType', label: 'instance type', missingIn: 'current' },
      { field: 'vllmVersion', label: 'vLLM', missingIn: 'baseline' },
      { field: 'vllmNeuronVersion', label: 'vllm-neuron', missingIn: 'current' },
      { field: 'configHash', label: 'benchmark config', missingIn: 'baseline' },
    ]);
    expect(unknown.map(describeUnknown)).toEqual([
      'instance type unknown in this run',
      'vLLM version unknown in the baseline',
      'vllm-neuron version unknown in this run',
      'benchmark config hash unknown in the baseline',
    ]);
  });

  it('leaves out fields neither side knows', () => {
    const bare = without(INF2_XLARGE, ['runtimeVersion']);
    expect(unknownFields(bare, bare)).toEqual([]);
  });
});
