import { afterEach, describe, expect, it } from 'vitest';
import { describeDifference, fingerprintDifferences } from '../../src/environment/fingerprint.js';
import { probeEnvironment, probeEnvironmentWithWarnings } from '../../src/environment/probe.js';
import { runner } from '../support/tools.js';
import { PROBED_FIELDS } from '../../src/environment/probe-command.js';
import { NODE_DIR, SIMULATOR_BIN, removeToolDirs, toolDir, writeTool } from './fake-tools.js';

afterEach(removeToolDirs);

/** A simulated inf2 machine of the given size and software, as the gate's env sees it. */
function machine(instanceType: string, knobs: Record<string, string> = {}) {
  return {
    PATH: `${SIMULATOR_BIN}:${NODE_DIR}:/usr/bin:/bin`,
    PERF_GATE_INSTANCE_TYPE: instanceType,
    SIM_INSTANCE_TYPE: instanceType,
    SIM_NEURONX_CC_VERSION: '2.21.18209.0',
    SIM_VLLM_VERSION: '0.10.2',
    SIM_VLLM_NEURON_VERSION: '0.2.0',
    SIM_NEURON_TOOLS_VERSION: '2.26.14.0',
    ...knobs,
  };
}

describe('probeEnvironmentWithWarnings', () => {
  it('puts hardware, Neuron and vLLM versions and the run together', async () => {
    const env = {
      ...machine('inf2.24xlarge'),
      RUNNER_NAME: 'inf2-runner-3',
      GITHUB_SHA: 'c'.repeat(40),
      GITHUB_REF: 'refs/heads/main',
    };
    const { environment, warnings } = await probeEnvironmentWithWarnings(env, { runner });
    expect(warnings).toEqual([]);
    expect(environment).toEqual({
      instanceType: 'inf2.24xlarge',
      neuronDevices: 6,
      neuronCores: 12,
      neuronSdkVersion: '2.26',
      compilerVersion: env.SIM_NEURONX_CC_VERSION,
      vllmVersion: env.SIM_VLLM_VERSION,
      vllmNeuronVersion: env.SIM_VLLM_NEURON_VERSION,
      runner: env.RUNNER_NAME,
      commit: env.GITHUB_SHA,
      ref: env.GITHUB_REF,
    });
  });

  it("takes a trn2's instance type, logical cores and LNC from neuron-ls in a container", async () => {
    // No PERF_GATE_INSTANCE_TYPE and no EC2 DMI name in a container: neuron-ls names it.
    const env: Record<string, string> = machine('trn2.48xlarge');
    delete env.PERF_GATE_INSTANCE_TYPE;
    const environment = await probeEnvironment(env, { runner });
    expect(environment).toMatchObject({
      instanceType: 'trn2.48xlarge',
      neuronDevices: 16,
      neuronCores: 64,
      logicalNcConfig: 2,
    });
    const lnc1 = await probeEnvironment({ ...env, NEURON_LOGICAL_NC_CONFIG: '1' }, { runner });
    expect(lnc1).toMatchObject({ neuronCores: 128, logicalNcConfig: 1 });
  });

  it('asks neuron-ls for --output-format json (SDK 2.34) and --json-output (before it)', async () => {
    const devices =
      '[{"nc_count": 4, "logical_neuroncore_config": 2, "neuroncore_ids": [0,1,2,3]}]';
    for (const [accepted, refused] of [
      ['--json-output', '--output-format'],
      ['--output-format', '--json-output'],
    ]) {
      const bin = await toolDir();
      await writeTool(
        bin,
        'neuron-ls',
        `if [ "$1" = "${refused}" ]; then echo "neuron-ls: error: unrecognized arguments: $1" >&2; exit 2; fi\n` +
          `printf '%s\\n' '${devices}'`,
      );
      const environment = await probeEnvironment(
        { PATH: `${bin}:${NODE_DIR}:/usr/bin:/bin`, PERF_GATE_INSTANCE_TYPE: 'trn2.3xlarge' },
        { runner },
      );
      expect(environment, accepted).toMatchObject({ neuronCores: 4, logicalNcConfig: 2 });
    }
  });

  it('lets the configured probe command override and add fields', async () => {
    const probeCommand =
      'printf "neuron_sdk_version=2.26.1\\nruntime-version=2.28.23.0\\nvllm=0.10.2+neuron226\\n"';
    const { environment, warnings } = await probeEnvironmentWithWarnings(machine('inf2.xlarge'), {
      runner,
      probeCommand,
    });
    expect(warnings).toEqual([]);
    expect(environment).toMatchObject({
      instanceType: 'inf2.xlarge',
      neuronCores: 2,
      neuronSdkVersion: '2.26.1',
      runtimeVersion: '2.28.23.0',
      compilerVersion: '2.21.18209.0',
      vllmVersion: '0.10.2+neuron226',
    });
    // The same field order whichever probe found the value.
    expect(Object.keys(environment)).toEqual([
      'instanceType',
      'neuronDevices',
      'neuronCores',
      'neuronSdkVersion',
      'compilerVersion',
      'runtimeVersion',
      'vllmVersion',
      'vllmNeuronVersion',
    ]);
  });

  it('falls back to the default probes, with a warning, when the probe command fails', async () => {
    const bin = await toolDir();
    const probe = await writeTool(bin, 'versions.sh', 'echo "no venv at /opt/venv" >&2\nexit 4');
    const env = machine('inf2.xlarge');
    const withProbe = await probeEnvironmentWithWarnings(env, { runner, probeCommand: probe });
    const defaults = await probeEnvironmentWithWarnings(env, { runner });
    expect(withProbe.environment).toEqual(defaults.environment);
    expect(withProbe.warnings).toHaveLength(1);
    expect(withProbe.warnings[0]).toContain('environment-probe');
    expect(withProbe.warnings[0]).not.toContain(probe);
    expect(withProbe.warnings[0]).toContain('exited with code 4');
    expect(withProbe.warnings[0]).toContain('no venv at /opt/venv');
  });

  it('ignores a blank probe command', async () => {
    const env = machine('inf2.xlarge');
    const blank = await probeEnvironmentWithWarnings(env, { runner, probeCommand: '  ' });
    expect(blank).toEqual(await probeEnvironmentWithWarnings(env, { runner }));
  });

  it('finds no software versions on a machine without pip and neuron-ls', async () => {
    const empty = await toolDir();
    const { environment, warnings } = await probeEnvironmentWithWarnings(
      { PATH: empty },
      { runner },
    );
    expect(warnings).toEqual([]);
    // The instance type comes from DMI, which the machine running the tests may have.
    for (const field of PROBED_FIELDS.filter((f) => f !== 'instanceType')) {
      expect(environment).not.toHaveProperty(field);
    }
  });
});

describe('probeEnvironment', () => {
  it('returns the environment alone, as before', async () => {
    const env = machine('inf2.8xlarge');
    expect(await probeEnvironment(env, { runner })).toEqual(
      (await probeEnvironmentWithWarnings(env, { runner })).environment,
    );
  });
});

describe('two simulated machines', () => {
  it('differ in exactly what was changed, in words for the report', async () => {
    const baseline = await probeEnvironment(machine('inf2.xlarge'), { runner });
    const current = await probeEnvironment(
      machine('inf2.48xlarge', {
        SIM_NEURON_TOOLS_VERSION: '2.27.7.0',
        SIM_VLLM_VERSION: '0.11.0',
      }),
      { runner },
    );
    expect(fingerprintDifferences(baseline, current).map(describeDifference)).toEqual([
      'instance type inf2.xlarge → inf2.48xlarge',
      'NeuronCores 2 → 24',
      'Neuron SDK 2.26 → 2.27',
      'vLLM 0.10.2 → 0.11.0',
    ]);
  });
});
