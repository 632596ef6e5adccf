// The derive stage for one benchmark: its measured result and the entry's SLO → the same
// result with the derived metrics (slo_attainment, goodput, and each percentile objective
// the file has no key for), without its request tables. Pure.

import { objectiveText, type SloSpec } from '../config/slo.js';
import type { BenchmarkResult, Metric } from '../model.js';
import { goodputNotMeasured, goodputOfRuns, perRequestObjectives } from './goodput.js';
import { objectiveValues, runCountOf } from './objectives.js';

export interface Derived {
  result: BenchmarkResult;
  /** For the benchmark's report: what the gate computed instead of the file. */
  warnings: string[];
}

/** The result with its SLO's metrics; without an SLO, only its request tables dropped. */
export function deriveSloMetrics(measured: BenchmarkResult, slo: SloSpec | undefined): Derived {
  const { requests, ...result } = measured;
  if (!slo) return { result, warnings: [] };
  const warnings: string[] = [];
  const metrics = [...result.metrics, ...percentileMetrics(result, slo)];
  const notMeasured = { ...result.notMeasured };
  const objectives = perRequestObjectives(slo);
  if (objectives.length > 0) {
    const throughput = result.metrics.find((m) => m.id === 'throughput')?.values;
    const runs = runCountOf(result);
    const computed = goodputOfRuns(requests, runs, throughput, objectives);
    if ('reason' in computed) {
      // The file's request_goodput (from --goodput), if any, stays: it is all there is.
      const notes = goodputNotMeasured(computed.reason);
      if (metrics.some((m) => m.id === 'goodput')) delete notes.goodput;
      Object.assign(notMeasured, notes);
    } else {
      const fromFile = metrics.findIndex((m) => m.id === 'goodput');
      if (fromFile >= 0) {
        metrics.splice(fromFile, 1);
        warnings.push(
          `goodput is the gate's: requests meeting ${objectives.map(objectiveText).join(', ')} ` +
            "per second, in place of the file's request_goodput (from vllm bench serve --goodput)",
        );
      }
      metrics.push(computed.attainment, computed.goodput);
      delete notMeasured.goodput;
    }
  }
  return {
    result: {
      ...result,
      metrics,
      ...(Object.keys(notMeasured).length > 0 ? { notMeasured } : {}),
    },
    warnings,
  };
}

/**
 * The percentile objectives' metrics the result does not have but its samples give
 * (ttft_p90 of a --save-detailed file), so the variant's table shows what the SLO checks.
 */
function percentileMetrics(result: BenchmarkResult, slo: SloSpec): Metric[] {
  const added: Metric[] = [];
  for (const objective of slo.objectives) {
    if (objective.percentile === undefined) continue;
    const values = objectiveValues(result, objective);
    if (!values.ok || !values.computed) continue;
    if (added.some((m) => m.id === values.metric.id)) continue;
    added.push(values.metric);
  }
  return added;
}

/** Every benchmark of one configured entry through deriveSloMetrics. */
export function deriveAll(results: BenchmarkResult[], slo: SloSpec | undefined): Derived[] {
  return results.map((result) => deriveSloMetrics(result, slo));
}
