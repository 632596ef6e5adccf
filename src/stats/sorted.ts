// Sorted per-request samples, made once. A detailed serve result holds millions of
// inter-token latencies per run, and each percentile, interval and stored record of them
// needs them sorted: sorting a copy each time cost seconds and a copy's memory each.
// Parsers hand over their sample arrays sorted and never change them again; those are
// used as they are, and the pooled sort of several runs is kept while the runs live.

import type { SampleRun } from '../model.js';

/** Arrays known to be sorted ascending and never changed after. */
const knownSorted = new WeakSet<object>();
/** The pooled, sorted samples of several runs, under the first run. */
const pooledCache = new WeakMap<object, { runs: readonly SampleRun[]; sorted: Float64Array }>();

/** Marks `values` as sorted ascending and final; returns it. */
export function markSorted(values: Float64Array): Float64Array {
  knownSorted.add(values);
  return values;
}

/** `values` sorted ascending: itself when it is known sorted, else a sorted copy. */
export function sortedSamples(values: SampleRun): Float64Array {
  if (values instanceof Float64Array && knownSorted.has(values)) return values;
  return markSorted(Float64Array.from(values).sort());
}

/** All samples of all runs in one sorted array, made once per set of runs. */
export function pooledSorted(runs: readonly SampleRun[]): Float64Array {
  if (runs.length === 1) return sortedSamples(runs[0]!);
  const first = runs[0];
  const cached = first ? pooledCache.get(first) : undefined;
  if (cached && sameRuns(cached.runs, runs)) return cached.sorted;
  const count = runs.reduce((sum, run) => sum + run.length, 0);
  const pooled = new Float64Array(count);
  let at = 0;
  for (const run of runs) {
    pooled.set(run, at);
    at += run.length;
  }
  const sorted = markSorted(pooled.sort());
  if (first) pooledCache.set(first, { runs: [...runs], sorted });
  return sorted;
}

function sameRuns(a: readonly SampleRun[], b: readonly SampleRun[]): boolean {
  return a.length === b.length && a.every((run, i) => run === b[i]);
}
