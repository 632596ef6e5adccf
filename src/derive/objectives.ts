// The figures an SLO's percentile objectives are checked on: each run's percentile of the
// objective's metric, from the metric the file gives (ttft_p99) or from the run's
// per-request samples (ttft_p90 of a --save-detailed file that has no p90 key).

import type { SloObjective } from '../config/slo.js';
import { percentileSuffix } from '../formats/metrics.js';
import type { BenchmarkResult, Metric } from '../model.js';
import { percentile } from '../stats/percentile.js';

/** How many clean runs a result holds: its metrics' longest run of values. */
export function runCountOf(result: BenchmarkResult): number {
  return result.metrics.reduce((most, metric) => Math.max(most, metric.values.length), 0);
}

/** `ttft_p99`; E2E latency as vllm bench serve names it (`e2el_p99`). */
export function objectiveMetricId(objective: SloObjective): string {
  return `${objective.metric}_${percentileSuffix(objective.percentile ?? 100)}`;
}

/** Ids the objective's percentile goes by: e2el is latency_* in the formats that share it. */
function candidateIds(objective: SloObjective): string[] {
  const id = objectiveMetricId(objective);
  return objective.metric === 'e2el' ? [id, id.replace(/^e2el_/, 'latency_')] : [id];
}

/** The per-request samples of the objective's metric family, one set per run. */
function familySamples(result: BenchmarkResult, objective: SloObjective, runs: number) {
  const prefixes = objective.metric === 'e2el' ? ['e2el_', 'latency_'] : [`${objective.metric}_`];
  return result.metrics.find(
    (metric) =>
      prefixes.some((prefix) => metric.id.startsWith(prefix)) &&
      metric.unit === 'ms' &&
      metric.samples !== undefined &&
      metric.samples.length === runs &&
      metric.samples.every((run) => run.length > 0),
  )?.samples;
}

export type ObjectiveValues =
  { ok: true; metric: Metric; computed: boolean } | { ok: false; reason: string };

/**
 * The objective's percentile in every clean run, as a metric: the result's own when it
 * has one value per run, else computed from the runs' samples (`computed`); else why not.
 */
export function objectiveValues(result: BenchmarkResult, objective: SloObjective): ObjectiveValues {
  const runs = runCountOf(result);
  const ids = candidateIds(objective);
  const own = ids
    .map((id) => result.metrics.find((m) => m.id === id && m.values.length === runs))
    .find((metric) => metric !== undefined);
  if (own) return { ok: true, metric: own, computed: false };
  const samples = familySamples(result, objective, runs);
  const p = objective.percentile ?? 100;
  if (samples) {
    const metric: Metric = {
      id: ids[0]!,
      unit: 'ms',
      direction: 'lower-is-better',
      values: samples.map((run) => percentile(run, p)),
      samples,
      percentile: p,
    };
    return { ok: true, metric, computed: true };
  }
  return {
    ok: false,
    reason:
      `${result.name} has no ${ids[0]} in every run and no per-request ${objective.metric} ` +
      `samples to compute it from (vllm bench serve writes p${p}_${objective.metric}_ms with ` +
      `--percentile-metrics ${objective.metric} --metric-percentiles ${p}, and the samples with --save-detailed)`,
  };
}
