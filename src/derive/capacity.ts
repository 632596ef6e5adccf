// Capacity under the SLO: from the variants of a sweep over request rates (or
// concurrencies), the highest load at which the SLO holds, once per run index (run r of
// every variant forms sweep r), so that the capacity has one value per run and the judge
// an interval like any metric. The result is a benchmark of its own, `<sweep>/capacity`,
// whose info keeps the latency–load curve a chart draws. Pure.

import type { SloSpec } from '../config/slo.js';
import {
  CAPACITY_FORMAT,
  type BenchmarkResult,
  type CapacityMark,
  type Metric,
  type NotMeasuredNote,
  type RunInfo,
} from '../model.js';
import { capacityOfSweep, type Check, type SweepCapacity } from './crossing.js';
import { perRequestObjectives } from './goodput.js';
import { LOAD_UNITS, sweepLoads } from './load.js';
import { objectiveValues } from './objectives.js';
import { storedCurve, type StoredSeries } from './stored-curve.js';

/** The name of a sweep's capacity benchmark. */
export function capacityName(sweep: string): string {
  return `${sweep}/capacity`;
}

export { CAPACITY_FORMAT };

export interface SweepVariantResult {
  variant: string;
  /** Undefined when the variant could not be measured (its runs failed). */
  result?: BenchmarkResult;
}

/** One objective across the sweep: its figure per variant and run. */
interface SweepCheck {
  metric: string;
  unit: string;
  limit: number;
  holds: Check['holds'];
  /** Per variant, the values of its runs. */
  values: number[][];
}

export interface DerivedCapacity {
  result: BenchmarkResult;
  /** What the reader must know: "at least", runs below the lowest load. */
  warnings: string[];
  /** The run index (0-based) each capacity value came from: sweeps below the lowest load give none. */
  sweeps?: number[];
}

export function deriveCapacity(
  sweep: string,
  slo: SloSpec,
  variants: readonly SweepVariantResult[],
): DerivedCapacity {
  const failed = variants.filter((v) => !v.result || v.result.metrics.length === 0);
  if (failed.length > 0) {
    return notMeasured(
      sweep,
      undefined,
      `variant ${failed.map((v) => v.variant).join(', ')} was not measured, and capacity needs every load of the sweep`,
    );
  }
  const results = variants.map((v) => v.result!);
  const loads = sweepLoads(results, slo.load);
  if ('reason' in loads) return notMeasured(sweep, undefined, loads.reason);
  const unit = LOAD_UNITS[loads.setting];
  const checks = sweepChecks(results, slo);
  if ('reason' in checks) return notMeasured(sweep, unit, checks.reason);
  const sweeps = Math.min(...checks.flatMap((check) => check.values.map((runs) => runs.length)));
  const capacities = sweepCapacities(loads.loads, checks, sweeps);
  const measured = capacities.flatMap((c, run) =>
    c.kind === 'below-lowest' ? [] : [{ value: c.value, atLeast: c.kind === 'at-least', run }],
  );
  const warnings = capacityWarnings(capacities, unit);
  const mark: CapacityMark | null =
    measured.length === 0
      ? null
      : {
          value: measured.reduce((sum, m) => sum + m.value, 0) / measured.length,
          atLeast: measured.some((m) => m.atLeast),
        };
  const series = curveSeries(checks, loads.loads, sweeps);
  const base = capacityResult(sweep, results, sweeps, {
    capacity: storedCurve(loads.setting, unit, series, mark),
  });
  if (measured.length === 0) {
    const lowest = Math.min(...loads.loads);
    const reason = `the SLO fails at the lowest load of the sweep already (${loads.setting} ${lowest}): the capacity is below it; add lower loads to the sweep`;
    return { result: withNote(base, unit, reason), warnings: [] };
  }
  const metric: Metric = {
    id: 'capacity',
    unit,
    direction: 'higher-is-better',
    values: measured.map((m) => m.value),
  };
  return {
    result: { ...base, metrics: [metric] },
    warnings,
    sweeps: measured.map((m) => m.run),
  };
}

/** Sweep r of run r of every variant, for each run index every variant has. */
function sweepCapacities(loads: number[], checks: SweepCheck[], sweeps: number): SweepCapacity[] {
  return Array.from({ length: sweeps }, (_, run) =>
    capacityOfSweep(
      loads.map((load, variant) => ({
        load,
        checks: checks.map(({ values, limit, holds }) => ({
          value: values[variant]![run]!,
          limit,
          holds,
        })),
      })),
    ),
  );
}

