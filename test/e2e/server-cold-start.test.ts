// startup: { cold: true } beside server: on the simulator, through the bundled CLI: the gate
// starts `vllm serve` once more on an empty compile cache of its own before the measured
// runs; that start compiles the model's graphs (its log says how many and how long), is
// timed launch → ready as cold_startup, and leaves the test's cache as it was. The measured
// runs' server start uses the test's cache: it compiles into it when it is empty (the first
// gate run) and loads from it after (the second), and report.json and the comment say so.
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { freePort } from '../support/ports.js';

interface MetricRow {
  id: string;
  verdict: string;
  current: number | null;
}

// SIM_SLEEP: the 4 graphs' ~320 simulated seconds of compiling take ~3.2 s of real time;
// loading them from the cache 8 ms. The server is ready 0.5 s after that.
const SIM = {
  SIM_SLEEP: '0.01',
  SIM_SERVE_STARTUP: '0.5',
  SIM_SERVE_SPEEDUP: '25',
  SIM_SERVE_PROMPTS: '12',
};

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
      --num-prompts 12 --request-rate 4 --save-result --result-filename "$PERF_GATE_OUTPUT"
    runs: 2
    confirm-runs: 0
    profile: false
    startup: { cold: true }
`;
}

/** The complete entries (with their NEFF) of a compile cache folder. */
async function cacheEntries(cache: string): Promise<string[]> {
  const entries: string[] = [];
  for (const version of await readdir(cache).catch(() => [] as string[])) {
    for (const module of await readdir(join(cache, version))) {
      const files = await readdir(join(cache, version, module)).catch(() => [] as string[]);
      if (files.includes('model.neff')) entries.push(`${version}/${module}`);
    }
  }
  return entries.sort();
}

describe('startup: { cold: true } with a server, on the simulator', () => {
  let dir: string;
  let cache: string;
  let env: Record<string, string>;

  async function gate(out: string, extra: string[]) {
    const args = ['run', '--config', 'perf-gate.yml', '--out', out, '--quiet', ...extra];
    const result = await runNode(CLI, args, { cwd: dir, env });
    const text = await readFile(join(dir, out, 'report.json'), 'utf8').catch(() => {
      throw new Error(`no report.json (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    });
    const report = JSON.parse(text);
    const benchmark = report.benchmarks[0];
    const metric = (id: string) => (benchmark.metrics as MetricRow[]).find((m) => m.id === id);
    return { ...result, benchmark, metric };
  }

  beforeAll(async () => {
    dir = await tempDir('perf-gate-server-cold-');
    // The test's own compile cache, empty: the first gate run's server fills it.
    cache = join(dir, 'compile-cache');
    env = simulatorEnv({ ...SIM, NEURON_COMPILE_CACHE_URL: cache });
    await writeFile(join(dir, 'perf-gate.yml'), config(await freePort()));
  });

  it(
    'compiles on the cold start and into an empty cache, then loads from the cache',
    { timeout: 240_000 },
    async () => {
      const first = await gate('first', ['--save-baseline', 'baseline.json']);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const cold = first.benchmark.result.startup.cold;
      expect(cold).toMatchObject({ graphsCompiled: 4, log: 'servers/qwen3-serve/server-cold.log' });
      // 95 s for each context-encoding graph, 60 s for each token-generation one (±5%).
      expect(cold.compileSeconds).toBeGreaterThan(280);
      expect(cold.compileSeconds).toBeLessThan(360);
      expect(await cacheEntries(cache)).toHaveLength(4);
      // The measured runs' server found the test's cache empty: it compiled the same 4 graphs.
      expect(first.benchmark.result.compileCache).toMatchObject({
        dir: cache,
        graphsCompiled: 4,
        cached: 0,
        coldBefore: true,
        compileTimeFrom: 'log',
      });
      expect(first.benchmark.result.startup.serverStarts).toEqual({
        starts: 1,
        graphsLoaded: 0,
        graphsCompiled: 4,
      });
      const before = await cacheEntries(cache);

      const second = await gate('second', ['--baseline', 'baseline.json']);
      expect(second.code, second.stdout + second.stderr).toBe(0);
      const { result } = second.benchmark;
      // The cold start compiled all 4 again, into a folder of its own, gone now.
      expect(result.startup.cold.graphsCompiled).toBe(4);
      expect(result.startup.cold.compileSeconds).toBeGreaterThan(280);
      expect(await cacheEntries(cache)).toEqual(before);
      expect((await readdir(join(dir, 'second'))).filter((n) => n.startsWith('.cold'))).toEqual([]);
      // The warm start: every graph loaded from the test's cache, none compiled.
      expect(result.startup.serverStarts).toEqual({
        starts: 1,
        graphsLoaded: 4,
        graphsCompiled: 0,
      });
      expect(result.compileCache).toMatchObject({ graphsCompiled: 0, cached: 4, compiled: [] });
      expect(second.metric('graphs_compiled')?.current).toBe(0);
      expect(second.metric('graphs_cached')?.current).toBe(4);
      // ~3.2 s of compiling before the same 0.5 s load as the warm start.
      const coldStartup = second.metric('cold_startup')!;
      expect(coldStartup.current! - second.metric('server_startup')!.current!).toBeGreaterThan(2);
      expect(coldStartup.verdict).not.toBe('new');
      expect(second.metric('cold_compile_time')?.current).toBeGreaterThan(280);
      // No benchmark_startup: the client's start is not the server's (server_startup is).
      expect(second.metric('benchmark_startup')).toBeUndefined();
      expect(second.stdout).toMatch(
        /⏱️ \*\*Start-up\*\*: the server's clean start \(server_startup\) loaded 4 graphs from the compile cache and compiled none; cold \(an empty compile cache\): \*\*\d\.\d+ s \([+−±]\d+\.\d%\)\*\* \(4 graphs compiled, compiling \d+ min \d+ s( \([+−±]\d+\.\d%\))?\)\./,
      );
      expect(second.stdout).toContain('0 graphs compiled, 4 graphs loaded from the cache');
      const log = await readFile(
        join(dir, 'second', 'servers/qwen3-serve/server-cold.log'),
        'utf8',
      );
      expect(log).toContain(
        'INFO ||NEURON_CC_WRAPPER||: Exiting with a successfully compiled graph.',
      );
    },
  );
});
