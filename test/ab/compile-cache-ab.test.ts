// A/B mode and the NEFF compile cache, on the simulator's offline-benchmark (which fills a
// compile cache on first use and reads it afterwards): each side's first runs are watched,
// and a head that misses what the base loaded from the cache fails on graphs_compiled, with
// one cache shared by both sides or a cache each, cold or warm; unless the sides' probes
// found two compiler versions, whose cache keys differ by design.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AbBenchmark } from '../../src/ab/run-ab.js';
import { abIn, nodeEnv, sidesIn } from '../support/ab-in-process.js';
import { tempDir } from '../support/offline-result.js';
import { BIN } from '../simulator/helpers.js';

const OLD = '2.21.18209.0+043b1bf7';
const UPGRADE = '2.22.5122.0+1c2d3e4f';

/** Each side's compiler version as its probe would find it (`pip list`). */
type Compilers = { base: string; head: string };

async function ab(
  root: string,
  env: { base: Record<string, string>; head: Record<string, string> },
  gateEnv: Record<string, string> = {},
  compilers?: Compilers,
): Promise<AbBenchmark> {
  const environments = compilers && {
    base: { compilerVersion: compilers.base },
    head: { compilerVersion: compilers.head },
  };
  // Noise-free and fast: only the compile cache may differ between the sides.
  const quiet = { SIM_NOISE: '0', SIM_OUTLIERS: '0', SIM_SLEEP: '0', ...gateEnv };
  return abIn(
    root,
    sidesIn(root, env, environments),
    { blocks: 1, confirmBlocks: 0 },
    nodeEnv(root, quiet, BIN),
  );
}

async function repo(): Promise<string> {
  const root = await tempDir('perf-gate-ab-cache-');
  await mkdir(join(root, '.github'));
  await writeFile(
    join(root, '.github/perf-gate.yml'),
    [
      'benchmarks:',
      '  - name: reranker',
      '    command: offline-benchmark --output-file "$PERF_GATE_OUTPUT"',
      '    format: offline-benchmark',
      '    profile: false',
    ].join('\n'),
  );
  return root;
}

const metric = (measured: AbBenchmark, id: string) =>
  measured.reports[0]!.metrics.find((m) => m.id === id);

