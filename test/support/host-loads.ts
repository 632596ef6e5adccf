// Gate runs with the host's load, for the host-load tests (runner, record, compare): loads
// by their shares, clean runs that carry them, and results with them put on or taken off.
import type { BenchmarkResult, HostLoad, Metric, RunInfo } from '../../src/model.js';

/** A host load: `other` processes' share of the CPU, and the hypervisor's steal. */
export const hostLoad = (other: number, steal = 0): HostLoad => ({ other, steal });

/** `count` clean runs of 1 s that passed, each with `load` when one is given. */
export function cleanRuns(count: number, load?: HostLoad): RunInfo[] {
  return Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    kind: 'clean' as const,
    ok: true,
    durationMs: 1000,
    exitCode: 0,
    timedOut: false,
    ...(load === undefined ? {} : { hostLoad: load }),
  }));
}

/** The result with run i's load `loads[i]` (undefined: that run measured none). */
export function withRunLoads(
  result: BenchmarkResult,
  loads: readonly (HostLoad | undefined)[],
): BenchmarkResult {
  const runs = result.runs.map((run, i) => {
    const load = loads[i];
    return load ? { ...run, hostLoad: load } : run;
  });
  return { ...result, runs };
}

/** The result as recorded before loads were measured: no run has one. */
export function withoutRunLoads(result: BenchmarkResult): BenchmarkResult {
  return { ...result, runs: result.runs.map(({ hostLoad: _, ...run }) => run) };
}

/** The result's metric `id` (it must be there). */
export const metricOf = (result: BenchmarkResult | undefined, id: string): Metric =>
  result!.metrics.find((m) => m.id === id)!;

/** Per-record loads as a merge keeps them, rounded off float noise (null: none measured). */
export const roundedLoads = (loads: readonly (number | null)[] | undefined) =>
  loads?.map((load) => load && +load.toFixed(6));
