// examples/vllm-serve/perf-gate.yml through the bundled action (dist/index.js) on the
// simulator, its `vllm` first on PATH: the gate starts `vllm serve` in the sandbox, waits
// for /health, runs `vllm bench serve` against it at five request rates, and stops it; the
// start-up time is in report.json and the comment, each rate's goodput and the sweep's
// capacity under the example's SLO in report.json, the server's log in the artifact, and
// nothing of the server is left running, also when it fails to start or the gate is
// cancelled. The config is the example's, its port changed to a free one. A pull request
// with profile: on-change and no baseline takes no profiled run: one server start.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { readZip } from '../publish/zip.js';
import { useResultsService } from '../support/action-run.js';
import { pullRequestGate, servedExampleWorkspace } from '../support/served-example.js';
import { CLI, simulatorEnv } from '../support/bundled.js';
import { livePidsWith, whileRunning } from '../support/processes.js';

const RATES = [1, 2, 4, 6, 8];
/** The simulated server 25× faster than inf2's time, 24 requests a run, ready after 1 s. */
const FAST = { SIM_SERVE_SPEEDUP: '25', SIM_SERVE_PROMPTS: '24', SIM_SERVE_STARTUP: '1' };

/** The example's config in a workspace of its own on a free port, `edit` applied. */
function workspaceWithExample(edit?: (config: string) => string) {
  return servedExampleWorkspace('perf-gate-vllm-serve-', edit);
}

function gate(
  workspace: string,
  label: string,
  env: Record<string, string>,
  inputs: Record<string, string> = {},
) {
  return pullRequestGate({ workspace, label, pr: 29, env: { ...FAST, ...env }, inputs });
}

/** The processes of the server (and of the sandbox around it): its port is in their command lines. */
async function serverProcesses(port: number): Promise<number[]> {
  await whileRunning(() => livePidsWith(`--port ${port}`).length > 0);
  return livePidsWith(`--port ${port}`);
}

