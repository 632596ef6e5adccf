// The compile cache end to end: the bundled CLI on the simulator, whose benchmark fills a
// compile cache on first use and reads it afterwards. New compiler flags miss the cache and
// fail with "recompiled N graphs the baseline loaded from cache" and the compile time; a
// simulated compiler upgrade misses it too, by design, and passes with its recompile named;
// an unchanged run passes.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

// A compiler upgrade changes the environment fingerprint: compared loosely, as an SDK
// upgrade's pull request is (docs/compile-cache.md).
const CONFIG = `baseline-match: loose
benchmarks:
  - name: qwen3-reranker
    command: offline-benchmark
    format: offline-benchmark
    runs: 3
    profile: false
    timeout-minutes: 1
`;
/** The simulator's neuronx-cc, unless SIM_NEURONX_CC_VERSION says otherwise. */
const COMPILER = '2.21.18209.0+043b1bf7';
const UPGRADE = '2.22.5122.0+1c2d3e4f';

describe('the compile cache, gated (bundled CLI on the simulator)', () => {
  let dir: string;
  let sim: Record<string, string>;
  const run = (args: string[], extra: Record<string, string> = {}) =>
    runNode(CLI, ['run', '--config', 'perf-gate.yml', '--quiet', ...args], {
      cwd: dir,
      env: simulatorEnv({ ...sim, ...extra }),
    });

  beforeAll(async () => {
    dir = await tempDir('perf-gate-compile-cache-');
    await writeFile(join(dir, 'perf-gate.yml'), CONFIG);
    // Noise-free figures: only the compile cache may move between these runs.
    sim = { NEURON_COMPILE_CACHE_URL: join(dir, 'cache'), SIM_NOISE: '0', SIM_OUTLIERS: '0' };
    // The first run of a runner compiles every graph; the baseline is a warm one.
    const cold = await run(['--out', 'cold']);
    expect(cold.code, cold.stderr).toBe(0);
    expect(cold.stdout).toMatch(/4 graphs compiled in \d+ min \d+ s, 0 graphs loaded/);
    const warm = await run(['--out', 'warm', '--save-baseline', 'baseline.json']);
    expect(warm.stderr).toContain('baseline saved');
    expect(warm.stdout).toContain('0 graphs compiled, 4 graphs loaded from the cache');
  });

  it('passes an unchanged run, every graph from the cache', async () => {
    const result = await run(['--baseline', 'baseline.json', '--out', 'same']);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('no performance regression');
    expect(result.stdout).toContain('0 graphs compiled, 4 graphs loaded from the cache.');
    expect(result.stdout).not.toContain('recompiled');
    const report = JSON.parse(await readFile(join(dir, 'same', 'report.json'), 'utf8'));
    const compiled = report.benchmarks[0].metrics.find(
      (m: { id: string }) => m.id === 'graphs_compiled',
    );
    expect(compiled).toMatchObject({ baseline: 0, current: 0, verdict: 'unchanged' });
  });

  it('fails new compiler flags that miss the cache, with the graphs and the compile time', async () => {
    const result = await run(['--baseline', 'baseline.json', '--out', 'flags'], {
      NEURON_CC_FLAGS: '--optlevel=3',
    });
    expect(result.code, result.stdout).toBe(1);
    const reason =
      /recompiled 4 graphs the baseline loaded from cache \(compile time (\d+) min (\d+) s\): neuronxcc-2\.21\.18209\.0\\?\+043b1bf7\/MODULE\\?_[0-9a-f]{20}\\?\+[0-9a-f]{8}/;
    expect(result.stdout).toMatch(reason);
    const report = JSON.parse(await readFile(join(dir, 'flags', 'report.json'), 'utf8'));
    const [benchmark] = report.benchmarks;
    expect(report.verdict).toBe('regression');
    expect(benchmark.verdict).toBe('regression');
    const byId = (id: string) => benchmark.metrics.find((m: { id: string }) => m.id === id);
    expect(byId('graphs_compiled')).toMatchObject({
      baseline: 0,
      current: 4,
      verdict: 'regression',
    });
    expect(byId('graphs_compiled').reason).toMatch(
      /^recompiled 4 graphs the baseline loaded from cache/,
    );
    // The timings did not move: the cache alone fails the run.
    expect(byId('throughput').verdict).toBe('unchanged');
    const cache = benchmark.result.compileCache;
    expect(cache.compiled).toHaveLength(4);
    expect(cache.compiled.every((e: string) => e.startsWith(`neuronxcc-${COMPILER}/MODULE_`))).toBe(
      true,
    );
    // Four graphs at ~95 s and ~60 s of simulated compile time each, from the log lines.
    expect(cache.compileTimeFrom).toBe('log');
    expect(cache.compileSeconds).toBeGreaterThan(250);
    expect(cache.compileSeconds).toBeLessThan(380);
    expect(byId('compile_time')).toMatchObject({ current: cache.compileSeconds, verdict: 'new' });
    const [, minutes, seconds] = reason.exec(result.stdout)!;
    expect(Number(minutes) * 60 + Number(seconds)).toBeCloseTo(cache.compileSeconds, -1);
  });

  it('passes an unchanged run on a wiped cache, saying the cache keys cannot be told', async () => {
    // A new or re-imaged runner: the cache holds nothing, so every graph is compiled.
    const result = await run(['--baseline', 'baseline.json', '--out', 'wiped'], {
      NEURON_COMPILE_CACHE_URL: join(dir, 'wiped-cache'),
    });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('no performance regression');
    expect(result.stdout).toMatch(
      /ℹ️ compiled 4 graphs on a compile cache that held none for neuronx-cc 2\.21\.18209\.0\\?\+043b1bf7 before the run \(a new or wiped runner\): whether the cache keys changed cannot be told/,
    );
    const report = JSON.parse(await readFile(join(dir, 'wiped', 'report.json'), 'utf8'));
    const [benchmark] = report.benchmarks;
    expect(benchmark.result.compileCache).toMatchObject({ graphsCompiled: 4, coldBefore: true });
    expect(benchmark.metrics.find((m: { id: string }) => m.id === 'graphs_compiled')).toMatchObject(
      { baseline: 0, current: 4, verdict: 'unchanged' },
    );
    expect(report.verdict).toBe('pass');
  });

  it('passes a compiler upgrade that misses the cache, naming the recompile under both versions', async () => {
    const result = await run(['--baseline', 'baseline.json', '--out', 'upgrade'], {
      SIM_NEURONX_CC_VERSION: UPGRADE,
    });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('no performance regression');
    expect(result.stdout).toMatch(
      /ℹ️ recompiled 4 graphs under neuronx-cc 2\.21\.18209\.0\\?\+043b1bf7 → 2\.22\.5122\.0\\?\+1c2d3e4f \(a new compiler's cache keys\), compile time \d+ min \d+ s \(the baseline compiled nothing to compare it with\)\./,
    );
    const report = JSON.parse(await readFile(join(dir, 'upgrade', 'report.json'), 'utf8'));
    const compiled = report.benchmarks[0].metrics.find(
      (m: { id: string }) => m.id === 'graphs_compiled',
    );
    expect(compiled).toMatchObject({ baseline: 0, current: 4, verdict: 'unchanged' });
    expect(report.verdict).toBe('pass');
  });

  it('warns of a cut-off compile log line and keeps the rest of the report', async () => {
    // The benchmark's log ends mid-line, as a run killed while writing would leave it.
    const cut = "printf 'INFO:Neuron:Finished Compilation for all HL'";
    await writeFile(
      join(dir, 'cut.yml'),
      CONFIG.replace('command: offline-benchmark', `command: offline-benchmark && ${cut}`),
    );
    const result = await runNode(
      CLI,
      ['run', '--config', 'cut.yml', '--quiet', '--baseline', 'baseline.json', '--out', 'cut'],
      { cwd: dir, env: simulatorEnv(sim) },
    );
    expect(result.code, result.stdout).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'cut', 'report.json'), 'utf8'));
    const [benchmark] = report.benchmarks;
    expect(benchmark.warnings).toContainEqual(
      expect.stringMatching(
        /^compile cache: run-1\.clean\.log:\d+: a "Finished Compilation for all HLOs" line without a number of seconds \(cut off\?\)/,
      ),
    );
    expect(benchmark.result.compileCache).toMatchObject({ graphsCompiled: 0, cached: 4 });
    expect(benchmark.metrics.find((m: { id: string }) => m.id === 'throughput')).toMatchObject({
      verdict: 'unchanged',
    });
    expect(result.stdout).toContain('0 graphs compiled, 4 graphs loaded from the cache.');
  });
});
