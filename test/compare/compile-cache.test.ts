// The compile cache's rule: a run that recompiles graphs its baseline loaded from the
// cache fails, naming them and the compile time; the same count from a cold baseline does not.
import { describe, expect, it } from 'vitest';
import { compareBenchmark } from '../../src/compare/benchmark.js';
import { familySize } from '../../src/compare/family.js';
import type { BenchmarkResult, CompileCacheSummary, Metric } from '../../src/model.js';
import { compileCacheMetrics } from '../../src/observe/compile-metrics.js';

const throughput = (values: number[]): Metric => ({
  id: 'throughput',
  unit: 'queries/s',
  direction: 'higher-is-better',
  values,
});

function result(cache: CompileCacheSummary | undefined, ...records: CompileCacheSummary[]) {
  const metrics = [throughput([3.1, 3.11, 3.09])];
  const result: BenchmarkResult = { name: 'b', format: 'offline-benchmark', metrics, runs: [] };
  if (cache) {
    result.compileCache = cache;
    metrics.push(...compileCacheMetrics(cache));
  }
  // A baseline of several stored records: each metric's values, one per record.
  for (const record of records) {
    for (const metric of compileCacheMetrics(record)) {
      const pooled = metrics.find((m) => m.id === metric.id);
      if (pooled) pooled.values.push(...metric.values);
      else metrics.push(metric);
    }
  }
  return result;
}

const cold = (n: number, seconds: number, names: string[] = []): CompileCacheSummary => ({
  dir: '/var/tmp/neuron-compile-cache',
  graphsCompiled: n,
  compiled: names,
  cached: 0,
  compileSeconds: seconds,
  compileTimeFrom: 'log',
  warnings: [],
});
const warm = (n: number): CompileCacheSummary => ({
  dir: '/var/tmp/neuron-compile-cache',
  graphsCompiled: 0,
  compiled: [],
  cached: n,
  warnings: [],
});

const THRESHOLDS = { throughput: 0.05, graphs_compiled: 0.01, compile_time: 0.15 };
const judge = (
  current: BenchmarkResult,
  baseline: BenchmarkResult,
  thresholds: Record<string, number> = THRESHOLDS,
) => compareBenchmark(current, baseline, thresholds, { confidence: 0.95, seed: 'b' });
const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((x) => `neuronxcc-2.22.0/MODULE_${x}+1`);

