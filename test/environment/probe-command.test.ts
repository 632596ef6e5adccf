import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseProbeOutput, runProbeCommand } from '../../src/environment/probe-command.js';
import { removeToolDirs, shellQuote, toolDir, writeTool } from './fake-tools.js';
import { runner } from '../support/tools.js';
import { until } from '../support/poll.js';
import { livePidsWith } from '../support/processes.js';

afterEach(removeToolDirs);

const ENV = { PATH: '/usr/bin:/bin' };

describe('runProbeCommand', () => {
  it('reads a JSON object with Environment field names', async () => {
    const printed = {
      neuronSdkVersion: '2.26.1',
      runtimeVersion: '2.28.23.0',
      neuronCores: 24,
      instanceType: 'inf2.48xlarge',
    };
    const result = await runProbeCommand(`echo ${shellQuote(JSON.stringify(printed))}`, ENV, {
      runner,
    });
    expect(result).toEqual({ values: printed, warnings: [] });
  });

  it('reads key=value lines with kebab and snake case keys, comments and quotes', async () => {
    const script = [
      '# written by our AMI build',
      'neuron_sdk_version=2.27.0',
      'neuron-sdk=2.27.1',
      'compiler_version = "2.22.4455.0"',
      "vllm='0.11.0'",
      'export VLLM_NEURON_VERSION=0.3.0',
      'neuron-cores=2',
      '',
      'runtime=',
    ].join('\n');
    const result = await runProbeCommand(`printf '%s\\n' ${shellQuote(script)}`, ENV, { runner });
    expect(result.warnings).toEqual([]);
    // The later of two spellings of one key wins; an empty value is no value.
    expect(result.values).toEqual({
      neuronSdkVersion: '2.27.1',
      compilerVersion: '2.22.4455.0',
      vllmVersion: '0.11.0',
      vllmNeuronVersion: '0.3.0',
      neuronCores: 2,
    });
  });

  it('runs in the given environment with bash', async () => {
    const result = await runProbeCommand(
      'echo "vllm=${MY_VLLM}"; [[ -n "$BASH_VERSION" ]]',
      {
        ...ENV,
        MY_VLLM: '0.10.9',
      },
      { runner },
    );
    expect(result).toEqual({ values: { vllmVersion: '0.10.9' }, warnings: [] });
  });

  it('warns with the exit code and the first lines of stderr when it fails, never the command', async () => {
    const bin = await toolDir();
    const script = await writeTool(
      bin,
      'probe-versions',
      [
        'echo "vllm=0.11.0"',
        ...Array.from({ length: 8 }, (_, i) => `echo "problem ${i + 1}" >&2`),
        'exit 3',
      ].join('\n'),
    );
    const result = await runProbeCommand(script, ENV, { runner });
    expect(result.values).toEqual({});
    expect(result.warnings).toHaveLength(1);
    const [warning] = result.warnings;
    // The command may hold a secret; the warning is published.
    expect(warning).not.toContain(script);
    expect(warning).toContain('the environment probe (environment-probe) exited with code 3');
    expect(warning).toContain('problem 1 | problem 2');
    expect(warning).toContain('problem 5');
    expect(warning).not.toContain('problem 6');
    expect(warning).toContain('default probes');
  });

  it('warns when it runs longer than the timeout, and kills what it started', async () => {
    const bin = await toolDir();
    const marker = join(bin, 'still-running');
    // A sleep no other process runs (this test's pid in its length), long enough that the
    // command cannot finish; the timeout leaves a busy host time to print 'waiting'.
    const sleep = `/bin/sleep 300.${process.pid}`;
    const result = await runProbeCommand(
      `echo waiting >&2; ${sleep}; echo late > ${shellQuote(marker)}`,
      ENV,
      { runner, timeoutMs: 2_000 },
    );
    await expect(access(marker)).rejects.toThrow();
    expect(result.values).toEqual({});
    expect(result.warnings[0]).toMatch(/timed out after 2 s \(stderr: waiting\)/);
    // The shell's children did not survive it: its sleep is gone.
    expect(await until(() => livePidsWith(sleep).length === 0)).toBe(true);
  });

  it('warns about output that is neither JSON nor key=value', async () => {
    for (const [command, problem] of [
      ['echo "Neuron SDK: 2.26"', /neither a JSON object nor key=value lines \(line 1/],
      ['echo "{not json"', /invalid JSON/],
      ['echo "[1, 2]"', /JSON that is not an object/],
      ['true', /printed nothing/],
    ] as const) {
      const result = await runProbeCommand(command, ENV, { runner });
      expect(result.values).toEqual({});
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toContain('the environment probe (environment-probe)');
      expect(result.warnings[0]).toMatch(problem);
    }
  });

  it('warns about a command that cannot start', async () => {
    const result = await runProbeCommand('echo vllm=1', ENV, { runner, shell: '/no/such/shell' });
    expect(result.values).toEqual({});
    expect(result.warnings[0]).toMatch(/could not be started/);
  });

  it('keeps the known fields and names the unknown keys and bad values', async () => {
    const result = await runProbeCommand(
      `printf '%s\\n' vllm=0.11.0 vllm_verison=0.11.0 neuron_cores=two`,
      ENV,
      { runner },
    );
    expect(result.values).toEqual({ vllmVersion: '0.11.0' });
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0]).toMatch(/not environment fields, ignored: vllm_verison \(known: /);
    expect(result.warnings[1]).toContain('neuron_cores "two", not a whole number');
  });

  it('says so when nothing it printed is usable', async () => {
    const result = await runProbeCommand('echo colour=blue', ENV, { runner });
    expect(result.values).toEqual({});
    expect(result.warnings.at(-1)).toMatch(/printed no usable field; the default probes/);
  });
});

describe('parseProbeOutput', () => {
  it('accepts every documented spelling of each field', () => {
    const spellings: [string, string][] = [
      ['instanceType', 'instance-type'],
      ['neuronSdkVersion', 'neuron_sdk_version'],
      ['neuronSdkVersion', 'neuron-sdk'],
      ['compilerVersion', 'compiler-version'],
      ['compilerVersion', 'neuronx_cc'],
      ['runtimeVersion', 'runtime_version'],
      ['vllmVersion', 'vllm-version'],
      ['vllmNeuronVersion', 'vllm_neuron_version'],
      ['vllmNeuronVersion', 'vllm-neuron'],
    ];
    for (const [field, key] of spellings) {
      const parsed = parseProbeOutput(`${key}=x1`);
      expect(parsed, key).toEqual({ values: { [field]: 'x1' }, problems: [] });
    }
  });

  it('turns JSON numbers into version strings and checks counts', () => {
    expect(parseProbeOutput('{"vllm": 0.1, "neuronCores": "4", "neuronDevices": 2}')).toEqual({
      values: { vllmVersion: '0.1', neuronCores: 4, neuronDevices: 2 },
      problems: [],
    });
    const bad = parseProbeOutput('{"neuronCores": 1.5, "vllm": {"v": 1}}');
    expect('problems' in bad && bad.problems).toEqual([
      'gave neuronCores 1.5, not a whole number; it was ignored',
      'gave vllm {"v":1}, not a string; it was ignored',
    ]);
  });

  it('takes an LNC of 1 or 2 only', () => {
    expect(parseProbeOutput('lnc=2')).toEqual({ values: { logicalNcConfig: 2 }, problems: [] });
    const bad = parseProbeOutput('{"lnc": 5}');
    expect('problems' in bad && bad.problems).toEqual([
      'gave lnc 5, not 1 or 2 (the only LNC settings); it was ignored',
    ]);
  });
});
