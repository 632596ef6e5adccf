// monitor: on the simulator, through the bundled CLI: a 20% rise of device memory fails on
// device_memory_peak, an unchanged run passes, and after every gate exit (a pass, a
// regression, a failed benchmark, a benchmark that timed out, a cancelled gate) nothing of
// neuron-monitor or the benchmark is left in /proc.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { rerankConfig } from '../support/rerank-config.js';
import { livePidsWith, whileRunning } from '../support/processes.js';

// SIM_SLEEP: each run really takes about 1.5 s, several of neuron-monitor's periods.
const SIM = { SIM_SLEEP: '0.03', SIM_SEED: '3' };

const config = (timeoutMinutes = 1) =>
  rerankConfig(`timeout-minutes: ${timeoutMinutes}`, 'monitor: { period: 0.2s }');

interface MetricRow {
  id: string;
  verdict: string;
  change: number | null;
  reason?: string;
}

/** Processes whose command line names a file of `dir`: the monitors and the benchmark. */
async function leftIn(dir: string): Promise<number[]> {
  await whileRunning(() => livePidsWith(dir).length > 0);
  return livePidsWith(dir);
}

async function gate(dir: string, out: string, sim: Record<string, string>, extra: string[] = []) {
  const args = ['run', '--config', 'perf-gate.yml', '--out', out, '--quiet', ...extra];
  const result = await runNode(CLI, args, { cwd: dir, env: simulatorEnv({ ...SIM, ...sim }) });
  const report = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8'));
  return { ...result, report, metrics: report.benchmarks[0].metrics as MetricRow[] };
}

describe('monitor: on the simulator', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('perf-gate-memory-');
    await writeFile(join(dir, 'perf-gate.yml'), config());
    const first = await gate(dir, 'base', {}, ['--save-baseline', 'baseline.json']);
    expect(first.code).toBe(0);
    const device = first.report.benchmarks[0].result.metrics.find(
      (m: { id: string }) => m.id === 'device_memory_peak',
    );
    // 2 NeuronCores × the excerpt's core-0 breakdown, one value per clean run.
    expect(device.values).toEqual(
      Array(3)
        .fill((2 * 1652512064) / 1024 ** 2)
        .map((v) => expect.closeTo(v, 3)),
    );
    expect(await leftIn(dir)).toEqual([]);
  });

  it('fails on device_memory_peak when device memory grows 20%, and leaves nothing running', async () => {
    const result = await gate(dir, 'grown', { SIM_DEVICE_MEMORY_GROWTH: '1.2' }, [
      '--baseline',
      'baseline.json',
    ]);
    expect(result.code).toBe(1);
    const device = result.metrics.find((m) => m.id === 'device_memory_peak')!;
    expect(device.verdict).toBe('regression');
    expect(device.change).toBeCloseTo(0.2, 3);
    expect(device.reason).toMatch(/20\.0% higher .*beyond the 10% threshold/);
    // Only device memory moved: the timings and the host RSS did not fail.
    const failed = result.metrics.filter((m) => m.verdict === 'regression').map((m) => m.id);
    expect(failed).toEqual(['device_memory_peak']);
    expect(result.stdout).toMatch(/🧠 \*\*Memory\*\* .*device peak \*\*3,782 MiB \(\+20\.0%\)\*\*/);
    expect(result.stdout).toMatch(/\| device_memory_peak \(MiB\) .*❌ regression/);
    expect(await leftIn(dir)).toEqual([]);
  });

  it('passes an unchanged run, its memory unchanged, and leaves nothing running', async () => {
    const result = await gate(dir, 'same', { SIM_SEED: '4' }, ['--baseline', 'baseline.json']);
    expect(result.code).toBe(0);
    expect(result.report.verdict).toBe('pass');
    const device = result.metrics.find((m) => m.id === 'device_memory_peak')!;
    expect(device.verdict).toBe('unchanged');
    expect(device.change).toBeCloseTo(0, 6);
    expect(result.metrics.find((m) => m.id === 'host_rss_peak')!.verdict).toBe('unchanged');
    expect(await leftIn(dir)).toEqual([]);
  });

  it('stops neuron-monitor when the benchmark fails', async () => {
    const result = await gate(dir, 'failed', { SIM_FAIL: 'nrt' });
    expect(result.code).toBe(3);
    expect(result.report.verdict).toBe('error');
    const samples = await readFile(
      join(dir, 'failed', 'runs', 'rerank', 'run-1.clean.neuron-monitor.jsonl'),
      'utf8',
    );
    expect(samples.split('\n').filter(Boolean).length).toBeGreaterThan(0);
    expect(await leftIn(dir)).toEqual([]);
  });

  it('stops neuron-monitor and the benchmark when the benchmark times out', async () => {
    const hung = await tempDir('perf-gate-memory-hung-');
    await writeFile(join(hung, 'perf-gate.yml'), config(0.05));
    const result = await gate(hung, 'out', { SIM_HANG: '1' });
    expect(result.code).toBe(3);
    expect(result.report.benchmarks[0].error).toMatch(/timeout-minutes|timed out/);
    const samples = await readFile(
      join(hung, 'out', 'runs', 'rerank', 'run-1.clean.neuron-monitor.jsonl'),
      'utf8',
    );
    expect(samples.split('\n').filter(Boolean).length).toBeGreaterThan(5);
    expect(await leftIn(hung)).toEqual([]);
  });

  it('takes neuron-monitor with it when the gate is cancelled', async () => {
    const cancelled = await tempDir('perf-gate-memory-cancel-');
    await writeFile(join(cancelled, 'perf-gate.yml'), config());
    const child = spawn(process.execPath, [CLI, 'run', '--config', 'perf-gate.yml', '--quiet'], {
      cwd: cancelled,
      env: simulatorEnv({ ...SIM, SIM_HANG: '1' }),
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const runDir = join(cancelled, 'perf-gate-output', 'runs', 'rerank');
    const monitor = () => livePidsWith(join(runDir, 'run-1.clean.neuron-monitor.conf'));
    const benchmark = () => livePidsWith(join(runDir, 'run-1.clean.json'));
    for (let i = 0; i < 100 && (monitor().length === 0 || benchmark().length === 0); i += 1) {
      await sleep(100);
    }
    expect(monitor().length, 'neuron-monitor runs').toBeGreaterThan(0);
    expect(benchmark().length, 'the benchmark runs').toBeGreaterThan(0);
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(await leftIn(cancelled)).toEqual([]);
  });
});
