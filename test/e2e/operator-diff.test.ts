// Why it got slower, end to end on the simulator: the bundled action stores a push's profile
// (read from Neuron Explorer's tables), a pull request that slows one op fails and its
// comment names that op first with its share; a throttled profile is shown contaminated and
// not judged; an older profiler (summary-json only) and an unknown schema still give MFU.
// Through the bundled CLI: a run with new ECC events is left out of the verdict, another
// job's pid-0 runtime is told apart by its tag, and an A/B of two compilers names the ops
// the new one slowed.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import {
  pullRequestPayload,
  pushToMain,
  runActionProcess,
  simulatorInputs,
  type ActionEvent,
} from '../support/action-run.js';
import { CLI, runNode, SIMULATOR_BIN, simulatorEnv } from '../support/bundled.js';
import { gitIn } from '../support/git.js';
import { tempDir } from '../support/offline-result.js';
import { rerankConfig } from '../support/rerank-config.js';

const SLOWED_OP = 'NeuronQwen3DecoderLayer[5]/mlp.down_proj/aten.mm';

interface ReportMetric {
  id: string;
  verdict: string;
  reason: string;
}

describe('the operator diff through the bundled action (stored mode)', () => {
  let workspace: string;

  async function gate(label: string, event: ActionEvent, sim: Record<string, string>) {
    const run = await runActionProcess({
      workspace,
      label,
      event,
      inputs: simulatorInputs({
        profile: 'true',
        'baseline-store': 'file',
        'baseline-path': 'baseline.json',
        'out-dir': label,
        'github-token': '',
      }),
      env: { ...sim, PATH: `${SIMULATOR_BIN}:${process.env.PATH ?? ''}` },
    });
    const report = JSON.parse(await readFile(join(workspace, label, 'report.json'), 'utf8'));
    const benchmark = report.benchmarks[0];
    const metric = (id: string): ReportMetric =>
      benchmark.metrics.find((m: ReportMetric) => m.id === id);
    return { run, benchmark, metric };
  }

  const pullRequest: ActionEvent = {
    name: 'pull_request',
    payload: pullRequestPayload({ number: 12, headSha: 'd'.repeat(40) }),
    ref: 'refs/pull/12/merge',
    sha: 'e'.repeat(40),
  };

  beforeAll(async () => {
    workspace = await tempDir('perf-gate-opdiff-');
    const push = await gate('push', pushToMain('c'.repeat(40)), { SIM_SEED: '41' });
    expect(push.run.code, push.run.stdout).toBe(0);
    expect(push.benchmark.profile.source).toEqual({
      tables: 4,
      summaryJson: 0,
      schemas: ['7.4.0'],
    });
    const stored = await readFile(join(workspace, 'baseline.json'), 'utf8');
    expect(stored).toContain(SLOWED_OP);
  }, 180_000);

  it('fails a pull request that slows one op, and its comment names that op first with its share', async () => {
    // One op of one layer 12× slower: about 7% more device time per step.
    const pr = await gate('slower-op', pullRequest, {
      SIM_SEED: '42',
      SIM_SLOW_OPS: `op:${SLOWED_OP}=12`,
    });
    expect(pr.run.code, pr.run.stdout).toBe(1);
    expect(pr.run.outputs.verdict).toBe('regression');
    const diff = pr.benchmark.profileDiff;
    expect(diff.lead).toBe('ops');
    expect(diff.ops.named[0].op).toBe(SLOWED_OP);
    expect(diff.ops.named[0].share).toBeGreaterThan(0.8);
    expect(diff.ops.named[0].engine).toBe('tensor');
    expect(diff.base).toBe("the baseline's profile");
    const share = Math.round(diff.ops.named[0].share * 100);
    expect(pr.run.summary).toContain(`**Where the device time went** — \`${SLOWED_OP}\`: +`);
    expect(pr.run.summary).toContain(`**${share}% of the change**, tensor engine.`);
    expect(pr.run.summary).toContain('<summary>Top ops, collectives and roofline</summary>');
    expect(pr.run.summary).toMatch(/\| AllReduce · Ring · `\[\[0,1\]\]` +\| 224 → 224 \|/);
    expect(pr.run.summary).toMatch(/Roofline: base MFU [\d.]+% of [\d.]+% achievable; head MFU/);
    expect(pr.run.summary).toContain(
      'Read from the profile tables (schema 7.4.0) of 4 profiler call(s).',
    );
  }, 180_000);

  it('shows a throttled profile as contaminated and leaves its MFU and MBU out of the verdict', async () => {
    const pr = await gate('throttled', pullRequest, {
      SIM_SEED: '43',
      SIM_PROFILE_THROTTLE: '0.3',
    });
    expect(pr.run.code, pr.run.stdout).toBe(0);
    expect(pr.run.outputs.verdict).toBe('pass');
    expect(pr.benchmark.profile.contamination).toHaveLength(4);
    for (const id of ['mfu', 'mbu']) {
      expect(pr.metric(id).verdict).toBe('missing');
      expect(pr.metric(id).reason).toMatch(
        /contaminated profile, not judged: NeuronCore [01] throttled/,
      );
    }
    expect(pr.run.summary).toContain('**Contaminated profile: MFU and MBU are not judged.**');
  }, 180_000);

  it('reads summary-json from a profiler without tables, and refuses an unknown schema by name', async () => {
    const older = await gate('older', pullRequest, { SIM_SEED: '44', SIM_PROFILER_TABLES: '0' });
    expect(older.run.code, older.run.stdout).toBe(0);
    expect(older.benchmark.profile.source).toEqual({ tables: 0, summaryJson: 4, schemas: [] });
    expect(older.metric('mfu').verdict).not.toBe('missing');
    expect(older.benchmark.profileDiff).toBeUndefined();
    expect(older.run.summary).toContain('Read from summary-json of 4 profiler call(s).');

    const newer = await gate('newer', pullRequest, {
      SIM_SEED: '45',
      SIM_PROFILER_SCHEMA: '12.0.1',
    });
    expect(newer.run.code, newer.run.stdout).toBe(0);
    expect(newer.benchmark.profile.source.tables).toBe(0);
    expect(newer.metric('mfu').verdict).not.toBe('missing');
    expect(newer.benchmark.profile.warnings[0]).toMatch(
      /profile_schema_version is 12\.0\.1: a schema this gate does not read \(it reads 7\.x/,
    );
    expect(newer.run.summary).toContain('profile_schema_version is 12.0.1');
  }, 180_000);
});

describe('neuron-monitor health and runtimes through the bundled CLI', () => {
  const CONFIG = rerankConfig('timeout-minutes: 1', 'monitor: { period: 0.2s }');
  // Each run really takes about 1.5 s: several of neuron-monitor's periods.
  const SIM = { SIM_SLEEP: '0.03', SIM_SEED: '5' };
  let dir: string;

  async function gate(out: string, sim: Record<string, string>, extra: string[] = []) {
    const args = ['run', '--config', 'perf-gate.yml', '--out', out, '--quiet', ...extra];
    const result = await runNode(CLI, args, { cwd: dir, env: simulatorEnv({ ...SIM, ...sim }) });
    const report: GateReport = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8'));
    return { ...result, benchmark: report.benchmarks[0]! };
  }

  beforeAll(async () => {
    dir = await tempDir('perf-gate-health-');
    await writeFile(join(dir, 'perf-gate.yml'), CONFIG);
    const base = await gate('base', {}, ['--save-baseline', 'baseline.json']);
    expect(base.code, base.stderr).toBe(0);
  }, 120_000);

  it('leaves a run with new ECC events out of the verdict, and names it', async () => {
    const run = await gate('ecc', { SIM_ECC_EVENTS: '3', SIM_ECC_RUN: '2' }, [
      '--baseline',
      'baseline.json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const p50 = run.benchmark.result!.metrics.find(
      (m) => m.id === 'p50_time' || m.id === 'latency_p50',
    )!;
    expect(p50.values).toHaveLength(2);
    expect(run.benchmark.warnings).toContainEqual(
      expect.stringMatching(
        /^run 2 is left out of the verdict: neuron-monitor saw new ECC events on the device \(mem_ecc_corrected \+3\) while it ran/,
      ),
    );
    expect(run.stdout).toContain('run 2 is left out of the verdict');
  }, 120_000);

  it('gives no verdict when every run had execution errors', async () => {
    const run = await gate('errors', { SIM_EXECUTION_ERRORS: '2' }, [
      '--baseline',
      'baseline.json',
    ]);
    expect(run.benchmark.verdict).toBe('error');
    expect(run.benchmark.error).toMatch(
      /no clean run can be judged: run 1 is left out of the verdict: neuron-monitor saw 2 execution\(s\) ended in an error \(completed_with_err 2\)/,
    );
  }, 120_000);

  it("counts only the run's runtime by its tag where every pid is 0, beside another job's", async () => {
    const alone = await gate('alone', { SIM_MONITOR_PID: '0' });
    const shared = await gate('shared', { SIM_MONITOR_PID: '0', SIM_MONITOR_OTHER_RUNTIME: '1' });
    const device = (b: typeof alone.benchmark) =>
      b.result!.metrics.find((m) => m.id === 'device_memory_peak')!.values;
    expect(device(shared.benchmark)).toEqual(device(alone.benchmark));
    expect(shared.benchmark.warnings.join('\n')).not.toContain('Neuron runtimes');
  }, 120_000);
});

describe('an A/B of two compilers names the ops the new one slowed (bundled CLI)', () => {
  it('fails the head and names the slowed op kind first', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'perf-gate-ab-opdiff-'));
    const git = (args: string[]) => gitIn(repo, args);
    git(['init', '--quiet', '--initial-branch=main']);
    await writeFile(
      join(repo, 'perf-gate.yml'),
      `benchmarks:
  - name: reranker
    command: offline-benchmark --output-file "$PERF_GATE_OUTPUT"
    format: offline-benchmark
    runs: 3
    profile: true
    timeout-minutes: 2
`,
    );
    await writeFile(join(repo, '.gitignore'), 'perf-gate-ab/\n');
    git(['add', '-A']);
    git(['commit', '--quiet', '-m', 'config']);
    const [oldCc, newCc] = ['2.21.18209.0+043b1bf7', '2.22.5122.0+1c2d3e4f'];
    const result = await runNode(
      CLI,
      [
        'ab',
        '--config',
        'perf-gate.yml',
        '--base-env',
        `SIM_NEURONX_CC_VERSION=${oldCc}`,
        '--head-env',
        `SIM_NEURONX_CC_VERSION=${newCc}`,
      ],
      {
        cwd: repo,
        // The new compiler's down projection is 60% slower; nothing else changed.
        env: simulatorEnv({ SIM_COMPILER_SLOW_OPS: `${newCc}:mlp.down_proj/aten.mm=1.6` }),
      },
    );
    expect(result.code, result.stderr).toBe(1);
    const report: GateReport = JSON.parse(
      await readFile(join(repo, 'perf-gate-ab', 'report.json'), 'utf8'),
    );
    const diff = report.benchmarks[0]!.profileDiff!;
    expect(diff.base).toMatch(/^the base side's profile/);
    expect(diff.lead).toBe('kinds');
    expect(diff.kinds.named[0]!.op).toBe('NeuronQwen3DecoderLayer[*]/mlp.down_proj/aten.mm');
    expect(diff.kinds.named[0]!.share).toBeGreaterThan(0.8);
    expect(result.stdout).toContain(
      "**Where the device time went** — `NeuronQwen3DecoderLayer[*]/mlp.down_proj/aten.mm` (every layer's copy together)",
    );
    expect(result.stderr).toContain('so each side has 1 profiled run for the operator diff');
  }, 300_000);
});
