// `sweep: settings:` through the bundled CLI on the simulator: three values of the
// simulated `vllm serve`'s --max-num-seqs × five request rates, 3 runs each. The server is
// restarted per setting with the setting's parameter (PERF_GATE_PARAM_MAX_NUM_SEQS); each
// setting gets its capacity under the SLO with an interval, the best is named (the
// highest median capacity) and gated over time as `serve/best-setting`; a second run whose
// server is 10% slower (SIM_SLOWDOWN 1.1: each of a setting's slots serves 10% fewer
// requests a second) fails against the first as its baseline, and the comment says the best
// setting's capacity fell. The simulated server queues what exceeds --max-num-seqs
// (lib/scheduler.mjs), so the capacity grows with it (about 1.1, 2.2 and 4.4 a second
// here). Arrivals are near-even (--burstiness 100): 40 Poisson arrivals a run scatter the
// capacity of one run by a third, which no 3 runs could tell from a 10% loss.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { freePort } from '../support/ports.js';

const SEQS = [4, 8, 16];
// Finer where the best setting's capacity lies (about 4.4 a second), so that a 10% loss moves it.
const RATES = [1, 2, 3, 4.5, 6];
const SETTINGS = SEQS.map((seqs) => `max-num-seqs-${seqs}`);
/** The simulated server 10× faster than inf2's time, 40 requests a run, ready after 1 s. */
const SERVE = { SIM_SERVE_SPEEDUP: '10', SIM_SERVE_PROMPTS: '40', SIM_SERVE_STARTUP: '1' };

function config(port: number): string {
  return [
    'price-per-hour: 0.7582',
    'benchmarks:',
    '  - name: serve',
    '    format: vllm-bench-serve',
    '    server:',
    '      command: >-',
    `        vllm serve Qwen/Qwen3-0.6B --port ${port} --tensor-parallel-size 2`,
    '        --max-num-seqs "$PERF_GATE_PARAM_MAX_NUM_SEQS" --max-model-len 2048',
    `      ready-url: http://127.0.0.1:${port}/health`,
    '      start-timeout: 2m',
    '    command: >-',
    `      vllm bench serve --model Qwen/Qwen3-0.6B --base-url http://127.0.0.1:${port}`,
    '      --dataset-name random --random-input-len 512 --random-output-len 128',
    '      --num-prompts 100 --request-rate "$PERF_GATE_PARAM_REQUEST_RATE" --burstiness 100',
    '      --percentile-metrics ttft,tpot,itl,e2el --save-result --save-detailed',
    '      --result-filename "$PERF_GATE_OUTPUT"',
    '    slo:',
    '      ttft: 500ms',
    '      tpot: 50ms',
    '      e2el: { p50: 2.8s }',
    '    sweep:',
    '      settings:',
    ...SEQS.map((seqs) => `        - { max-num-seqs: ${seqs} }`),
    '      variants:',
    ...RATES.map((rate) => `        - { name: rate-${rate}, request-rate: ${rate} }`),
    '    runs: 3',
    '    confirm-runs: 2',
    '    profile: false',
    '    timeout-minutes: 3',
    '',
  ].join('\n');
}

let workspace: string;

beforeAll(async () => {
  workspace = await tempDir('perf-gate-server-settings-');
  await writeFile(join(workspace, 'perf-gate.yml'), config(await freePort()));
});

async function gate(out: string, args: string[], env: Record<string, string>) {
  const result = await runNode(
    CLI,
    ['run', '--config', 'perf-gate.yml', '--out', out, '--quiet', ...args],
    { cwd: workspace, env: simulatorEnv({ ...SERVE, ...env }) },
  );
  const read = (name: string) => readFile(join(workspace, out, name), 'utf8');
  const report = JSON.parse(await read('report.json')) as GateReport;
  return { result, report, comment: await read('comment.md') };
}

