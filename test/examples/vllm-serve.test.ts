// examples/vllm-serve: its config loaded by the gate, its sample results read and judged as
// a user would see them, and the wrapper script the config's server block replaces run for
// real with a stand-in `vllm` on PATH (test/fixtures/vllm-serve/bin/vllm). The config runs
// through the bundled action on the simulator in test/e2e/vllm-serve.test.ts.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { parseResultFile } from '../../src/formats/index.js';
import { benchmarkResults } from '../formats/support.js';
import { ROOT } from '../support/bundled.js';
import { freePort } from '../support/ports.js';

const RECIPE = join(ROOT, 'examples', 'vllm-serve');
const FAKE_BIN = join(ROOT, 'test', 'fixtures', 'vllm-serve', 'bin');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function runRecipe(env: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'vllm-serve-'));
  const pids = join(dir, 'pids');
  await writeFile(pids, '');
  const output = join(dir, 'result.json');
  const result = await promisify(execFile)('bash', [join(RECIPE, 'serve-and-bench.sh')], {
    env: {
      ...process.env,
      PATH: `${FAKE_BIN}:${process.env.PATH}`,
      PERF_GATE_OUTPUT: output,
      PORT: String(await freePort()),
      FAKE_VLLM_PIDS: pids,
      FAKE_VLLM_RESULT: join(RECIPE, 'sample-result.json'),
      ...env,
    },
  }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
  const started = (await readFile(pids, 'utf8')).split('\n').filter(Boolean).map(Number);
  return { ...result, output, started };
}

describe('examples/vllm-serve/serve-and-bench.sh', () => {
  it('starts the server, waits for it, writes the result, and stops the server and its worker', async () => {
    const run = await runRecipe({});
    expect(run.code).toBe(0);
    expect(await readFile(run.output, 'utf8')).toBe(
      await readFile(join(RECIPE, 'sample-result.json'), 'utf8'),
    );
    expect(run.started).toHaveLength(2);
    expect(run.started.filter(alive)).toEqual([]);
  }, 30_000);

  it('fails with the end of the server log when the server exits before it is ready', async () => {
    const run = await runRecipe({ FAKE_VLLM_FAIL: '1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('vllm serve exited before it was ready');
    expect(run.stderr).toContain('RuntimeError: no Neuron devices found');
  }, 30_000);
});

describe('examples/vllm-serve config and samples', () => {
  it('is a config the gate loads: five rates against one server of Qwen3-0.6B on 2 NeuronCores', async () => {
    const config = await resolveGateConfig(
      { config: 'examples/vllm-serve/perf-gate.yml' },
      { workspace: ROOT },
    );
    expect(config.benchmarks.map((b) => [b.name, b.format, b.sweep?.params])).toEqual(
      [1, 2, 4, 6, 8].map((rate) => [
        `qwen3-serve/rate-${rate}`,
        'vllm-bench-serve',
        { 'request-rate': rate },
      ]),
    );
    const [first] = config.benchmarks;
    expect(first?.server).toMatchObject({
      command: expect.stringMatching(
        /^vllm serve Qwen\/Qwen3-0\.6B --port 8000 --tensor-parallel-size 2 /,
      ),
      readiness: { url: 'http://127.0.0.1:8000/health' },
      startTimeoutSeconds: 1200,
    });
    expect(first?.command).toContain('--request-rate "$PERF_GATE_PARAM_REQUEST_RATE"');
    expect(first?.command).toContain('--save-detailed --result-filename "$PERF_GATE_OUTPUT"');
    const sample = await parseResultFile(join(RECIPE, 'sample-result.json'), 'auto');
    const ids = sample.benchmarks[0]!.metrics.map((m) => m.id);
    for (const key of Object.keys(first!.thresholds)) expect(ids).toContain(key);
  });

  it('shows a user the comment of a slower server: the sample pair fails on throughput and TTFT', async () => {
    const side = async (name: string) => {
      const path = join(RECIPE, name);
      return benchmarkResults(await parseResultFile(path, 'auto'), path, 'qwen3-serve');
    };
    const [report] = judgeResults(
      await side('sample-result-slower.json'),
      { source: 'sample-result.json', benchmarks: await side('sample-result.json') },
      () => ({ throughput: 0.05, ttft_p99: 0.15, tpot_p50: 0.05 }),
      { confidence: 0.95, failOnInconclusive: false },
    );
    const regressed = report!.metrics.filter((m) => m.verdict === 'regression').map((m) => m.id);
    expect(regressed).toEqual(expect.arrayContaining(['throughput', 'ttft_p99']));
    expect(regressed).not.toContain('tpot_p50');
  });
});