describe('examples/vllm-serve/perf-gate.yml on the simulator, through the bundled action', () => {
  const results = useResultsService();
  let workspace: string;
  let port: number;

  beforeAll(async () => {
    ({ workspace, port } = await workspaceWithExample());
  });

  it('starts the server once, sweeps five rates against it, reports its start-up and stops it', async () => {
    const run = await gate(workspace, 'sweep', {
      SIM_SEED: '1',
      ...results.env(),
      GITHUB_JOB: 'serve',
    });
    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.verdict).toBe('no-baseline');
    expect(await serverProcesses(port)).toEqual([]);

    const report = JSON.parse(await readFile(run.outputs.report!, 'utf8')) as GateReport;
    // The five rates, then the sweep's capacity under the example's SLO.
    expect(report.benchmarks.map((b) => b.name)).toEqual([
      ...RATES.map((rate) => `qwen3-serve/rate-${rate}`),
      'qwen3-serve/capacity',
    ]);
    const variants = report.benchmarks.slice(0, RATES.length);
    expect(variants.map((b) => b.result?.info?.request_rate)).toEqual(RATES);
    // Each rate's goodput and attainment, derived from its requests one by one: 24 requests
    // at a rate below the simulated server's capacity (8 a second, see below) all meet the
    // SLO, at about the rate. At the capacity itself the simulated server queues in wall-clock
    // time, so how many meet it there is the host's to say (71% on a busy one).
    for (const [index, variant] of variants.entries()) {
      const metric = (id: string) => variant.metrics.find((m) => m.id === id)?.current;
      const belowCapacity = RATES[index]! < 8;
      if (belowCapacity) expect(metric('slo_attainment'), variant.name).toBeGreaterThanOrEqual(90);
      expect(metric('slo_attainment'), variant.name).toBeGreaterThan(0);
      expect(metric('goodput'), variant.name).toBeGreaterThan(RATES[index]! * 0.3);
      expect(metric('goodput'), variant.name).toBeLessThan(RATES[index]! * 1.5);
    }
    // 24 requests a run do not reach the steady state where P99 E2E passes 4 s near 6 a
    // second (the example's 100 do): capacity is 8 or a crossing just below it.
    const capacity = report.benchmarks.at(-1)!;
    const measured = capacity.metrics.find((m) => m.id === 'capacity')?.current;
    expect(measured).toBeGreaterThanOrEqual(6);
    expect(measured).toBeLessThanOrEqual(8);
    expect(capacity.capacityCurve?.series.map((s) => s.metric)).toEqual([
      'e2el_p99',
      'slo_attainment',
    ]);
    expect(capacity.capacityCurve?.series[0]?.current.map((p) => p.load)).toEqual(RATES);
    const [first] = report.benchmarks;
    const startup = first?.result?.metrics.find((m) => m.id === 'server_startup');
    expect(startup?.values).toHaveLength(1);
    expect(startup!.values[0]).toBeGreaterThanOrEqual(1);
    expect(startup!.values[0]).toBeLessThan(10);
    expect(first?.server).toMatchObject({
      startupSeconds: startup!.values[0],
      starts: 1,
      logs: ['servers/qwen3-serve/server-1.clean.log'],
      stopped: expect.stringMatching(/^SIGTERM, /),
    });
    // Every request of every run was answered by that one server.
    const log = await readFile(
      join(workspace, 'perf-gate-output/servers/qwen3-serve/server-1.clean.log'),
      'utf8',
    );
    expect(log).toContain('Application startup complete.');
    const answered = log.match(/"POST \/v1\/completions HTTP\/1.1" 200 OK/g) ?? [];
    expect(answered).toHaveLength(RATES.length * 3 * (24 + 1));
    expect(log).toContain('Shutting down FastAPI HTTP server (SIGTERM).');
    // Latency grows with the load: the E2E median at 8 a second is above 1 a second's (24
    // requests do not reach the steady state, where the model gives 4.5 times).
    const p50 = (index: number) =>
      report.benchmarks[index]!.metrics.find((m) => m.id === 'e2el_p50')!.current!;
    expect(p50(4) / p50(0)).toBeGreaterThan(1.2);

    expect(run.summary).toMatch(
      /🖥️ \*\*Server\*\*: ready \*\*\d\.\d{2,3} s\*\* after it was launched, stopped: SIGTERM, [\d.]+ s; log `servers\/qwen3-serve\/server-1\.clean\.log` in the artifact\./,
    );
    expect(run.summary).toMatch(/\| server_startup \(s\) +\|/);
    // The server's log travels with each rate's artifact.
    const artifact = [...results.service.artifacts.values()].find((a) =>
      a.name.includes('qwen3-serve-rate-8'),
    );
    const names = readZip(artifact!.blob!).map((e) => e.name);
    expect(names).toContain('servers/qwen3-serve/server-1.clean.log');
  }, 240_000);

  it('fails with the server log when the server cannot start, leaving the baseline as it was', async () => {
    const before = '{"a": "baseline this run must not overwrite"}\n';
    await writeFile(join(workspace, 'baseline.json'), before);
    const run = await gate(
      workspace,
      'broken',
      { SIM_SEED: '2', SIM_SERVE_FAIL: 'start' },
      { 'save-baseline': 'baseline.json' },
    );
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('error');
    expect(await serverProcesses(port)).toEqual([]);
    expect(run.summary).toContain(
      'qwen3-serve/rate-1: run 1 (clean) failed: the server exited with code 1 before it was ready',
    );
    expect(run.summary).toContain('NRT_RESOURCE (4): out of device memory');
    expect(run.summary).toContain('🖥️ **Server**: never ready (see the error)');
    // Tried once: the later rates fail at once, pointing at the first.
    expect(run.summary).toContain('it is not tried again');
    expect(run.stdout).toMatch(
      /::error::neuron-perf-gate: qwen3-serve\/rate-1, .*qwen3-serve\/rate-8 failed to run/,
    );
    expect(await readFile(join(workspace, 'baseline.json'), 'utf8')).toBe(before);
  }, 120_000);
});

describe('a candidate whose latency grows 15% faster with load', () => {
  const results = useResultsService();

  it('fails on capacity while the P50 at the lowest rate stays within its threshold', async () => {
    // 40 requests a run at a tenth of the time reach the crossing inside the sweep with
    // an objective on the E2E median (about 4.3 a second here); no profiled run.
    const { workspace, port } = await workspaceWithExample((config) => {
      const edited = config
        .replace('e2el: { p99: 4s }', 'e2el: { p50: 2.5s }')
        .replace('profile: on-change', 'profile: false');
      expect(edited).not.toBe(config);
      return edited;
    });
    const env = { SIM_SERVE_SPEEDUP: '10', SIM_SERVE_PROMPTS: '40', ...results.env() };
    const base = await gate(
      workspace,
      'base',
      { ...env, SIM_SEED: '3' },
      { 'save-baseline': 'baseline.json' },
    );
    expect(base.code, base.stdout).toBe(0);
    const head = await gate(
      workspace,
      'head',
      { ...env, SIM_SEED: '4', SIM_SERVE_LOAD_GROWTH: '1.15' },
      { 'baseline-path': 'baseline.json' },
    );
    expect(head.code, head.stdout).toBe(1);
    expect(head.outputs.verdict).toBe('regression');
    expect(await serverProcesses(port)).toEqual([]);

    const report = JSON.parse(await readFile(head.outputs.report!, 'utf8')) as GateReport;
    const benchmark = (name: string) => report.benchmarks.find((b) => b.name === name)!;
    const capacity = benchmark('qwen3-serve/capacity').metrics.find((m) => m.id === 'capacity')!;
    expect(capacity.verdict).toBe('regression');
    expect(capacity.change).toBeLessThan(-0.05);
    const lowRate = benchmark('qwen3-serve/rate-1').metrics.find((m) => m.id === 'e2el_p50')!;
    expect(lowRate.verdict).not.toBe('regression');
    expect(Math.abs(lowRate.change!)).toBeLessThan(lowRate.threshold!);
    expect(head.summary).toMatch(/qwen3-serve\/capacity/);
  }, 300_000);
});