describe('sweep: settings: on the simulated vllm serve, through the bundled CLI', () => {
  let first: Awaited<ReturnType<typeof gate>>;

  it('gives each setting its capacity with an interval, on a server of its own, and names the best', async () => {
    first = await gate('out-1', ['--save-baseline', 'baseline.json'], { SIM_SEED: '1' });
    const { result, report, comment } = first;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const names = report.benchmarks.map((b) => b.name);
    for (const setting of SETTINGS) {
      for (const rate of RATES) expect(names).toContain(`serve/${setting}/rate-${rate}`);
      expect(names).toContain(`serve/${setting}/capacity`);
    }
    expect(names.at(-1)).toBe('serve/best-setting');
    // One server per setting, started with that setting's --max-num-seqs.
    for (const [index, setting] of SETTINGS.entries()) {
      const firstRate = report.benchmarks.find((b) => b.name === `serve/${setting}/rate-1`)!;
      const logs = firstRate.server?.logs ?? [];
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(
        new RegExp(`^servers/serve-${setting}-[0-9a-f]{8}/server-1\\.clean\\.log$`),
      );
      const log = await readFile(join(workspace, 'out-1', logs[0]!), 'utf8');
      expect(log).toMatch(new RegExp(`non-default args: .*"--max-num-seqs":${SEQS[index]}[,}]`));
    }

    const [view] = report.serverSettings!;
    expect(view?.entry).toBe('serve');
    expect(view?.rows.map((row) => row.setting)).toEqual(SETTINGS);
    for (const row of view!.rows) {
      expect(row.capacity, row.setting).toBeGreaterThan(0);
      // A run whose SLO failed at the lowest load already gives no capacity.
      expect(row.runs, row.setting).toBeGreaterThanOrEqual(2);
      const [low, high] = row.interval!;
      expect(low).toBeLessThanOrEqual(row.capacity!);
      expect(high).toBeGreaterThanOrEqual(row.capacity!);
      expect(row.goodput, row.setting).toBeGreaterThan(0);
      expect(row.costPerMillionTokens, row.setting).toBeGreaterThan(0);
    }
    // The best is the setting with the highest median capacity, and only it is marked.
    const highest = Math.max(...view!.rows.map((row) => row.capacity!));
    const best = view!.rows.filter((row) => row.best);
    expect(best).toHaveLength(1);
    expect(best[0]!.capacity).toBe(highest);
    expect(view!.best.setting).toBe(best[0]!.setting);
    // The simulated server queues beyond --max-num-seqs: more slots, more capacity.
    const [four, , sixteen] = view!.rows.map((row) => row.capacity!);
    expect(sixteen).toBeGreaterThan(1.5 * four!);
    expect(view!.best.setting).toBe('max-num-seqs-16');
    const bestBenchmark = report.benchmarks.at(-1)!;
    const capacity = bestBenchmark.metrics.find((m) => m.id === 'capacity')!;
    expect(capacity.current).toBe(highest);
    expect(bestBenchmark.verdict).toBe('no-baseline');
    expect(comment).toContain('### Server settings of serve: capacity under the SLO');
    expect(comment).toContain(`${best[0]!.setting} ★ best`);
    expect(comment).toContain(`**Best setting** ${best[0]!.setting}: capacity`);
    console.log(
      view!.rows
        .map((r) => `${r.setting}: ${r.capacity} [${r.interval!.join(', ')}] ${r.verdict}`)
        .join('\n'),
    );
  }, 900_000);

  it("fails a server 10% slower, and says the best setting's capacity fell", async () => {
    expect(first, 'the first run made the baseline').toBeDefined();
    const { result, report, comment } = await gate('out-2', ['--baseline', 'baseline.json'], {
      SIM_SEED: '2',
      SIM_SLOWDOWN: '1.1',
    });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(report.verdict).toBe('regression');
    const best = report.benchmarks.find((b) => b.name === 'serve/best-setting')!;
    const capacity = best.metrics.find((m) => m.id === 'capacity')!;
    expect(capacity.change).toBeLessThan(0);
    expect(best.verdict).toBe('regression');
    expect(comment).toMatch(
      /The best setting's capacity fell \d+(\.\d)?% against the stored best's/,
    );
    console.log(
      `best-setting: ${capacity.baseline} → ${capacity.current} (${capacity.change}, ${capacity.ci?.join(' to ')}) ${capacity.verdict}`,
    );
  }, 900_000);
});