describe('graphs_compiled against the baseline', () => {
  it('fails a run that recompiled what the baseline loaded from cache, naming graphs and time', () => {
    const { verdict, metrics } = judge(result(cold(7, 305.9, NAMES)), result(warm(7)));
    expect(verdict).toBe('regression');
    const compiled = metrics.find((m) => m.id === 'graphs_compiled')!;
    expect(compiled).toMatchObject({ verdict: 'regression', baseline: 0, current: 7, ci: null });
    expect(compiled.reason).toBe(
      'recompiled 7 graphs the baseline loaded from cache (compile time 5 min 6 s): ' +
        `${NAMES.slice(0, 5).join(', ')} and 2 more`,
    );
    // compile_time has no baseline figure (the baseline compiled nothing): new, not judged.
    expect(metrics.find((m) => m.id === 'compile_time')?.verdict).toBe('new');
  });

  it('passes the same count when the baseline compiled them too (a cold cache both times)', () => {
    const { verdict, metrics } = judge(result(cold(4, 300)), result(cold(4, 290)));
    expect(verdict).toBe('pass');
    expect(metrics.find((m) => m.id === 'graphs_compiled')?.reason).toBe(
      'compiled 4 graphs, as the baseline did (its cache held none of them)',
    );
    expect(metrics.find((m) => m.id === 'compile_time')?.verdict).toBe('unchanged');
  });

  it('counts against the warmest of several baseline records', () => {
    const { metrics } = judge(result(cold(4, 300)), result(warm(4), cold(4, 290)));
    expect(metrics.find((m) => m.id === 'graphs_compiled')?.reason).toMatch(
      /^recompiled 4 graphs the baseline loaded from cache \(compile time 5 min\)$/,
    );
  });

  it('passes a warm run, saying compile_time was not measured rather than lost', () => {
    const { verdict, metrics } = judge(result(warm(4)), result(cold(4, 290)));
    expect(verdict).toBe('pass');
    expect(metrics.find((m) => m.id === 'graphs_compiled')?.reason).toBe(
      'every graph came from the compile cache',
    );
    expect(metrics.find((m) => m.id === 'compile_time')).toMatchObject({
      verdict: 'missing',
      reason: 'nothing was compiled in this run: every graph came from the compile cache',
    });
  });

  it('gates the share the threshold allows, and nothing when switched off', () => {
    const partial = result(cold(1, 60));
    const half = { ...THRESHOLDS, graphs_compiled: 0.5 };
    expect(judge(partial, result(warm(4)), half).verdict).toBe('pass');
    expect(judge(result(cold(2, 120)), result(warm(4)), half).verdict).toBe('regression');
    const off = { throughput: 0.05 };
    const { verdict, metrics } = judge(result(cold(4, 300)), result(warm(4)), off);
    expect(verdict).toBe('pass');
    expect(metrics.find((m) => m.id === 'graphs_compiled')?.reason).toMatch(
      /^recompiled 4 graphs .*; below its threshold or not gated$/,
    );
  });

  it('fails compile time beyond its threshold when both sides compiled', () => {
    const slower = judge(result(cold(4, 2400)), result(cold(4, 300)));
    expect(slower.metrics.find((m) => m.id === 'compile_time')?.verdict).toBe('regression');
  });

  it('spends none of the false-alarm budget on the count', () => {
    const member = (current: BenchmarkResult, baseline: BenchmarkResult) => ({
      current,
      baseline,
      thresholds: THRESHOLDS,
    });
    const withCache = familySize([member(result(warm(4)), result(warm(4), warm(4)))]);
    const without = familySize([member(result(undefined), result(undefined))]);
    expect(withCache.metrics).toBe(without.metrics);
  });
});

describe('graphs_compiled on a cache that was cold before the run', () => {
  const wiped = (n: number, seconds: number): CompileCacheSummary => ({
    ...cold(n, seconds, NAMES.slice(0, n)),
    coldBefore: true,
  });

  it('does not fail a recompile on a cache that held none of its compiler: the keys cannot be told', () => {
    const { verdict, metrics } = judge(result(wiped(4, 306)), result(warm(4)));
    expect(verdict).toBe('pass');
    const compiled = metrics.find((m) => m.id === 'graphs_compiled')!;
    expect(compiled).toMatchObject({ verdict: 'unchanged', baseline: 0, current: 4 });
    expect(compiled.reason).toBe(
      'compiled 4 graphs on a compile cache that held none for neuronx-cc 2.22.0 before the run ' +
        '(a new or wiped runner): whether the cache keys changed cannot be told, ' +
        'compile time 5 min 6 s (the baseline compiled nothing to compare it with)',
    );
  });

  it('still fails the same recompile on a warm cache (it held entries of its compiler)', () => {
    const { verdict, metrics } = judge(
      result({ ...cold(4, 306, NAMES.slice(0, 4)), coldBefore: false }),
      result(warm(4)),
    );
    expect(verdict).toBe('regression');
    expect(metrics.find((m) => m.id === 'graphs_compiled')?.reason).toMatch(
      /^recompiled 4 graphs the baseline loaded from cache/,
    );
  });

  it('keeps the plain words when the baseline compiled them too', () => {
    const compiled = judge(result(wiped(4, 306)), result(cold(4, 300))).metrics.find(
      (m) => m.id === 'graphs_compiled',
    );
    expect(compiled?.reason).toBe(
      'compiled 4 graphs, as the baseline did (its cache held none of them)',
    );
  });
});

