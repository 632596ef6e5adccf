// One probe of the boundary search read as the gate reads a run: the SLO's margin
// (slo-margin.ts) of one run of a `vllm bench serve` result, from its percentile
// objectives (as capacity.ts checks them) and its requests one by one (as goodput.ts counts
// them: a request is good when it meets every per-request objective; a failed one never
// is). ≥ 0 exactly when the run's percentiles are within their limits and its attainment
// reaches the SLO's. What the gate's search probes with (compare/capacity-search-run.ts). Pure.

import type { SloSpec } from '../config/slo.js';
import type { BenchmarkResult, RequestTable } from '../model.js';
import { perRequestObjectives } from './goodput.js';
import { objectiveValues } from './objectives.js';
import { attainmentMargin, sloMargin } from './slo-margin.js';

const COLUMN = { ttft: 'ttft', tpot: 'tpot', itl: 'itlMax', e2el: 'e2el' } as const;

/** The margin of run `run` (0-based) of `result`, or why it cannot be read. */
export function probeMargin(
  result: BenchmarkResult,
  slo: SloSpec,
  requests: RequestTable | null | undefined,
  run = 0,
): { margin: number } | { reason: string } {
  const margins: number[] = [];
  for (const objective of slo.objectives) {
    if (objective.percentile === undefined) continue;
    const found = objectiveValues(result, objective);
    if (!found.ok) return { reason: found.reason };
    const value = found.metric.values[run];
    if (value === undefined) return { reason: `${result.name} has no run ${run + 1}` };
    margins.push(sloMargin([{ value, limit: objective.limitMs, holds: 'at-most' }]));
  }
  const perRequest = perRequestObjectives(slo);
  if (perRequest.length > 0) {
    if (!requests) {
      return { reason: `${result.name} lists no requests one by one (--save-detailed)` };
    }
    const ratios: number[] = [];
    for (let index = 0; index < requests.succeeded; index += 1) {
      let worst = 0;
      for (const objective of perRequest) {
        const column = requests[COLUMN[objective.metric]];
        if (!column) return { reason: `${result.name} lists no ${objective.metric} per request` };
        worst = Math.max(worst, column[index]! / objective.limitMs);
      }
      ratios.push(worst);
    }
    // A request that failed meets nothing.
    for (let index = requests.succeeded; index < requests.sent; index += 1) ratios.push(Infinity);
    margins.push(attainmentMargin(ratios, slo.attainment));
  }
  return { margin: Math.min(...margins) };
}
