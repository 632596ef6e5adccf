// The server's host memory on the simulator, through the bundled CLI: with `monitor:` a
// served benchmark reports server_rss_peak, the simulated `vllm serve`'s process tree (its
// weights and sequence slots, lib/serve-host-memory.mjs, and Node's own), apart from
// host_rss_peak, the client's (`vllm bench serve`); a build whose server holds 30% more
// host memory fails on server_rss_peak while host_rss_peak passes, and an unchanged one
// passes. The gate runs the server and the client in its sandbox (bubblewrap here), so the
// server's processes are found by their marker there too.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { freePort } from '../support/ports.js';
import { livePidsWith, whileRunning } from '../support/processes.js';

interface MetricRow {
  id: string;
  verdict: string;
  current: number | null;
  change: number | null;
  reason?: string;
}

const SIM = {
  SIM_SERVE_STARTUP: '0.5',
  SIM_SERVE_SPEEDUP: '25',
  SIM_SERVE_PROMPTS: '24',
  SIM_NOISE: '0',
};
/**
 * What the simulated server holds with --max-num-seqs 8 --max-model-len 2048: 128 MiB of
 * weights and 8 × 2048 tokens × 1 KiB of slots (serve-host-memory.mjs).
 */
const HELD_MIB = 144;
/**
 * Beside that, the server's tree holds Node's own (53 MiB: VmRSS 196.8 MiB of `vllm serve`
 * alone) and the sandbox's bubblewrap and shell (72 MiB in all here: server_rss_peak 216.4
 * MiB). The bound leaves room for a heavier Node on another machine and is below what the
 * server holds, so a tree counted twice, or counted with the client, fails it.
 */
const OVERHEAD_MIB = 120;

function config(port: number): string {
  const url = `http://127.0.0.1:${port}`;
  return `benchmarks:
  - name: qwen3-serve
    format: vllm-bench-serve
    server:
      command: vllm serve Qwen/Qwen3-0.6B --port ${port} --tensor-parallel-size 2 --max-num-seqs 8 --max-model-len 2048
      ready-url: ${url}/health
      start-timeout: 2m
      stop-grace-period: 5s
    command: >-
      vllm bench serve --model Qwen/Qwen3-0.6B --base-url ${url}
      --dataset-name random --random-input-len 64 --random-output-len 16
      --num-prompts 24 --request-rate 8 --save-result --result-filename "$PERF_GATE_OUTPUT"
    runs: 3
    confirm-runs: 0
    profile: false
    monitor: { period: 0.2s }
`;
}

describe("the server's host memory, gated apart from the client's, on the simulator", () => {
  let dir: string;
  let port: number;

  async function gate(out: string, sim: Record<string, string>, extra: string[]) {
    const args = ['run', '--config', 'perf-gate.yml', '--out', out, '--quiet', ...extra];
    const env = simulatorEnv({ ...SIM, ...sim });
    const result = await runNode(CLI, args, { cwd: dir, env });
    const report = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8'));
    const benchmark = report.benchmarks[0];
    const metric = (id: string) => (benchmark.metrics as MetricRow[]).find((m) => m.id === id);
    const values = (id: string): number[] =>
      benchmark.result.metrics.find((m: { id: string }) => m.id === id)?.values ?? [];
    return { ...result, report, benchmark, metric, values };
  }

  /** Nothing of the server left: its port is in the command lines of its processes. */
  async function serverLeft(): Promise<number[]> {
    await whileRunning(() => livePidsWith(`--port ${port}`).length > 0);
    return livePidsWith(`--port ${port}`);
  }

  beforeAll(async () => {
    dir = await tempDir('perf-gate-server-memory-');
    port = await freePort();
    await writeFile(join(dir, 'perf-gate.yml'), config(port));
  });

  it("reports the server's footprint as server_rss_peak and the client's as host_rss_peak", async () => {
    const first = await gate('base', { SIM_SEED: '1' }, ['--save-baseline', 'baseline.json']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const server = first.values('server_rss_peak');
    const client = first.values('host_rss_peak');
    expect(server).toHaveLength(3);
    expect(client).toHaveLength(3);
    for (const value of server) {
      expect(value).toBeGreaterThan(HELD_MIB);
      expect(value).toBeLessThan(HELD_MIB + OVERHEAD_MIB);
    }
    // The client holds none of the server's buffers: below what the server holds alone.
    for (const value of client) {
      expect(value).toBeGreaterThan(10);
      expect(value).toBeLessThan(HELD_MIB);
    }
    expect(
      first.benchmark.result.metrics.find((m: { id: string }) => m.id === 'server_rss_peak'),
    ).toMatchObject({ unit: 'MiB', direction: 'lower-is-better' });
    expect(first.stdout).toMatch(
      /host peak RSS: server \*\*\d{3}\.\d MiB\*\*, client \*\*\d+\.\d+ MiB\*\*/,
    );
    expect(await serverLeft()).toEqual([]);
  });

  it('fails on server_rss_peak when the server holds 30% more, host_rss_peak passing', async () => {
    const grown = await gate('grown', { SIM_SEED: '2', SIM_SERVE_HOST_MEMORY: '1.3' }, [
      '--baseline',
      'baseline.json',
    ]);
    expect(grown.code, grown.stdout + grown.stderr).toBe(1);
    const server = grown.metric('server_rss_peak')!;
    expect(server.verdict).toBe('regression');
    // 43 MiB more of 216: +20%, beyond the 10% threshold.
    expect(server.change).toBeGreaterThan(0.15);
    expect(server.change).toBeLessThan(0.3);
    expect(server.reason).toMatch(/higher .*beyond the 10% threshold/);
    expect(grown.metric('host_rss_peak')!.verdict).not.toBe('regression');
    const failed = grown.benchmark.metrics.filter((m: MetricRow) => m.verdict === 'regression');
    expect(failed.map((m: MetricRow) => m.id)).toEqual(['server_rss_peak']);
    expect(grown.stdout).toMatch(/\| server_rss_peak \(MiB\) .*❌ regression/);
    expect(grown.stdout).toMatch(
      /host peak RSS: server \*\*\d{3}\.\d MiB \(\+\d{2}\.\d%\)\*\*, client/,
    );
    expect(await serverLeft()).toEqual([]);
  });

  it('passes server_rss_peak when the server holds what it held', async () => {
    const same = await gate('same', { SIM_SEED: '3' }, ['--baseline', 'baseline.json']);
    const server = same.metric('server_rss_peak')!;
    expect(server.verdict).toBe('unchanged');
    expect(Math.abs(server.change!)).toBeLessThan(0.05);
    expect(same.metric('host_rss_peak')!.verdict).not.toBe('regression');
    expect(await serverLeft()).toEqual([]);
  });
});