describe('a capacity loss the first look may leave open', () => {
  const results = useResultsService();

  it('runs the passes its looks ask for against the one server, every run counted', async () => {
    // Noisier runs (CV 3%), up to 4 passes (looks after 1, 2 and 4) and a 10% threshold: a
    // 13% capacity loss that 3 runs on a busy host often cannot tell from 10%. How many
    // passes it takes depends on the host (the simulated server queues in wall-clock
    // time); test/action/capacity.test.ts pins them on fixed files.
    const { workspace, port } = await workspaceWithExample((config) => {
      const edited = config
        .replace('e2el: { p99: 4s }', 'e2el: { p50: 2.5s }')
        .replace('profile: on-change', 'profile: false')
        .replace('confirm-runs: 1', 'confirm-runs: 4\n    thresholds: { capacity: 10% }');
      expect(edited).not.toBe(config);
      return edited;
    });
    const env = {
      SIM_SERVE_SPEEDUP: '10',
      SIM_SERVE_PROMPTS: '40',
      SIM_NOISE: '0.03',
      ...results.env(),
    };
    // The baseline from 3 gate runs, 3 stored records (the default window holds 5): with
    // one record of 3 runs, its noise alone would leave no number of passes able to settle it.
    const records = ['base-1.json', 'base-2.json', 'base-3.json'];
    for (const [i, file] of records.entries()) {
      const seed = `${5 + 10 * i}`;
      const base = await gate(
        workspace,
        `base-${i}`,
        { ...env, SIM_SEED: seed },
        {
          'save-baseline': file,
        },
      );
      expect(base.code, base.stdout).toBe(0);
    }
    const head = await gate(
      workspace,
      'head',
      { ...env, SIM_SEED: '6', SIM_SERVE_LOAD_GROWTH: '1.15' },
      { 'baseline-path': records.join('\n') },
    );
    expect(await serverProcesses(port)).toEqual([]);
    const report = JSON.parse(await readFile(head.outputs.report!, 'utf8')) as GateReport;
    expect(head.code).toBe(report.verdict === 'regression' ? 1 : 0);
    const variants = report.benchmarks.slice(0, RATES.length);
    const capacity = report.benchmarks.find((b) => b.name === 'qwen3-serve/capacity')!;
    const judged = capacity.metrics.find((m) => m.id === 'capacity')!;
    const passes = capacity.confirmation?.sweepPasses ?? 0;
    // As many passes as the plan's looks (0, 1, 2, 4) and no look left open.
    expect([0, 1, 2, 4], JSON.stringify(judged)).toContain(passes);
    expect(judged.worthConfirming).toBeUndefined();
    // Run r of every rate forms sweep r: the fewest runs a rate had, and a capacity a pass.
    const runsOf = (b: (typeof variants)[number]) => b.result!.runs.length;
    expect(capacity.result?.runs).toHaveLength(Math.min(...variants.map(runsOf)) + passes);
    // Every run, the passes' too, against the one server started for the sweep.
    expect(variants[0]?.server?.starts).toBe(1);
    const log = await readFile(
      join(workspace, 'perf-gate-output/servers/qwen3-serve/server-1.clean.log'),
      'utf8',
    );
    const answered = log.match(/"POST \/v1\/completions HTTP\/1.1" 200 OK/g) ?? [];
    const runs = variants.reduce((sum, b) => sum + runsOf(b), 0);
    expect(answered).toHaveLength((runs + (capacity.confirmation?.runs ?? 0)) * (40 + 1));
    expect(head.summary).toContain(
      passes > 0 ? `with ${passes} more pass(es) of the whole sweep (` : '**Capacity**',
    );
  }, 900_000);
});

describe('a gate cancelled while the server runs', () => {
  it('takes the server and its sandbox with it', async () => {
    const { workspace, port } = await workspaceWithExample();
    const gate = spawn(
      process.execPath,
      [CLI, 'run', '--config', '.github/perf-gate.yml', '--quiet'],
      { cwd: workspace, env: simulatorEnv({ ...FAST, SIM_SERVE_SPEEDUP: '1' }), stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((done) => gate.once('exit', (code) => done(code)));
    let ready = false;
    for (let i = 0; i < 200 && !ready; i += 1) {
      ready = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (!ready) await sleep(50);
    }
    expect(ready, 'the server became ready').toBe(true);
    expect(livePidsWith(`--port ${port}`).length).toBeGreaterThan(0);
    gate.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(await serverProcesses(port)).toEqual([]);
  }, 60_000);
});
