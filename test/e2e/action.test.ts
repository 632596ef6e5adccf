// The bundled action, dist/index.js, run as the Actions runner runs it: a node process
// with INPUT_* variables, an event payload and the GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../publish/zip.js';
import { pullRequestPayload, runActionProcess, useResultsService } from '../support/action-run.js';
import { tempDir } from '../support/offline-result.js';

function runAction(
  workspace: string,
  label: string,
  inputs: Record<string, string>,
  env: Record<string, string>,
) {
  return runActionProcess({
    workspace,
    label,
    inputs,
    event: {
      name: 'pull_request',
      payload: pullRequestPayload({ number: 7, headSha: 'a'.repeat(40) }),
      ref: 'refs/pull/7/merge',
      sha: 'b'.repeat(40),
    },
    env,
  });
}

describe('the bundled action', () => {
  let workspace: string;
  const inputs = {
    name: 'qwen3-reranker',
    // The leading line tries to act as a workflow command; it must not.
    command: "echo '::error::injected by the benchmark'; offline-benchmark",
    format: 'offline-benchmark',
    runs: '3',
    profile: 'true',
    'fail-on-regression': 'true',
    // Baseline files in the workspace; the git-branch store has its own end-to-end test.
    'baseline-store': 'file',
    'github-token': '',
  };

  beforeAll(async () => {
    workspace = await tempDir('perf-gate-action-');
    const first = await runAction(
      workspace,
      'first',
      { ...inputs, 'save-baseline': 'baseline.json' },
      { SIM_SEED: '1' },
    );
    expect(first.code).toBe(0);
    expect(first.outputs.verdict).toBe('no-baseline');
  });

  it('passes against its own baseline and sets the outputs and the summary', async () => {
    const result = await runAction(
      workspace,
      'pass',
      { ...inputs, 'baseline-path': 'baseline.json' },
      { SIM_SEED: '2' },
    );
    expect(result.code).toBe(0);
    expect(result.outputs.verdict).toBe('pass');
    expect(result.outputs.regressions).toBe('0');
    expect(result.outputs.report).toBe(join(workspace, 'perf-gate-output', 'report.json'));
    expect(result.summary).toContain('## ✅ neuron-perf-gate: no performance regression');
    expect(result.summary).toMatch(/\| latency_p99 \(ms\)/);
    const report = JSON.parse(await readFile(result.outputs.report!, 'utf8'));
    expect(report.verdict).toBe('pass');
    expect(report.environment.neuronCores).toBe(2);
  });

  it('fails the check on an 8% slowdown, naming the regressions', async () => {
    const result = await runAction(
      workspace,
      'regression',
      { ...inputs, 'baseline-path': 'baseline.json' },
      { SIM_SEED: '3', SIM_SLOWDOWN: '1.08' },
    );
    expect(result.code).toBe(1);
    expect(result.outputs.verdict).toBe('regression');
    // Throughput at least; the per-gate false-alarm budget may leave a latency inconclusive.
    expect(Number(result.outputs.regressions)).toBeGreaterThanOrEqual(1);
    expect(result.stdout).toMatch(/::error::neuron-perf-gate: \d+ regression\(s\)/);
    expect(result.stdout).toContain('qwen3-reranker throughput:');
    expect(result.summary).toContain('## ❌ neuron-perf-gate: performance regression');
    expect(result.summary).toMatch(/\| \w+ \([^|]*\) +\|.*❌ regression/);
  });

  it('keeps the check green with fail-on-regression false, but still reports the regression', async () => {
    const result = await runAction(
      workspace,
      'lenient',
      { ...inputs, 'baseline-path': 'baseline.json', 'fail-on-regression': 'false' },
      { SIM_SEED: '3', SIM_SLOWDOWN: '1.08' },
    );
    expect(result.code).toBe(0);
    expect(result.outputs.verdict).toBe('regression');
    expect(result.stdout).toMatch(/::warning::neuron-perf-gate: \d+ regression\(s\)/);
    expect(result.stdout).toContain('fail-on-regression is false');
    expect(result.stdout).not.toContain('::error::neuron-perf-gate');
  });

  it('streams benchmark output in groups with workflow commands switched off', async () => {
    const result = await runAction(
      workspace,
      'groups',
      { ...inputs, runs: '1' },
      { SIM_SEED: '4' },
    );
    expect(result.stdout).toContain('::group::qwen3-reranker: run 1 of 2 (clean)');
    expect(result.stdout).toContain('::group::qwen3-reranker: run 2 of 2 (profiled)');
    const injected = result.stdout.indexOf('::error::injected by the benchmark');
    const stop = /::stop-commands::([0-9a-f]+)\n/.exec(result.stdout);
    expect(stop).not.toBeNull();
    expect(stop!.index).toBeLessThan(injected);
    expect(result.stdout.indexOf(`::${stop![1]}::`)).toBeGreaterThan(injected);
  });

  it('fails with the error verdict when the benchmark crashes, keeping the tail of its output', async () => {
    const result = await runAction(workspace, 'crash', inputs, { SIM_FAIL: '1' });
    expect(result.code).toBe(1);
    expect(result.outputs.verdict).toBe('error');
    expect(result.stdout).toMatch(/::error::neuron-perf-gate: qwen3-reranker failed to run/);
    expect(result.summary).toContain('💥');
    expect(result.summary).toMatch(/exited with code 1/);
    expect(result.summary).toContain('NRT_EXEC_COMPLETED_WITH_ERR');
  });

  it("prices its requests at the runner's instance type: the cost line follows it", async () => {
    const costOn = async (instance: string) => {
      const run = await runAction(
        workspace,
        `cost-${instance}`,
        { ...inputs, profile: 'false', 'baseline-path': 'baseline.json' },
        { SIM_SEED: '2', PERF_GATE_INSTANCE_TYPE: instance },
      );
      const report = JSON.parse(await readFile(run.outputs.report!, 'utf8'));
      const cost = report.benchmarks[0].metrics.find(
        (m: { id: string }) => m.id === 'cost_per_million_requests',
      );
      return { summary: run.summary, cost: cost.current as number };
    };
    const small = await costOn('inf2.xlarge');
    const large = await costOn('inf2.48xlarge');
    expect(small.summary).toContain('0.7582 USD/h for `inf2.xlarge`');
    expect(large.summary).toContain('12.98127 USD/h for `inf2.48xlarge`');
    // The same seed's runs: the cost scales with the price alone.
    expect(large.cost / small.cost).toBeCloseTo(12.98127 / 0.7582, 6);
  });

  it('stops before running anything on a bad input, naming the input', async () => {
    const result = await runAction(workspace, 'bad', { ...inputs, runs: 'three' }, {});
    expect(result.code).toBe(1);
    expect(result.outputs.verdict).toBe('error');
    expect(result.stdout).toMatch(/::error::neuron-perf-gate: .*runs.*three/);
    expect(result.stdout).not.toContain('::group::');
  });

  describe('with the results service of an Actions runner', () => {
    const results = useResultsService();

    it('uploads the profile, logs and report as an artifact whose NTFFs arrive intact', async () => {
      const result = await runAction(
        workspace,
        'artifact',
        { ...inputs, 'baseline-path': 'baseline.json' },
        {
          SIM_SEED: '5',
          ...results.env(),
          // The event payload's repository: a head elsewhere would be refused as a fork.
          GITHUB_REPOSITORY: 'octo/inference',
          GITHUB_RUN_ID: '4242',
          GITHUB_RUN_ATTEMPT: '1',
          GITHUB_JOB: 'perf',
        },
      );
      expect(result.code).toBe(0);
      // Named by the gate key (workflow, job, config), so matrix jobs do not collide.
      const [artifact] = [...results.service.artifacts.values()].filter((a) =>
        /^perf-perf-[0-9a-f]{8}-qwen3-reranker-attempt-1$/.test(a.name),
      );
      expect(artifact?.finalized).toBe(true);
      expect(result.outputs['artifact-id']).toBe(String(artifact!.id));
      expect(result.outputs['artifact-url']).toBe(
        `https://github.com/octo/inference/actions/runs/4242/artifacts/${artifact!.id}`,
      );
      const entries = readZip(artifact!.blob!).filter((e) => !e.isDirectory);
      const names = entries.map((e) => e.name);
      expect(names).toContain('report.json');
      expect(names.some((n) => n.startsWith('runs/qwen3-reranker/') && n.endsWith('.log'))).toBe(
        true,
      );
      // The profile tables the figures were read from travel with the profile.
      expect(names.some((n) => /perf-gate-tables\/unit-1\/Metadata\.parquet$/.test(n))).toBe(true);
      expect(names.some((n) => n.endsWith('FrameworkInstruction.parquet'))).toBe(true);
      const profileDir = join(workspace, 'perf-gate-output', 'profiles', 'qwen3-reranker');
      const onDisk = (await readdir(profileDir, { recursive: true })).filter((n) =>
        String(n).endsWith('.ntff'),
      );
      expect(onDisk.length).toBeGreaterThan(0);
      for (const ntff of onDisk) {
        const entry = entries.find((e) => e.name === `profiles/qwen3-reranker/${ntff}`);
        expect(
          entry?.data.equals(await readFile(join(profileDir, String(ntff)))),
          String(ntff),
        ).toBe(true);
      }
      expect(result.summary).toContain(`[${artifact!.name}](${result.outputs['artifact-url']})`);
    });

    it('keeps the verdict and warns when the upload is refused', async () => {
      results.service.failNext('CreateArtifact', {
        status: 403,
        msg: 'insufficient usage to create artifact',
      });
      const result = await runAction(
        workspace,
        'refused',
        { ...inputs, 'baseline-path': 'baseline.json' },
        {
          SIM_SEED: '6',
          ...results.env(),
          GITHUB_RUN_ATTEMPT: '2',
          GITHUB_JOB: 'perf',
        },
      );
      expect(result.code).toBe(0);
      expect(result.outputs.verdict).toBe('pass');
      expect(result.outputs['artifact-id']).toBe('');
      expect(result.stdout).toMatch(
        /::warning::the profile artifact "perf-perf-[0-9a-f]{8}-qwen3-reranker-attempt-2" was not uploaded: .*quota/,
      );
    });
  });
});
