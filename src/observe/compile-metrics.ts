// The compile cache's metrics: graphs compiled and loaded from the cache, and the time
// spent compiling, one value each per gate run. Pure: the summary in, metrics out.

import type { BenchmarkResult, CompileCacheSummary, Metric } from '../model.js';

export const GRAPHS_COMPILED = 'graphs_compiled';
export const GRAPHS_CACHED = 'graphs_cached';
export const COMPILE_TIME = 'compile_time';

/** The summary's metrics: one value each per gate run. */
export function compileCacheMetrics(summary: CompileCacheSummary): Metric[] {
  const count = (id: string, value: number, direction: Metric['direction']): Metric => ({
    id,
    unit: 'graphs',
    direction,
    values: [value],
  });
  return [
    count(GRAPHS_COMPILED, summary.graphsCompiled, 'lower-is-better'),
    ...(summary.cached !== undefined
      ? [count(GRAPHS_CACHED, summary.cached, 'higher-is-better')]
      : []),
    ...(summary.compileSeconds !== undefined
      ? [
          {
            id: COMPILE_TIME,
            unit: 's',
            direction: 'lower-is-better' as const,
            values: [summary.compileSeconds],
          },
        ]
      : []),
  ];
}

/** The result with what the runs did with the compile cache. */
export function withCompileCache(
  result: BenchmarkResult,
  summary: CompileCacheSummary | undefined,
): void {
  if (!summary) return;
  result.compileCache = summary;
  result.metrics.push(...compileCacheMetrics(summary));
}