describe('A/B and the compile cache', () => {
  it('one cold cache for both, compilers unknown: a head that misses what the base warmed fails', async () => {
    const root = await repo();
    const shared = { NEURON_COMPILE_CACHE_URL: join(root, 'cache') };
    const measured = await ab(
      root,
      {
        base: {},
        head: { SIM_NEURONX_CC_VERSION: UPGRADE },
      },
      shared,
    );

    const report = measured.reports[0]!;
    expect(report.verdict).toBe('regression');
    const compiled = metric(measured, 'graphs_compiled')!;
    expect(compiled.verdict).toBe('regression');
    expect(compiled.reason).toMatch(
      /^recompiled 4 graphs the base loaded from cache \(compile time \d+ min \d+ s\): neuronxcc-2\.22\.5122\.0\+1c2d3e4f\/MODULE_/,
    );
    // The base compiled on the cold cache first, then loaded all four on its second run.
    expect(measured.compileCaches).toMatchObject({
      shared: true,
      base: { graphsCompiled: 4, cached: 0 },
      baseAgain: { graphsCompiled: 0, cached: 4 },
      head: { graphsCompiled: 4, cached: 0 },
    });
    expect(report.result!.compileCache).toMatchObject({ graphsCompiled: 4 });
    // Both first runs compiled four graphs: their compile times are compared.
    expect(metric(measured, 'compile_time')).toMatchObject({ verdict: 'unchanged' });
  }, 60_000);

  it('one cold cache, a newer compiler on the head: its recompile is reported, its compile time compared', async () => {
    const root = await repo();
    const measured = await ab(
      root,
      { base: { SIM_NEURONX_CC_VERSION: OLD }, head: { SIM_NEURONX_CC_VERSION: UPGRADE } },
      { NEURON_COMPILE_CACHE_URL: join(root, 'cache') },
      { base: OLD, head: UPGRADE },
    );

    expect(measured.reports[0]!.verdict).toBe('pass');
    const compiled = metric(measured, 'graphs_compiled')!;
    expect(compiled).toMatchObject({ verdict: 'unchanged', current: 4 });
    expect(compiled.reason).toContain(
      `recompiled 4 graphs under neuronx-cc ${OLD} → ${UPGRADE} (a new compiler's cache keys), `,
    );
    expect(compiled.reason).toMatch(/, compile time \d+ min \d+ s → \d+ min \d+ s$/);
    expect(metric(measured, 'compile_time')).toMatchObject({ verdict: 'unchanged' });
  }, 60_000);

  it('one cache, the same compiler, new compiler flags on the head: its recompile fails', async () => {
    const root = await repo();
    const measured = await ab(
      root,
      { base: {}, head: { NEURON_CC_FLAGS: '--optlevel=3' } },
      { NEURON_COMPILE_CACHE_URL: join(root, 'cache') },
      { base: OLD, head: OLD },
    );

    expect(measured.reports[0]!.verdict).toBe('regression');
    expect(metric(measured, 'graphs_compiled')!.reason).toMatch(
      /^recompiled 4 graphs the base loaded from cache/,
    );
  }, 60_000);

  it('one cache, the same compiler on both sides: the head loads what the base compiled, and passes', async () => {
    const root = await repo();
    const shared = { NEURON_COMPILE_CACHE_URL: join(root, 'cache') };
    const measured = await ab(root, { base: {}, head: { SIM_SLOWDOWN: '1' } }, shared);

    expect(measured.reports[0]!.verdict).toBe('pass');
    expect(metric(measured, 'graphs_compiled')).toMatchObject({
      verdict: 'unchanged',
      current: 0,
    });
    expect(measured.compileCaches?.head).toMatchObject({ graphsCompiled: 0, cached: 4 });
  }, 60_000);

  it('a cache each, both cold: each side compiles on its first visit, like for like, and passes', async () => {
    const root = await repo();
    const measured = await ab(root, {
      base: { NEURON_COMPILE_CACHE_URL: join(root, 'base-cache') },
      head: { NEURON_COMPILE_CACHE_URL: join(root, 'head-cache') },
    });

    expect(measured.compileCaches).toMatchObject({
      shared: false,
      base: { graphsCompiled: 4 },
      head: { graphsCompiled: 4 },
    });
    expect(measured.compileCaches?.baseAgain).toBeUndefined();
    const compiled = metric(measured, 'graphs_compiled')!;
    expect(compiled.verdict).toBe('unchanged');
    expect(compiled.reason).toBe(
      'compiled 4 graphs, as the base did (its cache held none of them)',
    );
  }, 60_000);

  it("a cache each, the base's warm and the head's cold: the head's recompile is named and passes", async () => {
    const root = await repo();
    const baseCache = { NEURON_COMPILE_CACHE_URL: join(root, 'base-cache') };
    // A first comparison warms the base's cache; the head's is a new runner's, empty.
    await ab(root, { base: baseCache, head: { NEURON_COMPILE_CACHE_URL: join(root, 'h1') } });
    const measured = await ab(root, {
      base: baseCache,
      head: { NEURON_COMPILE_CACHE_URL: join(root, 'head-cache') },
    });

    expect(measured.compileCaches).toMatchObject({
      shared: false,
      base: { graphsCompiled: 0, cached: 4 },
      head: { graphsCompiled: 4, coldBefore: true },
    });
    expect(measured.reports[0]!.verdict).toBe('pass');
    const compiled = metric(measured, 'graphs_compiled')!;
    expect(compiled.verdict).toBe('unchanged');
    expect(compiled.reason).toMatch(
      /^compiled 4 graphs on a compile cache that held none for neuronx-cc \S+ before the run \(a new or wiped runner\)/,
    );
  }, 60_000);

  it("times a first run that compiled without saying so by its time beyond the side's others", async () => {
    // A benchmark that prints no compile line: on a cold cache it "compiles" one graph
    // for 0.8 s and leaves its entry, as the Neuron cache lays them out.
    const root = await tempDir('perf-gate-ab-cache-quiet-');
    await mkdir(join(root, '.github'));
    const entry = '"$NEURON_COMPILE_CACHE_URL/neuronxcc-2.21/MODULE_a+1"';
    await writeFile(
      join(root, 'bench.sh'),
      [
        `if [ ! -f ${entry}/model.neff ]; then sleep 0.8; mkdir -p ${entry}; touch ${entry}/model.neff; fi`,
        `echo '[{"name": "request", "unit": "ms", "value": 10}]' > "$PERF_GATE_OUTPUT"`,
      ].join('\n'),
    );
    await writeFile(
      join(root, '.github/perf-gate.yml'),
      [
        'benchmarks:',
        '  - name: quiet',
        '    command: bash bench.sh',
        '    format: custom-smaller-is-better',
      ].join('\n'),
    );
    const measured = await ab(
      root,
      { base: {}, head: { SIM_SLOWDOWN: '1' } },
      { NEURON_COMPILE_CACHE_URL: join(root, 'cache') },
    );

    const base = measured.compileCaches!.base!;
    expect(base).toMatchObject({ graphsCompiled: 1, compileTimeFrom: 'first-run' });
    expect(base.compileSeconds).toBeGreaterThan(0.5);
    expect(base.compileSeconds).toBeLessThan(3);
    expect(measured.compileCaches!.head).toMatchObject({ graphsCompiled: 0 });
    // No log said what was loaded: nothing to call recompiled.
    expect(metric(measured, 'graphs_compiled')).toMatchObject({ current: 0, verdict: 'unchanged' });
    expect(measured.reports[0]!.verdict).toBe('pass');
  }, 60_000);
});
