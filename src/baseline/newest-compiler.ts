// A baseline pooled from records of several compiler versions (baseline-match: loose) counts
// the compile cache's graphs on the records of its newest record's compiler only: the cache
// is keyed by the compiler, so what an older compiler loaded from it says nothing of what
// this one should find. compile_time stays pooled: how long each compiler takes to compile
// is what is compared across an upgrade.

import type { BenchmarkResult } from '../model.js';
import { GRAPHS_CACHED, GRAPHS_COMPILED } from '../observe/compile-metrics.js';
import { recordToResult, type BaselineRecord } from './record.js';
import { mergeByName } from './result-files.js';

const CACHE_COUNTS: readonly string[] = [GRAPHS_COMPILED, GRAPHS_CACHED];

/**
 * The pooled result with its cache counts taken from the records (newest first) measured
 * under the newest one's neuronx-cc; as it is when that version is unknown or all share it.
 */
export function cacheCountsOfNewestCompiler(
  result: BenchmarkResult,
  records: readonly BaselineRecord[],
): BenchmarkResult {
  const version = records[0]?.environment.compilerVersion;
  const same = records.filter((record) => record.environment.compilerVersion === version);
  if (version === undefined || same.length === records.length) return result;
  const [own] = mergeByName(same.map(recordToResult));
  const metrics = result.metrics.flatMap((metric) =>
    CACHE_COUNTS.includes(metric.id)
      ? (own?.metrics.filter((m) => m.id === metric.id) ?? [])
      : [metric],
  );
  return { ...result, metrics };
}
