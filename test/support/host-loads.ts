// Gate runs with the host's load, for the host-load tests (runner, record, compare): loads
// by their shares, and results with them put on or taken off (runs: clean-runs.ts).
import type { BenchmarkResult, HostLoad, Metric } from '../../src/model.js';

/** A host load: `other` processes' share of the CPU, and the hypervisor's steal. */
export const hostLoad = (other: number, steal = 0): HostLoad => ({ other, steal });

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
