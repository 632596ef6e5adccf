// `neuron-perf-gate ab` (the bundled CLI) on examples/agreement/perf-gate.yml and the
// simulator: a head whose server is 10% faster but flips 5% of the greedy tokens
// (SIM_TOKEN_FLIPS) fails on its answers, and its comment says so before any timing; the
// same build on both sides passes the check.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { agreementRepo, SERVE } from '../support/agreement-repo.js';
import { CLI, ROOT, runNode, simulatorEnv } from '../support/bundled.js';
import { gitIn } from '../support/git.js';

const STACKS = join(ROOT, 'examples', 'stacks');

let repo: string;

beforeAll(async () => {
  const made = await agreementRepo('perf-gate-agreement-');
  repo = made.repo;
  const port = made.port;
  for (const stack of ['nxdi.yml', 'vllm-neuron.yml']) {
    const config = await readFile(join(STACKS, stack), 'utf8');
    await writeFile(join(repo, '.github', stack), config.replaceAll('8000', port));
  }
  await writeFile(join(repo, '.gitignore'), 'out-*/\n');
  gitIn(repo, ['init', '--quiet', '--initial-branch=main']);
  gitIn(repo, ['add', '-A']);
  gitIn(repo, ['commit', '--quiet', '-m', 'serve']);
});

async function ab(out: string, head: string[]) {
  const result = await runNode(
    CLI,
    [
      'ab',
      '--config',
      '.github/perf-gate.yml',
      '--quiet',
      '--blocks',
      '2',
      '--confirm-blocks',
      '0',
      '--base-env',
      'SIM_TOKEN_FLIPS=0',
      ...head.flatMap((kv) => ['--head-env', kv]),
      '--out',
      out,
    ],
    { cwd: repo, env: simulatorEnv(SERVE) },
  );
  const report = JSON.parse(await readFile(join(repo, out, 'report.json'), 'utf8')) as GateReport;
  return { result, report, comment: await readFile(join(repo, out, 'comment.md'), 'utf8') };
}

describe('neuron-perf-gate ab (bundled): the agreement check', () => {
  it('fails a head 10% faster that flips 5% of its tokens, on its answers first', async () => {
    const { result, report, comment } = await ab('out-flips', [
      'SIM_TOKEN_FLIPS=0.05',
      'SIM_SERVE_TTFT_MS=54',
      'SIM_SERVE_ITL_MS=10.8',
    ]);
    expect(result.code, result.stdout).toBe(1);
    const [benchmark] = report.benchmarks;
    expect(benchmark!.verdict).toBe('regression');
    const agreement = benchmark!.agreement!;
    expect(agreement.verdict).toBe('regression');
    expect(agreement.flips.head).toBeGreaterThan(0.03);
    expect(agreement.flips.head).toBeLessThan(0.07);
    expect(agreement.flips.reference).toBeLessThan(0.01);
    expect(agreement.positions).toBe(48 * 32);
    // Teacher forcing: each flip costs the head a request more.
    expect(agreement.requests.head).toBeGreaterThan(48);
    // Faster, and no timing regressed: the answers alone fail it.
    expect(benchmark!.metrics.find((m) => m.id === 'throughput')!.verdict).not.toBe('regression');
    expect(benchmark!.metrics.every((m) => m.verdict !== 'regression')).toBe(true);
    expect(comment).toContain('## ❌ neuron-perf-gate: the answers changed');
    const section = comment.slice(comment.indexOf('### qwen3-serve'));
    expect(section.indexOf('❌ **Answers changed**')).toBeGreaterThan(0);
    expect(section.indexOf('❌ **Answers changed**')).toBeLessThan(section.indexOf('| Metric'));
  }, 600_000);

  it('passes the same build on both sides', async () => {
    // 0.0 against 0: two environments to the gate, one build to the simulator.
    const { result, report } = await ab('out-same', ['SIM_TOKEN_FLIPS=0.0']);
    expect(result.code, result.stdout).toBe(0);
    const agreement = report.benchmarks[0]!.agreement!;
    expect(agreement.verdict).toBe('pass');
    expect(agreement.flips.change).toBeLessThan(0.005);
  }, 600_000);

  it('compares NxD Inference with the vLLM Neuron plugin: each stack its own config, answers checked', async () => {
    const result = await runNode(
      CLI,
      [
        'ab',
        '--base-config',
        '.github/nxdi.yml',
        '--head-config',
        '.github/vllm-neuron.yml',
        '--quiet',
        '--blocks',
        '2',
        '--confirm-blocks',
        '0',
        '--out',
        'out-stacks',
      ],
      { cwd: repo, env: simulatorEnv(SERVE) },
    );
    const report = JSON.parse(
      await readFile(join(repo, 'out-stacks', 'report.json'), 'utf8'),
    ) as GateReport;
    expect(report.ab!.base.label).toMatch(/by \.github\/nxdi\.yml$/);
    expect(report.ab!.head.label).toMatch(/by \.github\/vllm-neuron\.yml$/);
    // What the stacks set differently, listed.
    const settings = report.ab!.configDiffers!.map((d) => d.setting);
    expect(settings).toEqual(['server.command', 'server.env.VLLM_NEURON_FRAMEWORK']);
    const [benchmark] = report.benchmarks;
    // Each figure of both stacks with its paired interval: throughput, TTFT and ITL, start-up.
    for (const id of ['throughput', 'ttft_p50', 'itl_p50', 'server_startup']) {
      const metric = benchmark!.metrics.find((m) => m.id === id)!;
      expect(metric.method, id).toBe('paired-t');
      expect(metric.ci![0], id).toBeLessThanOrEqual(metric.change!);
      expect(metric.ci![1], id).toBeGreaterThanOrEqual(metric.change!);
    }
    // The simulated NxD Inference path starts 1.5 times slower: the plugin starts faster.
    expect(benchmark!.metrics.find((m) => m.id === 'server_startup')!.change!).toBeLessThan(0);
    // One model on both stacks: the answers agree.
    expect(benchmark!.agreement!.verdict).toBe('pass');
    expect(result.stdout).toContain("The sides' configs differ in 2 setting(s)");
  }, 600_000);
});
