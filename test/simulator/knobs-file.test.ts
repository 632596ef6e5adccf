// SIM_KNOBS_FILE: the knobs a checked-out tree carries, read by every executable from its
// working directory, so that each commit of a repository can simulate its own build.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool, tempDir } from './helpers.js';

async function treeWith(knobs: string): Promise<string> {
  const dir = await tempDir('sim-knobs-');
  await writeFile(join(dir, 'sim-knobs.env'), knobs);
  return dir;
}

async function throughput(dir: string, env: Record<string, string>): Promise<number> {
  const output = join(dir, 'result.json');
  const outcome = await runTool('offline-benchmark', [], {
    env: { PERF_GATE_OUTPUT: output, SIM_SEED: '5', PERF_GATE_RUN: '1', ...env },
    cwd: dir,
  });
  expect(outcome.stderr).toBe('');
  expect(outcome.code).toBe(0);
  const result = JSON.parse(await readFile(output, 'utf8'));
  return result.metrics.throughput_queries_per_sec;
}

describe('SIM_KNOBS_FILE', () => {
  it("slows the benchmark by the file's SIM_SLOWDOWN, over the environment's", async () => {
    const dir = await treeWith('# this commit is slower\nSIM_SLOWDOWN = 1.25\n\n');
    const plain = await throughput(dir, {});
    const fromFile = await throughput(dir, { SIM_KNOBS_FILE: 'sim-knobs.env' });
    const overEnv = await throughput(dir, {
      SIM_KNOBS_FILE: 'sim-knobs.env',
      SIM_SLOWDOWN: '3',
    });
    expect(plain / fromFile).toBeCloseTo(1.25, 10);
    expect(overEnv).toBe(fromFile);
  });

  it('gives pip and neuron-ls the versions of the tree', async () => {
    const dir = await treeWith(
      'SIM_VLLM_VERSION="0.11.0"\nSIM_NEURON_TOOLS_VERSION=2.27.7.0\nSIM_NEURONX_CC_VERSION=none\n',
    );
    const env = { SIM_KNOBS_FILE: 'sim-knobs.env' };
    const pip = await runTool('pip', ['list', '--format=json'], { env, cwd: dir });
    const packages = new Map(
      (JSON.parse(pip.stdout) as { name: string; version: string }[]).map((p) => [
        p.name,
        p.version,
      ]),
    );
    expect(packages.get('vllm')).toBe('0.11.0');
    expect(packages.has('neuronx-cc')).toBe(false);
    const ls = await runTool('neuron-ls', ['--version'], { env, cwd: dir });
    expect(ls.stdout).toBe('neuron-ls 2.27.7.0 (simulated)\n');
  });

  it('stops with exit 2 naming the file when it is missing or holds something else', async () => {
    const dir = await treeWith('SIM_SLOWDOWN=1.1\nPATH=/evil\n');
    const missing = await runTool('offline-benchmark', [], {
      env: { SIM_KNOBS_FILE: 'nope.env' },
      cwd: dir,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`SIM_KNOBS_FILE: cannot read ${join(dir, 'nope.env')}`);
    const foreign = await runTool('neuron-ls', ['--version'], {
      env: { SIM_KNOBS_FILE: 'sim-knobs.env' },
      cwd: dir,
    });
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain(`${join(dir, 'sim-knobs.env')}:2: expected SIM_NAME=value`);
    const badValue = await treeWith('SIM_SLOWDOWN=fast\n');
    const bad = await runTool('offline-benchmark', [], {
      env: { SIM_KNOBS_FILE: 'sim-knobs.env' },
      cwd: badValue,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SIM_SLOWDOWN must be a number');
  });
});
