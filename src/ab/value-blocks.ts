// The block of each value of a side's metrics (A/B), for the paired statistic
// (stats/paired.ts). Read value by value from the parsed runs, not assumed one a run: a run
// that gave no value of a metric (a key missing, a NaN the parser calls not measured)
// leaves that metric one value short, and a block whose values are all of one side is
// then left out of its pairing and named, where a count that no longer matched the runs
// used to drop the pairing for the whole metric and compare runs across blocks.

import type { BenchmarkResult } from '../model.js';
import type { ParsedRunFiles } from '../runner/measured.js';

type ParsedRun = ParsedRunFiles['runs'][number];

/** A side's runs as parsed, and the block each came from. */
export interface RunsInBlocks {
  runs: readonly ParsedRun[];
  /** The block of each parsed run (same order). */
  runBlocks: readonly number[];
  /** The block of each run outcome: figures of the run itself (start-up, memory) go by these. */
  outcomeBlocks: readonly number[];
}

/**
 * Sets each metric's `blocks`: a metric of the files gets the block of each value in the
 * order aggregateRuns folded them; any other (derived per parsed run, or one a run
 * outcome) when it has one value for each of those. A metric that matches none gets no
 * blocks (the results are fresh from the files) and is not paired.
 */
export function withValueBlocks(
  results: readonly BenchmarkResult[],
  sides: RunsInBlocks,
  fallbackName: string,
): void {
  const byValue = valueBlocks(sides.runs, sides.runBlocks, fallbackName);
  for (const result of results) {
    const own = byValue.get(result.name);
    for (const metric of result.metrics) {
      const candidates = [own?.get(metric.id), sides.runBlocks, sides.outcomeBlocks];
      const blocks = candidates.find((list) => list?.length === metric.values.length);
      if (blocks) metric.blocks = [...blocks];
    }
  }
}

/** Benchmark name → metric id → the block of each value, folded as aggregateRuns does. */
function valueBlocks(
  runs: readonly ParsedRun[],
  runBlocks: readonly number[],
  fallbackName: string,
): Map<string, Map<string, number[]>> {
  const byName = new Map<string, Map<string, number[]>>();
  for (const [index, run] of runs.entries()) {
    for (const parsed of run.benchmarks) {
      const name = parsed.name ?? fallbackName;
      const metrics = byName.get(name) ?? new Map<string, number[]>();
      byName.set(name, metrics);
      for (const measured of parsed.metrics) {
        const blocks = metrics.get(measured.id) ?? [];
        metrics.set(measured.id, blocks);
        blocks.push(runBlocks[index]!);
      }
    }
  }
  return byName;
}
