// The comment's one line on the compile cache: counts, compile time, and the regression's
// words with the graphs concerned; values from an untrusted report.json never break it.
import { describe, expect, it } from 'vitest';
import type { BenchmarkReport, CompileCacheSummary, Comparison } from '../../src/model.js';
import { compileCacheLine } from '../../src/report/compile-cache-line.js';

function report(cache: unknown, metrics: Partial<Comparison>[] = []): BenchmarkReport {
  return {
    name: 'b',
    format: 'offline-benchmark',
    verdict: 'pass',
    metrics: metrics as Comparison[],
    warnings: [],
    result: {
      name: 'b',
      format: 'offline-benchmark',
      metrics: [],
      runs: [],
      compileCache: cache as CompileCacheSummary,
    },
  };
}

describe('compileCacheLine', () => {
  it('says what was compiled, how long it took and what came from the cache', () => {
    const cache: CompileCacheSummary = {
      dir: '/var/tmp/neuron-compile-cache',
      graphsCompiled: 1,
      compiled: ['neuronxcc-2.22.0/MODULE_a+1'],
      cached: 3,
      compileSeconds: 95.2,
      compileTimeFrom: 'log',
      warnings: [],
    };
    expect(compileCacheLine(report(cache))).toBe(
      '🧱 **Compile cache** (`/var/tmp/neuron-compile-cache`): 1 graph compiled in 1 min 35 s, 3 graphs loaded from the cache.',
    );
  });

  it("adds the regression's reason, escaped, without the graphs listed below the table", () => {
    const cache = { remote: 's3://b/c', graphsCompiled: 4, compiled: [], warnings: [] };
    const reason = 'recompiled 4 graphs the baseline loaded from cache (compile time 5 min)';
    const line = compileCacheLine(
      report(cache, [
        {
          id: 'graphs_compiled',
          verdict: 'regression',
          reason: `${reason}: neuronxcc-2/MODULE_a+1`,
        },
      ]),
    );
    // The URL is broken up so that it never becomes a link (escape.ts).
    expect(line).toBe(`🧱 **Compile cache** (s3://\u200bb/c): 4 graphs compiled. ❌ ${reason}.`);
  });

  it("names a new compiler's recompile, which passed, and no other recompile that did", () => {
    const cache = { dir: '/c', graphsCompiled: 4, compiled: [], cached: 0, warnings: [] };
    const reason =
      "recompiled 4 graphs under neuronx-cc 2.21.0 → 2.22.0 (a new compiler's cache keys), " +
      'compile time 5 min 10 s → 5 min 30 s';
    expect(
      compileCacheLine(report(cache, [{ id: 'graphs_compiled', verdict: 'unchanged', reason }])),
    ).toBe(
      `🧱 **Compile cache** (\`/c\`): 4 graphs compiled, 0 graphs loaded from the cache. ℹ️ ${reason}.`,
    );
    const belowThreshold =
      'recompiled 1 graph the baseline loaded from cache; below its threshold or not gated';
    expect(
      compileCacheLine(
        report(cache, [{ id: 'graphs_compiled', verdict: 'unchanged', reason: belowThreshold }]),
      ),
    ).toBe('🧱 **Compile cache** (`/c`): 4 graphs compiled, 0 graphs loaded from the cache.');
  });

  it('names a recompile on a cache that was cold before the run, which passed', () => {
    const cache = {
      dir: '/c',
      graphsCompiled: 4,
      compiled: [],
      cached: 0,
      coldBefore: true,
      warnings: [],
    };
    const reason =
      'compiled 4 graphs on a compile cache that held none for neuronx-cc 2.22.0 before the run ' +
      '(a new or wiped runner): whether the cache keys changed cannot be told';
    expect(
      compileCacheLine(report(cache, [{ id: 'graphs_compiled', verdict: 'unchanged', reason }])),
    ).toBe(
      `🧱 **Compile cache** (\`/c\`): 4 graphs compiled, 0 graphs loaded from the cache. ℹ️ ${reason}.`,
    );
  });

  it('shows nothing without a cache summary, and only sane values from an untrusted one', () => {
    expect(compileCacheLine(report(undefined))).toBeUndefined();
    expect(compileCacheLine(report({ graphsCompiled: '<img src=x>' }))).toBeUndefined();
    const line = compileCacheLine(
      report({ dir: '`x`', graphsCompiled: 2, cached: 'many', compileSeconds: -1 }),
    );
    expect(line).toBe('🧱 **Compile cache** (`` `x` ``): 2 graphs compiled.');
  });
});
