// startup: on the simulator, through the bundled CLI: an unchanged run passes, a start-up
// 2× slower fails on benchmark_startup alone with its threshold named, a cold start on an
// empty compile cache is slower than the warm ones and leaves the test's own cache as it
// was, and a ready-log that never matches is a warning while the rest is judged as usual.
import { execFile } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, SIMULATOR_BIN, runNode, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { rerankConfig } from '../support/rerank-config.js';

// SIM_SLEEP: the model load really takes about 1.7 s, well above the spread of a process
// start on a busy machine; the 30 queries about 0.4 s, so that ready is well before the end.
const SIM = { SIM_SLEEP: '0.04', SIM_SEED: '3', SIM_QUERIES: '30' };

const config = (startup: string) => rerankConfig(`startup: ${startup}`);
const READY = `{ ready-log: 'init engine .* took' }`;

interface MetricRow {
  id: string;
  verdict: string;
  change: number | null;
  current: number | null;
  reason?: string;
}

async function gate(
  dir: string,
  out: string,
  startup: string,
  sim: Record<string, string>,
  extra: string[] = [],
) {
  await writeFile(join(dir, 'perf-gate.yml'), config(startup));
  const args = ['run', '--config', 'perf-gate.yml', '--out', out, '--quiet', ...extra];
  const result = await runNode(CLI, args, { cwd: dir, env: simulatorEnv({ ...SIM, ...sim }) });
  const report = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8'));
  const benchmark = report.benchmarks[0];
  return { ...result, report, benchmark, metrics: benchmark.metrics as MetricRow[] };
}

/** The entries of the test process's compile cache (simulatorEnv's). */
async function cacheEntries(): Promise<string[]> {
  const cache = simulatorEnv().NEURON_COMPILE_CACHE_URL!;
  const versions = await readdir(cache).catch(() => [] as string[]);
  const entries = await Promise.all(
    versions.map(async (v) => (await readdir(join(cache, v))).map((m) => `${v}/${m}`)),
  );
  return entries.flat().sort();
}

describe('startup: on the simulator', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('perf-gate-startup-');
    // Fill the test's compile cache first, so that every run of the gate is a warm start.
    await promisify(execFile)(join(SIMULATOR_BIN, 'offline-benchmark'), [], {
      env: simulatorEnv(),
    });
    const first = await gate(dir, 'base', READY, {}, ['--save-baseline', 'baseline.json']);
    expect(first.code, first.stderr).toBe(0);
    const startup = first.benchmark.result.metrics.find(
      (m: { id: string }) => m.id === 'benchmark_startup',
    );
    // Launch → the ready line: the ~1.7 s load and the start of node, once per clean run.
    expect(startup.values).toHaveLength(3);
    for (const value of startup.values) expect(value).toBeGreaterThan(1.5);
  });

  it('passes an unchanged run, its start-up unchanged', async () => {
    const result = await gate(dir, 'same', READY, { SIM_SEED: '4' }, [
      '--baseline',
      'baseline.json',
    ]);
    expect(result.code, result.stdout).toBe(0);
    expect(result.report.verdict).toBe('pass');
    const startup = result.metrics.find((m) => m.id === 'benchmark_startup')!;
    // Unchanged, or on a busy machine a start the runs cannot tell: never a regression.
    expect(['unchanged', 'inconclusive']).toContain(startup.verdict);
    expect(result.stdout).toMatch(
      /⏱️ \*\*Start-up\*\*: launch → first output line matching `init engine \.\* took`: \*\*\d\.\d+ s \([+−±]\d+\.\d%\)\*\* \(each clean run\)\./,
    );
  });

  it('fails on benchmark_startup alone when the start-up is 2× slower', async () => {
    const result = await gate(dir, 'slower', READY, { SIM_STARTUP_SLOWDOWN: '2' }, [
      '--baseline',
      'baseline.json',
    ]);
    expect(result.code).toBe(1);
    const failed = result.metrics.filter((m) => m.verdict === 'regression').map((m) => m.id);
    expect(failed).toEqual(['benchmark_startup']);
    const startup = result.metrics.find((m) => m.id === 'benchmark_startup')!;
    expect(startup.change).toBeGreaterThan(0.5);
    expect(startup.reason).toMatch(/% (higher|slower|longer).*beyond the 15% threshold/);
    expect(result.stdout).toMatch(/\| benchmark_startup \(.*❌ regression/);
  });

  it('measures a cold start slower than the warm ones, on a cache of its own', async () => {
    const before = await cacheEntries();
    const result = await gate(
      dir,
      'cold',
      `{ ready-log: 'init engine .* took', cold: true }`,
      { SIM_COMPILE_SLOWDOWN: '0.2' },
      ['--baseline', 'baseline.json'],
    );
    expect(result.code, result.stdout).toBe(0);
    const metric = (id: string) => result.metrics.find((m) => m.id === id)!;
    // ~2.5 s of compiling at SIM_COMPILE_SLOWDOWN 0.2 before the same load as a warm start.
    expect(metric('cold_startup').current! - metric('benchmark_startup').current!).toBeGreaterThan(
      2,
    );
    // Turning cold on keeps the baseline: the warm start is judged against it, the cold one new.
    expect(metric('benchmark_startup').verdict).not.toBe('new');
    expect(metric('throughput').verdict).toBe('unchanged');
    expect(metric('cold_startup').verdict).toBe('new');
    expect(result.benchmark.result.startup.cold).toMatchObject({
      graphsCompiled: 4,
      log: 'runs/rerank/run-cold.clean.log',
    });
    // The measured runs compiled nothing, and the test's cache is as it was.
    expect(result.benchmark.result.compileCache?.graphsCompiled ?? 0).toBe(0);
    expect(await cacheEntries()).toEqual(before);
    expect((await readdir(join(dir, 'cold'))).filter((n) => n.startsWith('.cold'))).toEqual([]);
    expect(result.stdout).toMatch(
      /cold \(an empty compile cache\): \*\*\d\.\d+ s\*\* \(4 graphs compiled, compiling \d+ min \d+ s\)/,
    );
  });

  it('warns when ready-log never matches, and judges the rest as usual', async () => {
    const result = await gate(dir, 'never', `{ ready-log: '^never printed$' }`, {}, [
      '--baseline',
      'baseline.json',
    ]);
    expect(result.code, result.stdout).toBe(0);
    expect(result.report.verdict).toBe('pass');
    expect(result.benchmark.warnings).toContain(
      'startup: clean run 1, 2, 3: no line of its output matched ready-log "^never printed$"; benchmark_startup not measured',
    );
    const startup = result.metrics.find((m) => m.id === 'benchmark_startup')!;
    expect(startup.verdict).toBe('missing');
    expect(startup.reason).toMatch(/not measured in clean run 1: no line of its output matched/);
    expect(result.metrics.find((m) => m.id === 'throughput')!.verdict).toBe('unchanged');
    expect(result.stdout).toContain(
      'launch → first output line matching `^never printed$`: not measured',
    );
  });
});
