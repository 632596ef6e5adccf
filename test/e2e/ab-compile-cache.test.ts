// `neuron-perf-gate ab` (the bundled CLI) and the NEFF compile cache, on the simulator,
// whose benchmark fills a compile cache on first use and reads it afterwards. An SDK
// upgrade is what A/B is for: the head side with a newer simulated compiler misses every
// graph the base loaded from the cache, as a new compiler must, and passes with the
// recompile named and both compile times; one that compiles three times slower fails on
// compile_time; an unchanged head passes.
import { gitIn } from '../support/git.js';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { CLI, runNode, simulatorEnv } from '../support/bundled.js';

const CONFIG = `benchmarks:
  - name: reranker
    command: offline-benchmark --output-file "$PERF_GATE_OUTPUT"
    format: offline-benchmark
    runs: 3
    profile: false
    timeout-minutes: 2
`;
const OLD = '2.21.18209.0+043b1bf7';
const UPGRADE = '2.22.5122.0+1c2d3e4f';

let repo: string;

const git = (args: string[]) => gitIn(repo, args);

/** A cache of the repository's own (`cache`: which), cold at first: the base's first run compiles. */
function ab(args: string[], cache = 'cache') {
  return runNode(CLI, ['ab', '--config', 'perf-gate.yml', '--quiet', ...args], {
    cwd: repo,
    env: simulatorEnv({
      NEURON_COMPILE_CACHE_URL: join(repo, '..', `${repo.split('/').pop()}-${cache}`),
      SIM_NOISE: '0',
      SIM_OUTLIERS: '0',
    }),
  });
}

async function reportOf(): Promise<GateReport> {
  return JSON.parse(await readFile(join(repo, 'perf-gate-ab', 'report.json'), 'utf8'));
}

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'perf-gate-ab-cache-repo-'));
  git(['init', '--quiet', '--initial-branch=main']);
  await writeFile(join(repo, 'perf-gate.yml'), CONFIG);
  await writeFile(join(repo, '.gitignore'), 'perf-gate-ab/\n');
  git(['add', '-A']);
  git(['commit', '--quiet', '-m', 'first']);
  await writeFile(join(repo, 'README'), 'no change to the benchmark\n');
  git(['add', '-A']);
  git(['commit', '--quiet', '-m', 'docs only']);
});

describe('neuron-perf-gate ab (bundled) and the compile cache', () => {
  it('passes a head on a newer compiler that is no slower, naming its recompile and both compile times', async () => {
    const result = await ab([
      '--base-env',
      `SIM_NEURONX_CC_VERSION=${OLD}`,
      '--head-env',
      `SIM_NEURONX_CC_VERSION=${UPGRADE}`,
    ]);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(
      /ℹ️ recompiled 4 graphs under neuronx-cc 2\.21\.18209\.0\\?\+043b1bf7 → 2\.22\.5122\.0\\?\+1c2d3e4f \(a new compiler's cache keys\), compile time \d+ min \d+ s → \d+ min \d+ s\./,
    );
    const report = await reportOf();
    expect(report.verdict).toBe('pass');
    const [benchmark] = report.benchmarks;
    const byId = (id: string) => benchmark!.metrics.find((m) => m.id === id);
    expect(byId('graphs_compiled')).toMatchObject({
      baseline: 0,
      current: 4,
      verdict: 'unchanged',
    });
    // Both first runs compiled (the cache was cold for the base): their times are compared.
    expect(byId('compile_time')).toMatchObject({ verdict: 'unchanged' });
    expect(byId('throughput')!.verdict).toBe('unchanged');
    expect(report.ab!.compileCaches!.reranker).toMatchObject({
      shared: true,
      base: { graphsCompiled: 4, cached: 0 },
      baseAgain: { graphsCompiled: 0, cached: 4 },
      head: { graphsCompiled: 4, cached: 0 },
    });
    expect(result.stdout).toContain(
      "🧱 reranker, compile cache (one cache, which the base warms first): base's first run: 4 graphs compiled in",
    );
  }, 120_000);

  it('fails a newer compiler that compiles three times slower, on compile_time', async () => {
    const result = await ab(
      [
        '--base-env',
        `SIM_NEURONX_CC_VERSION=${OLD}`,
        '--head-env',
        `SIM_NEURONX_CC_VERSION=${UPGRADE}`,
        '--head-env',
        'SIM_COMPILE_SLOWDOWN=3',
      ],
      'slow-compiler-cache',
    );
    expect(result.code, result.stdout).toBe(1);
    const [benchmark] = (await reportOf()).benchmarks;
    const byId = (id: string) => benchmark!.metrics.find((m) => m.id === id);
    expect(byId('compile_time')).toMatchObject({ verdict: 'regression' });
    expect(byId('compile_time')!.change).toBeGreaterThan(1.5);
    expect(byId('graphs_compiled')).toMatchObject({ verdict: 'unchanged' });
    expect(byId('throughput')!.verdict).toBe('unchanged');
  }, 120_000);

  it('passes a head that changed nothing, every graph of its first run from the cache', async () => {
    const result = await ab(['--base', 'HEAD~1']);
    expect(result.code, result.stdout).toBe(0);
    const report = await reportOf();
    expect(report.verdict).toBe('pass');
    const compiled = report.benchmarks[0]!.metrics.find((m) => m.id === 'graphs_compiled');
    expect(compiled).toMatchObject({ current: 0, verdict: 'unchanged' });
    expect(report.ab!.compileCaches!.reranker!.head).toMatchObject({
      graphsCompiled: 0,
      cached: 4,
    });
    expect(result.stdout).not.toContain('recompiled');
  }, 120_000);
});