describe('graphs_compiled under a new compiler version', () => {
  const OLD = '2.21.18209.0+043b1bf7';
  const NEW = '2.22.5122.0+1c2d3e4f';
  const on = (compilerVersion: string | undefined, r: BenchmarkResult): BenchmarkResult => ({
    ...r,
    environment: compilerVersion === undefined ? {} : { compilerVersion },
  });

  it('reports a full recompile under a new compiler, naming both versions and compile times', () => {
    const { verdict, metrics } = judge(
      on(NEW, result(cold(4, 330, NAMES.slice(0, 4)))),
      on(OLD, result(warm(4), cold(4, 310))),
    );
    expect(verdict).toBe('pass');
    const compiled = metrics.find((m) => m.id === 'graphs_compiled')!;
    expect(compiled).toMatchObject({ verdict: 'unchanged', baseline: 0, current: 4 });
    expect(compiled.reason).toBe(
      `recompiled 4 graphs under neuronx-cc ${OLD} → ${NEW} (a new compiler's cache keys), ` +
        'compile time 5 min 10 s → 5 min 30 s',
    );
    expect(metrics.find((m) => m.id === 'compile_time')?.verdict).toBe('unchanged');
  });

  it('still fails the new compiler on compile_time when it compiles much slower', () => {
    const { verdict, metrics } = judge(
      on(NEW, result(cold(4, 900))),
      on(OLD, result(warm(4), cold(4, 310))),
    );
    expect(verdict).toBe('regression');
    expect(metrics.find((m) => m.id === 'graphs_compiled')?.verdict).toBe('unchanged');
    expect(metrics.find((m) => m.id === 'compile_time')?.verdict).toBe('regression');
  });

  it("says so when the baseline has no compile time to set this run's beside", () => {
    const { metrics } = judge(on(NEW, result(cold(4, 330))), on(OLD, result(warm(4))));
    expect(metrics.find((m) => m.id === 'graphs_compiled')?.reason).toBe(
      `recompiled 4 graphs under neuronx-cc ${OLD} → ${NEW} (a new compiler's cache keys), ` +
        'compile time 5 min 30 s (the baseline compiled nothing to compare it with)',
    );
  });

  it("falls back to the cold starts' compile times when only they are measured on both sides", () => {
    const coldStart = (seconds: number): Metric => ({
      id: 'cold_compile_time',
      unit: 's',
      direction: 'lower-is-better',
      values: [seconds],
    });
    const current = on(NEW, result(warm(0)));
    current.metrics = current.metrics.map((m) =>
      m.id === 'graphs_compiled' ? { ...m, values: [4] } : m,
    );
    current.metrics.push(coldStart(330));
    const baseline = on(OLD, result(warm(4)));
    baseline.metrics.push(coldStart(300));
    expect(judge(current, baseline).metrics.find((m) => m.id === 'graphs_compiled')?.reason).toBe(
      `recompiled 4 graphs under neuronx-cc ${OLD} → ${NEW} (a new compiler's cache keys), ` +
        'cold compile time 5 min → 5 min 30 s',
    );
  });

  it('fails a recompile under the same compiler, as before', () => {
    const { verdict, metrics } = judge(on(NEW, result(cold(4, 330))), on(NEW, result(warm(4))));
    expect(verdict).toBe('regression');
    expect(metrics.find((m) => m.id === 'graphs_compiled')?.reason).toMatch(
      /^recompiled 4 graphs the baseline loaded from cache \(compile time 5 min 30 s\)$/,
    );
  });

  it('keeps the rule when either side does not know its compiler', () => {
    for (const [now, before] of [
      [NEW, undefined],
      [undefined, OLD],
    ] as const) {
      const { metrics } = judge(on(now, result(cold(4, 330))), on(before, result(warm(4))));
      expect(metrics.find((m) => m.id === 'graphs_compiled')?.verdict).toBe('regression');
    }
  });
});
