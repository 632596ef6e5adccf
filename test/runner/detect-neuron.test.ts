import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findNeuronTool, shouldProfile } from '../../src/runner/detect-neuron.js';

let root: string;
let binA: string;
let binB: string;
let sdkBin: string;

async function tool(dir: string, name: string, mode = 0o755): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, '#!/bin/sh\necho simulated\n');
  await chmod(path, mode);
  return path;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'detect-neuron-'));
  binA = join(root, 'a');
  binB = join(root, 'b');
  sdkBin = join(root, 'opt-aws-neuron-bin');
  await Promise.all([binA, binB, sdkBin].map((dir) => mkdir(dir)));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('findNeuronTool', () => {
  it('finds an executable on PATH, first entry first', async () => {
    await tool(binA, 'neuron-ls');
    const second = await tool(binB, 'neuron-explorer');
    await tool(binA, 'neuron-explorer', 0o644); // not executable: skipped
    const env = { PATH: `${binA}:${binB}` };
    expect(await findNeuronTool('neuron-ls', env, [sdkBin])).toBe(join(binA, 'neuron-ls'));
    expect(await findNeuronTool('neuron-explorer', env, [sdkBin])).toBe(second);
  });

  it('falls back to the SDK folder when PATH does not have it', async () => {
    const path = await tool(sdkBin, 'neuron-profile');
    expect(await findNeuronTool('neuron-profile', { PATH: binA }, [sdkBin])).toBe(path);
    expect(await findNeuronTool('neuron-profile', {}, [sdkBin])).toBe(path);
  });

  it('ignores folders with the tool name and returns undefined when nothing is found', async () => {
    await mkdir(join(binA, 'neuron-ls'));
    expect(await findNeuronTool('neuron-ls', { PATH: binA }, [sdkBin])).toBeUndefined();
  });
});

describe('shouldProfile', () => {
  it('takes true and false as given, without looking', async () => {
    expect(await shouldProfile('true', {}, [sdkBin])).toEqual({
      profile: true,
      reason: 'profile is set to true',
    });
    await tool(binA, 'neuron-ls');
    const decision = await shouldProfile('false', { PATH: binA }, [sdkBin]);
    expect(decision.profile).toBe(false);
  });

  it('auto: profiles when a Neuron tool is found and names it', async () => {
    const path = await tool(sdkBin, 'neuron-explorer');
    const decision = await shouldProfile('auto', { PATH: binA }, [sdkBin]);
    expect(decision.profile).toBe(true);
    expect(decision.reason).toContain(`neuron-explorer was found at ${path}`);
  });

  it('auto: does not profile when no tool is found and says where it looked', async () => {
    const decision = await shouldProfile('auto', { PATH: binA }, [sdkBin]);
    expect(decision.profile).toBe(false);
    expect(decision.reason).toContain('none of neuron-ls, neuron-explorer, neuron-profile');
    expect(decision.reason).toContain(sdkBin);
  });
  it('on-change: profiles up front a run that may store the baseline', async () => {
    await tool(binA, 'neuron-ls');
    const decision = await shouldProfile('on-change', { PATH: binA }, [sdkBin], true);
    expect(decision.profile).toBe(true);
    expect(decision.onlyWhenMoved).toBeUndefined();
    expect(decision.reason).toContain('this run may store the baseline, so it is profiled');
  });

  it('on-change: leaves the profile of any other run until a gated metric moves', async () => {
    await tool(binA, 'neuron-ls');
    const decision = await shouldProfile('on-change', { PATH: binA }, [sdkBin], false);
    expect(decision).toMatchObject({ profile: true, onlyWhenMoved: true });
    expect(decision.reason).toContain('profiled only if a gated metric ends beyond its threshold');
  });

  it('on-change: does not profile without the Neuron tools, like auto', async () => {
    const decision = await shouldProfile('on-change', { PATH: binA }, [sdkBin], false);
    expect(decision.profile).toBe(false);
    expect(decision.reason).toContain('profile is on-change and none of neuron-ls');
  });

  it('auto, true and false ignore whether the run stores the baseline', async () => {
    await tool(binA, 'neuron-ls');
    for (const setting of ['auto', 'true', 'false'] as const) {
      const storing = await shouldProfile(setting, { PATH: binA }, [sdkBin], true);
      expect(await shouldProfile(setting, { PATH: binA }, [sdkBin], false)).toEqual(storing);
      expect(storing.onlyWhenMoved).toBeUndefined();
    }
  });
});
