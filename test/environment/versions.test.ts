import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  listPipPackages,
  normalizePackageName,
  parseNeuronLsVersion,
  probeSoftwareVersions,
  sdkVersionOfTools,
} from '../../src/environment/versions.js';
import {
  NODE_DIR,
  SIMULATOR_BIN,
  printLines,
  removeToolDirs,
  toolDir,
  writeTool,
} from './fake-tools.js';
import { tools } from '../support/tools.js';

afterEach(removeToolDirs);

function pipJson(packages: Record<string, string>): string {
  return JSON.stringify(Object.entries(packages).map(([name, version]) => ({ name, version })));
}

describe('probeSoftwareVersions on the simulated inf2 machine', () => {
  const simulated = (knobs: Record<string, string>) => ({
    PATH: `${SIMULATOR_BIN}:${NODE_DIR}`,
    ...knobs,
  });

  it('reads the compiler and vLLM versions from pip and the SDK line from neuron-ls', async () => {
    const knobs = {
      SIM_NEURONX_CC_VERSION: '2.22.4455.0+a1b2c3d4',
      SIM_VLLM_VERSION: '0.11.0',
      SIM_VLLM_NEURON_VERSION: '0.3.1',
      SIM_NEURON_TOOLS_VERSION: '2.27.12.0',
    };
    expect(await probeSoftwareVersions(tools(simulated(knobs)))).toEqual({
      neuronSdkVersion: '2.27',
      compilerVersion: knobs.SIM_NEURONX_CC_VERSION,
      vllmVersion: knobs.SIM_VLLM_VERSION,
      vllmNeuronVersion: knobs.SIM_VLLM_NEURON_VERSION,
    });
  });

  it('follows a change of a single package', async () => {
    const before = await probeSoftwareVersions(tools(simulated({})));
    const after = await probeSoftwareVersions(tools(simulated({ SIM_VLLM_VERSION: '0.99.1' })));
    expect(after.vllmVersion).toBe('0.99.1');
    expect(before.vllmVersion).not.toBe('0.99.1');
    expect({ ...after, vllmVersion: before.vllmVersion }).toEqual(before);
    // The defaults look like one Neuron SDK 2.26 install.
    expect(before.neuronSdkVersion).toBe('2.26');
    expect(before.compilerVersion).toMatch(/^2\.21\./);
  });

  it('leaves out a package that is not installed', async () => {
    const versions = await probeSoftwareVersions(
      tools(simulated({ SIM_VLLM_NEURON_VERSION: 'none' })),
    );
    expect(versions).not.toHaveProperty('vllmNeuronVersion');
    expect(versions.vllmVersion).toBeDefined();
  });
});

describe('the simulated pip', () => {
  function pip(args: string[], env: Record<string, string> = {}) {
    return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(
        join(SIMULATOR_BIN, 'pip'),
        args,
        { env: { PATH: NODE_DIR, ...env } },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          done({ code, stdout, stderr });
        },
      );
    });
  }

  it('prints one line of JSON, sorted by name, in any order of its options', async () => {
    const a = await pip(['list', '--format=json']);
    const b = await pip(['--disable-pip-version-check', 'list', '--format', 'json', '-q']);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(a.stdout.trim().split('\n')).toHaveLength(1);
    const names = (JSON.parse(a.stdout) as { name: string }[]).map((entry) => entry.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['neuronx-cc', 'vllm', 'vllm-neuron']));
  });

  it('refuses what it does not simulate and bad knob values, with exit 2', async () => {
    for (const [args, env, message] of [
      [['install', 'vllm'], {}, 'only `pip list --format=json` is simulated'],
      [['list'], {}, 'only --format=json is simulated'],
      [['list', '--format=json', '--user'], {}, 'option --user is not simulated'],
      [['list', '--format=json'], { SIM_VLLM_VERSION: 'latest' }, 'SIM_VLLM_VERSION'],
    ] as const) {
      const outcome = await pip([...args], env);
      expect(outcome.code, args.join(' ')).toBe(2);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toContain(message);
    }
  });
});

