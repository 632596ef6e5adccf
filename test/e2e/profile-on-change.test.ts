// `profile: on-change` through the bundled action on the simulator: a push to the default
// branch is always profiled (the stored baseline keeps MFU); a pull request pays for the
// profiled run only when a gated timing metric ends beyond its threshold. The profiler is
// counted by a wrapper in front of the simulator's neuron-explorer.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { benchmarkPaths } from '../../src/runner/benchmark.js';
import {
  pullRequestPayload,
  pushToMain,
  runActionProcess,
  simulatorInputs,
  type ActionEvent,
} from '../support/action-run.js';
import { CLI, runNode, SIMULATOR_BIN, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const NOT_PROFILED = 'not profiled: profile: on-change and no timing metric moved';

interface ReportMetric {
  id: string;
  verdict: string;
  current: number | null;
  reason: string;
}

describe('profile: on-change (bundled action, simulator)', () => {
  let workspace: string;
  let calls: string;
  let wrappers: string;

  /** One gate run into its own out dir; the profiler calls it made, counted. */
  async function gate(label: string, event: ActionEvent, sim: Record<string, string>) {
    const before = await profilerCalls();
    const run = await runActionProcess({
      workspace,
      label,
      event,
      inputs: simulatorInputs({
        profile: 'on-change',
        'baseline-store': 'file',
        'baseline-path': 'baseline.json',
        'out-dir': label,
        'github-token': '',
      }),
      env: {
        ...sim,
        PATH: [wrappers, SIMULATOR_BIN, process.env.PATH ?? ''].join(delimiter),
        PROFILER_CALLS: calls,
      },
    });
    const outDir = join(workspace, label);
    const report = JSON.parse(await readFile(join(outDir, 'report.json'), 'utf8'));
    const benchmark = report.benchmarks[0];
    const kinds: string[] = benchmark.result.runs.map((r: { kind: string }) => r.kind);
    const metric = (id: string): ReportMetric =>
      benchmark.metrics.find((m: ReportMetric) => m.id === id);
    const profileDir = benchmarkPaths(outDir, 'qwen3-reranker').profileDir;
    return {
      run,
      benchmark,
      kinds,
      metric,
      profilerCalls: (await profilerCalls()) - before,
      profileDirExists: await exists(profileDir),
    };
  }

  async function profilerCalls(): Promise<number> {
    const text = await readFile(calls, 'utf8').catch(() => '');
    return text.split('\n').filter((line) => line !== '').length;
  }

  beforeAll(async () => {
    workspace = await tempDir('perf-gate-on-change-');
    calls = join(workspace, 'profiler-calls.txt');
    wrappers = join(workspace, 'wrappers');
    await mkdir(wrappers);
    await writeFile(
      join(wrappers, 'neuron-explorer'),
      `#!/bin/sh\necho "$*" >> "$PROFILER_CALLS"\nexec "${join(SIMULATOR_BIN, 'neuron-explorer')}" "$@"\n`,
      { mode: 0o755 },
    );
  });

  it('profiles a push to the default branch even with nothing to compare, and stores MFU', async () => {
    const push = await gate('push', pushToMain('c'.repeat(40)), { SIM_SEED: '21' });
    expect(push.run.code, push.run.stdout).toBe(0);
    expect(push.run.outputs.verdict).toBe('no-baseline');
    expect(push.kinds).toEqual(['clean', 'clean', 'clean', 'profiled']);
    expect(push.profilerCalls).toBeGreaterThan(0);
    expect(push.profileDirExists).toBe(true);
    expect(push.metric('mfu').current).toBeGreaterThan(1);
    const stored = JSON.parse(await readFile(join(workspace, 'baseline.json'), 'utf8'));
    expect(JSON.stringify(stored)).toContain('"mfu"');
  });

  const pullRequest: ActionEvent = {
    name: 'pull_request',
    payload: pullRequestPayload({ number: 9, headSha: 'd'.repeat(40) }),
    ref: 'refs/pull/9/merge',
    sha: 'e'.repeat(40),
  };

  it('does not profile a pull request whose timings did not move; MFU is not measured, with why', async () => {
    const pr = await gate('unchanged', pullRequest, { SIM_SEED: '22' });
    expect(pr.run.code, pr.run.stdout).toBe(0);
    expect(pr.run.outputs.verdict).toBe('pass');
    expect(pr.kinds.every((kind) => kind === 'clean')).toBe(true);
    expect(pr.profilerCalls).toBe(0);
    expect(pr.profileDirExists).toBe(false);
    // The baseline has MFU and MBU; this run shows them as not measured, never as a pass.
    for (const id of ['mfu', 'mbu']) {
      expect(pr.metric(id)).toMatchObject({
        verdict: 'missing',
        current: null,
        reason: `not measured: ${NOT_PROFILED}`,
      });
    }
    expect(pr.benchmark.profile).toMatchObject({ status: 'not-requested', note: NOT_PROFILED });
    expect(pr.benchmark.warnings).toEqual([]);
    expect(pr.run.summary).toMatch(/\| mfu \(%\) +\| +2\.\d+ \| +— .*⚪ not measured/);
    expect(pr.run.summary).toContain(`MFU and MBU are not measured: ${NOT_PROFILED}.`);
    expect(pr.run.stdout).toContain(`qwen3-reranker: ${NOT_PROFILED}`);
  });

  it("leaves no earlier run's profiles in a reused out dir for a run it does not profile", async () => {
    // The push above profiled into out dir 'push'; a self-hosted runner keeps it.
    const stale = benchmarkPaths(join(workspace, 'push'), 'qwen3-reranker').profileDir;
    expect(await exists(stale)).toBe(true);
    const pr = await gate('push', pullRequest, { SIM_SEED: '22' });
    expect(pr.run.code, pr.run.stdout).toBe(0);
    expect(pr.profilerCalls).toBe(0);
    // The folder the artifact is made of holds nothing this run did not make.
    expect(pr.profileDirExists).toBe(false);
  });

  it('profiles a pull request with a slowdown after its looks, and judges MFU', async () => {
    const pr = await gate('slower', pullRequest, { SIM_SEED: '23', SIM_SLOWDOWN: '1.08' });
    expect(pr.run.code, pr.run.stdout).toBe(1);
    expect(pr.run.outputs.verdict).toBe('regression');
    // The clean runs and any confirmation runs first, the profiled run last.
    expect(pr.kinds.slice(0, 3)).toEqual(['clean', 'clean', 'clean']);
    expect(pr.kinds.at(-1)).toBe('profiled');
    expect(pr.kinds.filter((kind) => kind === 'profiled')).toHaveLength(1);
    expect(pr.profilerCalls).toBeGreaterThan(0);
    expect(pr.profileDirExists).toBe(true);
    const mfu = pr.metric('mfu');
    expect(mfu.current).toBeGreaterThan(1);
    expect(mfu.verdict).not.toBe('missing');
    expect(pr.benchmark.profile.status).toBe('measured');
    expect(pr.run.summary).toContain('#### Profile');
    expect(pr.run.stdout).toContain('so 1 profiled run follows (profile: on-change)');
  });
});

describe('profile: on-change (bundled CLI, simulator)', () => {
  /** `run` of the simulator's benchmark with --profile on-change into dir/out. */
  async function run(dir: string, out: string, extra: string[], sim: Record<string, string>) {
    const args = ['run', '--command', 'offline-benchmark', '--name', 'qwen3-reranker'];
    args.push('--format', 'offline-benchmark', '--profile', 'on-change', '--out', out, '--quiet');
    const result = await runNode(CLI, [...args, ...extra], { cwd: dir, env: simulatorEnv(sim) });
    const report = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8'));
    const kinds = report.benchmarks[0].result.runs.map((r: { kind: string }) => r.kind);
    return { result, report, kinds };
  }

  it('profiles a run that saves a baseline, and not an unchanged run that does not', async () => {
    const dir = await tempDir('perf-gate-on-change-cli-');
    const saved = await run(dir, 'base', ['--save-baseline', 'baseline.json'], { SIM_SEED: '31' });
    expect(saved.result.code, saved.result.stderr).toBe(0);
    expect(saved.kinds).toEqual(['clean', 'clean', 'clean', 'profiled']);
    expect(saved.result.stderr).toContain('this run may store the baseline, so it is profiled');

    const again = await run(dir, 'again', ['--baseline', 'baseline.json'], { SIM_SEED: '32' });
    expect(again.result.code, again.result.stderr).toBe(0);
    expect(again.kinds.every((kind: string) => kind === 'clean')).toBe(true);
    const mfu = again.report.benchmarks[0].metrics.find((m: { id: string }) => m.id === 'mfu');
    expect(mfu).toMatchObject({ verdict: 'missing', reason: `not measured: ${NOT_PROFILED}` });
    expect(again.result.stdout).toContain(`MFU and MBU are not measured: ${NOT_PROFILED}.`);
  });
});

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
