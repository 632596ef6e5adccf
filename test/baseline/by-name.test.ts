import { describe, expect, it } from 'vitest';
import { chooseByName } from '../../src/baseline/by-name.js';
import type { Baseline } from '../../src/baseline/types.js';
import type { BenchmarkResult, Environment } from '../../src/model.js';
import { sampleResult } from './git/support.js';

function withEnvironment(environment: Environment | undefined): BenchmarkResult {
  const result = sampleResult('bench', 1);
  delete result.environment;
  return environment ? { ...result, environment } : result;
}

const HERE: Environment = { instanceType: 'inf2.xlarge', neuronSdkVersion: '2.26.0' };

function storedWith(environment: Environment | undefined): Baseline {
  return { source: 'baseline.json', benchmarks: [withEnvironment(environment)] };
}

describe('chooseByName', () => {
  it('takes the stored result of the same name measured on the same environment', () => {
    const choice = chooseByName(storedWith(HERE), withEnvironment(HERE), 'strict');
    expect(choice.result?.name).toBe('bench');
    expect(choice.info).toEqual({ source: 'baseline.json' });
    const other = { ...withEnvironment(HERE), name: 'other' };
    expect(chooseByName(storedWith(HERE), other, 'strict').result).toBeUndefined();
  });

  it('gives no baseline on another environment with strict, and compares with loose', () => {
    const current = withEnvironment({ ...HERE, instanceType: 'inf2.8xlarge' });
    const strict = chooseByName(storedWith(HERE), current, 'strict');
    expect(strict.result).toBeUndefined();
    expect(strict.info.environmentNotes).toEqual(['instance type inf2.xlarge → inf2.8xlarge']);
    const loose = chooseByName(storedWith(HERE), current, 'loose');
    expect(loose.result?.name).toBe('bench');
    expect(loose.info.environmentNotes).toEqual(['instance type inf2.xlarge → inf2.8xlarge']);
  });

  it('notes fields one side does not know, but not for a file that records no environment', () => {
    const current = withEnvironment({ ...HERE, vllmVersion: '0.10.2' });
    expect(chooseByName(storedWith(HERE), current, 'strict').info.environmentNotes).toEqual([
      'vLLM version unknown in the baseline (not compared)',
    ]);
    const plain = chooseByName(storedWith(undefined), current, 'strict');
    expect(plain.result?.name).toBe('bench');
    expect(plain.info.environmentNotes).toBeUndefined();
  });
});