describe('probeSoftwareVersions with fake tools', () => {
  it('asks pip for JSON without its network version check, in the given environment', async () => {
    const bin = await toolDir();
    const log = join(bin, 'pip-args.log');
    await writeTool(
      bin,
      'pip',
      `printf '%s\\n' "$*" >> "$PIP_ARGS_LOG"\n${printLines(pipJson({ vllm: '0.10.2' }))}`,
    );
    const versions = await probeSoftwareVersions(tools({ PATH: bin, PIP_ARGS_LOG: log }));
    expect(versions).toEqual({ vllmVersion: '0.10.2' });
    expect((await readFile(log, 'utf8')).trim()).toBe(
      'list --format=json --disable-pip-version-check',
    );
  });

  it('matches package names the way pip does (PEP 503)', async () => {
    const bin = await toolDir();
    const listed = { Neuronx_CC: '2.21.33363.0', VLLM: '0.11.0', 'vllm.neuron': '0.2.1' };
    await writeTool(bin, 'pip', printLines(pipJson(listed)));
    expect(await probeSoftwareVersions(tools({ PATH: bin }))).toEqual({
      compilerVersion: '2.21.33363.0',
      vllmVersion: '0.11.0',
      vllmNeuronVersion: '0.2.1',
    });
  });

  it('falls back to python3 -m pip when pip fails', async () => {
    const bin = await toolDir();
    await writeTool(bin, 'pip', 'echo "pip: broken wrapper" >&2\nexit 1');
    await writeTool(
      bin,
      'python3',
      `[[ "$1 $2 $3" == "-m pip list" ]] || exit 9\n${printLines(pipJson({ vllm_neuron: '0.2.0' }))}`,
    );
    expect(await probeSoftwareVersions(tools({ PATH: bin }))).toEqual({
      vllmNeuronVersion: '0.2.0',
    });
  });

  it('falls back to python3 -m pip when pip prints something other than a package list', async () => {
    const bin = await toolDir();
    await writeTool(bin, 'pip', printLines('Package    Version\n---------- -------\nvllm 0.1'));
    await writeTool(bin, 'python3', printLines(pipJson({ vllm: '0.10.1' })));
    expect(await probeSoftwareVersions(tools({ PATH: bin }))).toEqual({ vllmVersion: '0.10.1' });
  });

  it('leaves every field out when neither pip nor neuron-ls is there', async () => {
    const empty = await toolDir();
    expect(await probeSoftwareVersions(tools({ PATH: empty }))).toEqual({});
    expect(await listPipPackages(tools({ PATH: empty }))).toBeUndefined();
  });

  it('gives up on a pip that hangs, after the timeout', async () => {
    const bin = await toolDir();
    // 300 s, beyond the test's timeout: a probe that waits it out fails the test, whatever
    // the host's load (no bound on the time taken).
    await writeTool(bin, 'pip', 'exec /bin/sleep 300');
    const versions = await probeSoftwareVersions(tools({ PATH: bin }, 300));
    expect(versions).toEqual({});
  });

  it('takes the runtime and an SDK line from neuron-ls --version when it prints them', async () => {
    const bin = await toolDir();
    await writeTool(
      bin,
      'neuron-ls',
      `[[ "$1" == "--version" ]] || exit 2\n${printLines(
        'neuron-ls 2.28.23.0\nNeuron driver 2.26.5.0\nNeuron runtime version: 2.30.51.0',
      )}`,
    );
    expect(await probeSoftwareVersions(tools({ PATH: bin }))).toEqual({
      neuronSdkVersion: '2.28',
      runtimeVersion: '2.30.51.0',
    });
  });

  it('ignores a neuron-ls that fails', async () => {
    const bin = await toolDir();
    await writeTool(bin, 'neuron-ls', 'echo "neuron-ls 2.26.14.0"\nexit 1');
    expect(await probeSoftwareVersions(tools({ PATH: bin }))).toEqual({});
  });
});

describe('version parsing', () => {
  it('normalizes package names per PEP 503', () => {
    for (const name of ['vllm-neuron', 'vllm_neuron', 'VLLM.Neuron', 'vllm__-neuron']) {
      expect(normalizePackageName(name)).toBe('vllm-neuron');
    }
    expect(normalizePackageName('neuronx-cc')).not.toBe(normalizePackageName('neuronx'));
  });

  it('derives the SDK release line from a 2.x tools version only', () => {
    expect(sdkVersionOfTools('2.26.14.0')).toBe('2.26');
    expect(sdkVersionOfTools('2.9.5.0')).toBe('2.9');
    expect(sdkVersionOfTools('1.0.5165.0')).toBeUndefined();
    expect(sdkVersionOfTools(undefined)).toBeUndefined();
    expect(sdkVersionOfTools('latest')).toBeUndefined();
  });

  it('reads an SDK version the tool states itself, and the first of each kind', () => {
    expect(
      parseNeuronLsVersion('Neuron SDK 2.26.1\naws-neuronx-tools 2.26.14.0\nruntime 2.28.23.0'),
    ).toEqual({ sdkVersion: '2.26.1', toolsVersion: '2.26.14.0', runtimeVersion: '2.28.23.0' });
    expect(parseNeuronLsVersion('no version here\n')).toEqual({});
  });
});
