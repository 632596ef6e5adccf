// A sweep's capacity under its SLO on the dashboard: the capacity benchmark's series holds
// the capacity night by night; beside it, the newest night's latency–load curve, which
// the record keeps in `info.capacity` (derive/stored-curve.ts), per objective with its
// SLO line, and the capacity marked on the load axis of the objective that set it.

import type { BaselineRecord } from '../baseline/record.js';
import { settingObjective } from '../derive/setting-objective.js';
import { curveOf } from '../derive/stored-curve.js';
import { environmentKeyOf, inHistory, type StoredRecordRef } from '../history/series.js';
import { CAPACITY_FORMAT } from '../model.js';

export interface CapacityObjective {
  /** The figure checked at each load: `e2el_p99`, `slo_attainment`, ... */
  metric: string;
  unit: string;
  /** The SLO line. */
  limit: number;
  holds: 'at-most' | 'at-least';
  /** Per load, from the lowest: the mean of the runs. */
  loads: number[];
  values: number[];
}

/** A side's capacity, drawn on the load axis of one objective's chart. */
export interface CapacityAxisMark {
  /** The side's name where there are sides (`base`, `head`); empty for the one. */
  side: string;
  value: number;
  atLeast: boolean;
  /**
   * The objective (index into `objectives`) whose SLO stops holding first as load grows;
   * when the SLO held at every load, the one with the least room left at the highest load.
   */
  objective: number;
}

export interface CapacityChart {
  gate: string;
  benchmark: string;
  /** The environment key, as the benchmark's series name it. */
  environment: string;
  /** The record drawn: unix seconds and its commit (12 hex, or empty). */
  at: number;
  commit: string;
  /** `request_rate` or `max_concurrency`, and the capacity's unit. */
  load: string;
  unit: string;
  /** The mean of the runs' capacities; null when the SLO failed at the lowest load. */
  capacity: { value: number; atLeast: boolean } | null;
  objectives: CapacityObjective[];
  /** Each side's capacity and the objective that set it; none when the SLO failed at once. */
  marks: CapacityAxisMark[];
}

/**
 * Per capacity benchmark and environment, the curve of its newest history record that
 * keeps one. Records of pull requests, errored runs, other branches, A/B comparisons and
 * manual acceptances (copies of a night already there) are left out, as from the series.
 */
export function capacityCharts(
  records: readonly StoredRecordRef[],
  defaultBranch?: string,
): CapacityChart[] {
  const newest = new Map<string, BaselineRecord>();
  for (const { record } of records) {
    if (record.ab !== undefined || record.result.format !== CAPACITY_FORMAT) continue;
    if (!inHistory(record, defaultBranch) || record.acceptance?.reason === 'manual') continue;
    if (!curveOf(record.result)) continue;
    const key = JSON.stringify([record.gateKey, record.benchmark, environmentKeyOf(record)]);
    const known = newest.get(key);
    if (!known || known.createdAt < record.createdAt) newest.set(key, record);
  }
  return [...newest.values()]
    .map(chartOf)
    .sort((a, b) => a.gate.localeCompare(b.gate) || a.benchmark.localeCompare(b.benchmark));
}

function chartOf(record: BaselineRecord): CapacityChart {
  const curve = curveOf(record.result)!;
  const capacity = curve.capacity
    ? { value: round(curve.capacity.value), atLeast: curve.capacity.atLeast }
    : null;
  return {
    gate: record.gateKey,
    benchmark: record.benchmark,
    environment: environmentKeyOf(record),
    at: Math.round(Date.parse(record.createdAt) / 1000),
    commit: /^[0-9a-f]{7,64}$/i.test(record.commit) ? record.commit.slice(0, 12).toLowerCase() : '',
    load: curve.load,
    unit: curve.unit,
    capacity,
    objectives: curve.series.map((series) => {
      const points = [...series.points].sort((a, b) => a.load - b.load);
      return {
        metric: series.metric,
        unit: series.unit,
        limit: series.limit,
        holds: series.holds,
        loads: points.map((p) => p.load),
        values: points.map((p) => round(p.value)),
      };
    }),
    marks:
      capacity && curve.series.length > 0
        ? [{ side: '', ...capacity, objective: settingObjective(curve) }]
        : [],
  };
}

/** Five significant digits: enough for a chart, and short in JSON. */
function round(value: number): number {
  return Number(value.toPrecision(5));
}
