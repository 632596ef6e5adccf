// Goodput as the gate computes it from a run's requests one by one: a request is good
// when it meets every per-request objective (vLLM's rule: value ≤ limit, TPOT 0 for a
// one-token request; vllm/benchmarks/serve.py, calculate_metrics), failed requests never
// are. slo_attainment is the share of requests sent that are good, goodput the good ones
// per second of the run, both one value per run like any metric.

import { objectiveText, type SloObjective, type SloSpec } from '../config/slo.js';
import type { Metric, NotMeasuredNote, RequestTable } from '../model.js';

/** The request table's column each per-request objective is checked on. */
const COLUMN = { ttft: 'ttft', tpot: 'tpot', itl: 'itlMax', e2el: 'e2el' } as const;

/** What the file must list per request for each column, for the reason a check cannot run. */
const NEEDS = {
  ttft: 'ttfts',
  tpot: 'ttfts, latencies and output_lens',
  itl: 'itls',
  e2el: 'latencies',
} as const;

export function perRequestObjectives(slo: SloSpec): SloObjective[] {
  return slo.objectives.filter((objective) => objective.percentile === undefined);
}

/** Requests of one run that meet every objective; a reason when the table lacks a column. */
export function goodRequests(
  table: RequestTable,
  objectives: readonly SloObjective[],
): { good: number } | { reason: string } {
  const columns: [Float64Array, number][] = [];
  for (const objective of objectives) {
    const column = table[COLUMN[objective.metric]];
    if (!column) {
      return {
        reason: `the file lists no ${NEEDS[objective.metric]} per request, so ${objectiveText(objective)} cannot be checked`,
      };
    }
    columns.push([column, objective.limitMs]);
  }
  let good = 0;
  for (let index = 0; index < table.succeeded; index += 1) {
    if (columns.every(([column, limit]) => column[index]! <= limit)) good += 1;
  }
  return { good };
}

export interface GoodputValues {
  attainment: Metric;
  goodput: Metric;
}

/** Why no run could be checked, when one cannot; else both metrics over all runs. */
export function goodputOfRuns(
  tables: readonly (RequestTable | null)[] | undefined,
  runs: number,
  throughput: readonly number[] | undefined,
  objectives: readonly SloObjective[],
): GoodputValues | { reason: string } {
  const attainment: number[] = [];
  const goodput: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const table = tables?.length === runs ? tables[run] : undefined;
    if (!table) {
      return {
        reason:
          `run ${run + 1}'s result lists no requests one by one, so the per-request objectives ` +
          'cannot be checked (vllm bench serve writes them with --save-detailed)',
      };
    }
    const counted = goodRequests(table, objectives);
    if ('reason' in counted) return { reason: `run ${run + 1}: ${counted.reason}` };
    attainment.push(table.sent > 0 ? (100 * counted.good) / table.sent : 0);
    const perSecond = goodPerSecond(table, counted.good, throughput?.[run]);
    if (perSecond === undefined) {
      return { reason: `run ${run + 1}'s result gives neither duration nor request_throughput` };
    }
    goodput.push(perSecond);
  }
  return {
    attainment: {
      id: 'slo_attainment',
      unit: '%',
      direction: 'higher-is-better',
      values: attainment,
    },
    goodput: { id: 'goodput', unit: 'requests/s', direction: 'higher-is-better', values: goodput },
  };
}

/** good ÷ duration as vLLM computes request_goodput; else the throughput's share of good ones. */
function goodPerSecond(
  table: RequestTable,
  good: number,
  throughput: number | undefined,
): number | undefined {
  if (table.durationSeconds !== undefined) return good / table.durationSeconds;
  if (throughput === undefined || table.succeeded === 0) return undefined;
  return (throughput * good) / table.succeeded;
}

/** The notes of both metrics when they cannot be computed. */
export function goodputNotMeasured(reason: string): Record<string, NotMeasuredNote> {
  return {
    slo_attainment: { reason, unit: '%', direction: 'higher-is-better' },
    goodput: { reason, unit: 'requests/s', direction: 'higher-is-better' },
  };
}
