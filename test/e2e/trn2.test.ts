// trn2 as a runner, through the bundled CLI on the simulator: neuron-ls in the shape
// aws-neuronx-tools print on a trn2.48xlarge (LNC 2 by default), MFU per logical core (the
// profiler's own figure is against one physical core's Tensor Engine, half a logical core),
// the LNC named in the report, and a run at another LNC not compared as the same machine.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const CONFIG = `benchmarks:
  - name: qwen3-reranker
    command: offline-benchmark
    format: offline-benchmark
    runs: 2
    timeout-minutes: 2
`;

async function run(dir: string, out: string, sim: Record<string, string>, extra: string[] = []) {
  const args = ['run', '--config', 'perf-gate.yml', '--out', out, '--quiet', ...extra];
  const result = await runNode(CLI, args, {
    cwd: dir,
    env: simulatorEnv({ SIM_SEED: '5', ...sim }),
  });
  const report = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8')) as GateReport;
  return { result, report };
}

describe('neuron-perf-gate run (bundled) on a simulated trn2.48xlarge', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('perf-gate-trn2-');
    await writeFile(join(dir, 'perf-gate.yml'), CONFIG);
  });

  it('fingerprints LNC 2 from neuron-ls and gives MFU per logical core, named in the report', async () => {
    const trn2 = await run(dir, 'trn2', { SIM_INSTANCE_TYPE: 'trn2.48xlarge' }, [
      '--save-baseline',
      'baseline.json',
    ]);
    expect(trn2.result.code, trn2.result.stderr).toBe(0);
    expect(trn2.report.environment).toMatchObject({
      instanceType: 'trn2.48xlarge',
      neuronDevices: 16,
      neuronCores: 64,
      logicalNcConfig: 2,
    });
    const profile = trn2.report.benchmarks[0]!.profile!;
    expect(profile.source?.physicalCores).toBe(2);
    // The simulated device runs the graphs at the same share of a logical core's peak on
    // both machines; the profiler's figure on trn2 is twice it, the gate's is not.
    const inf2 = await run(dir, 'inf2', { SIM_INSTANCE_TYPE: 'inf2.xlarge' });
    expect(inf2.report.environment.logicalNcConfig).toBeUndefined();
    const inf2Mfu = inf2.report.benchmarks[0]!.profile!.metrics.mfu!;
    expect(profile.metrics.mfu).toBeCloseTo(inf2Mfu, 3);
    const comment = await readFile(join(dir, 'trn2', 'comment.md'), 'utf8');
    expect(comment).toMatch(/\| LNC \(physical cores per logical NeuronCore\) +\| 2 +\|/);
    expect(comment).toContain('MFU is per logical NeuronCore of 2 physical cores (LNC 2)');
  }, 180_000);

  it('does not compare a run at LNC 1 with the LNC 2 baseline as the same machine', async () => {
    const lnc1 = await run(
      dir,
      'lnc1',
      { SIM_INSTANCE_TYPE: 'trn2.48xlarge', NEURON_LOGICAL_NC_CONFIG: '1' },
      ['--baseline', 'baseline.json'],
    );
    expect(lnc1.report.environment).toMatchObject({ neuronCores: 128, logicalNcConfig: 1 });
    expect(lnc1.result.stdout).toContain('LNC (physical cores per logical NeuronCore) 2 → 1');
    // At LNC 1 a logical core is one physical core: the profiler's MFU stands as it is.
    expect(lnc1.report.benchmarks[0]!.profile!.source?.physicalCores).toBeUndefined();
  }, 180_000);
});