/** Each objective's figures per variant and run: percentile objectives, then the attainment. */
function sweepChecks(
  results: readonly BenchmarkResult[],
  slo: SloSpec,
): SweepCheck[] | { reason: string } {
  const checks: SweepCheck[] = [];
  for (const objective of slo.objectives) {
    if (objective.percentile === undefined) continue;
    const values: number[][] = [];
    let id = '';
    for (const result of results) {
      const found = objectiveValues(result, objective);
      if (!found.ok) return { reason: found.reason };
      id = found.metric.id;
      values.push(found.metric.values);
    }
    checks.push({ metric: id, unit: 'ms', limit: objective.limitMs, holds: 'at-most', values });
  }
  if (perRequestObjectives(slo).length > 0) {
    const values: number[][] = [];
    for (const result of results) {
      const attainment = result.metrics.find((m) => m.id === 'slo_attainment');
      if (!attainment) {
        const why = result.notMeasured?.slo_attainment?.reason ?? 'it was not measured';
        return { reason: `${result.name} has no slo_attainment: ${why}` };
      }
      values.push(attainment.values);
    }
    const limit = slo.attainment * 100;
    checks.push({ metric: 'slo_attainment', unit: '%', limit, holds: 'at-least', values });
  }
  return checks;
}

/** Per objective, each variant's load and the mean of the runs that formed sweeps. */
function curveSeries(checks: SweepCheck[], loads: number[], sweeps: number): StoredSeries[] {
  return checks.map(({ metric, unit, limit, holds, values }) => ({
    metric,
    unit,
    limit,
    holds,
    points: loads
      .map((load, variant) => {
        const runs = values[variant]!.slice(0, sweeps);
        return { load, value: runs.reduce((sum, v) => sum + v, 0) / runs.length };
      })
      .sort((a, b) => a.load - b.load),
  }));
}

function capacityWarnings(capacities: SweepCapacity[], unit: string): string[] {
  const runs = (kind: SweepCapacity['kind']) =>
    capacities.flatMap((c, run) => (c.kind === kind ? [run + 1] : []));
  const warnings: string[] = [];
  const top = capacities.find((c) => c.kind === 'at-least');
  if (top) {
    warnings.push(
      `capacity is at least ${top.value} ${unit}, the highest load of the sweep: the SLO held at ` +
        `every load in run(s) ${runs('at-least').join(', ')}; add higher loads to find where it stops`,
    );
  }
  const low = capacities.find((c) => c.kind === 'below-lowest');
  if (low && low.kind === 'below-lowest' && runs('below-lowest').length < capacities.length) {
    warnings.push(
      `in run(s) ${runs('below-lowest').join(', ')} the SLO failed at the lowest load already ` +
        `(${low.lowest} ${unit}): those runs give no capacity, the others do`,
    );
  }
  return warnings;
}

/** The capacity benchmark's result without its metric: name, runs (one per sweep), info. */
function capacityResult(
  sweep: string,
  variants: readonly BenchmarkResult[],
  sweeps: number,
  info: Record<string, unknown>,
): BenchmarkResult {
  const clean = variants.map((v) => v.runs.filter((run) => run.kind === 'clean'));
  const runs: RunInfo[] = Array.from({ length: sweeps }, (_, r) => ({
    index: r + 1,
    kind: 'clean',
    ok: true,
    durationMs: clean.reduce((sum, variantRuns) => sum + (variantRuns[r]?.durationMs ?? 0), 0),
    exitCode: 0,
    timedOut: false,
  }));
  return {
    name: capacityName(sweep),
    source: sweep,
    format: CAPACITY_FORMAT,
    metrics: [],
    runs,
    info,
  };
}

function withNote(result: BenchmarkResult, unit: string, reason: string): BenchmarkResult {
  const note: NotMeasuredNote = { reason, unit, direction: 'higher-is-better' };
  return { ...result, metrics: [], notMeasured: { capacity: note } };
}

function notMeasured(sweep: string, unit: string | undefined, reason: string): DerivedCapacity {
  const base = capacityResult(sweep, [], 0, {});
  return { result: withNote(base, unit ?? 'requests/s', reason), warnings: [] };
}
