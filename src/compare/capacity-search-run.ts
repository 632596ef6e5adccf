// A sweep's capacity under its SLO found by boundary searches (`capacity: search`), then
// judged. The variants run as configured (their figures are gated per load); then one
// search per run index r: its first probes are run r of every variant (the SLO's margin at
// each load of the grid, derive/probe-margin.ts), and it probes the loads it chooses
// (derive/boundary-search.ts) with one run each of a probe made from the first variant,
// its load parameter set to the load, against the group's server. Each search's crossing
// is one value of the capacity (derive/searched-capacity.ts), judged in one look with the
// capacity's share of the budget (no passes: a search is the capacity's run).

import type { FamilyMember } from './family.js';
import type { VariantRuns } from './capacity-passes.js';
import { lookOptions, planLooks, type LookOptions } from './sequential.js';
import type { CapacitySearchSpec } from '../config/capacity-search.js';
import type { LoadSetting, SloSpec } from '../config/slo.js';
import type { BenchmarkSpec } from '../config/types.js';
import {
  nextStep,
  type BoundaryProbe,
  type BoundarySearchOptions,
} from '../derive/boundary-search.js';
import { capacityName, deriveCapacity, type DerivedCapacity } from '../derive/capacity.js';
import { LOAD_UNITS, sweepLoads } from '../derive/load.js';
import { probeMargin } from '../derive/probe-margin.js';
import { searchedCapacity, searchOptions, type SearchedRun } from '../derive/searched-capacity.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport, BenchmarkResult, RunOutcome } from '../model.js';

export interface CapacitySearchRunOptions {
  /** The capacity's share of the gate's false-alarm budget. */
  budget: number;
  log: Logger;
  /** One clean run of `spec`, numbered `index`: probe `step` of at most `of`. */
  runOnce: (spec: BenchmarkSpec, index: number, step: number, of: number) => Promise<RunOutcome>;
  /** Clean runs' result files parsed, each run's requests kept (runner/measured.ts). */
  parse: (spec: BenchmarkSpec, outcomes: RunOutcome[]) => Promise<BenchmarkResult[]>;
  judge: (
    derived: DerivedCapacity,
    lookOf: (members: FamilyMember[]) => LookOptions,
  ) => Promise<BenchmarkReport[]>;
}

type Sweep = { name: string; slo: SloSpec; search: CapacitySearchSpec };

/** The parameter names a sweep may give each load under (as derive/load.ts reads them). */
const LOAD_PARAMS: Record<LoadSetting, readonly string[]> = {
  request_rate: ['request_rate', 'request-rate', 'rate', 'qps'],
  max_concurrency: ['max_concurrency', 'max-concurrency', 'concurrency'],
};

/** The searched capacity's reports. */
export async function judgeCapacityBySearch(
  sweep: Sweep,
  variants: readonly VariantRuns[],
  options: CapacitySearchRunOptions,
): Promise<BenchmarkReport[]> {
  const derived = await searchCapacity(sweep, variants, options);
  return options.judge(derived, (members) => lookOptions(planLooks(members, options.budget, 0), 0));
}

const cleanOf = (outcomes: readonly RunOutcome[]) =>
  outcomes.filter((o) => o.kind === 'clean' && o.ok);

/** The grid's capacity, replaced by the searches' where they can run. */
async function searchCapacity(
  sweep: Sweep,
  variants: readonly VariantRuns[],
  options: CapacitySearchRunOptions,
): Promise<DerivedCapacity> {
  const grid = deriveCapacity(
    sweep.name,
    sweep.slo,
    variants.map((v) => ({ variant: v.spec.sweep!.variant, result: v.result })),
  );
  // Without the grid's curve a variant was not measured: the grid's reason stands.
  if (grid.result.info?.capacity === undefined) return grid;
  const parsed = await Promise.all(
    variants.map(async (v) => {
      const results = await options.parse(v.spec, cleanOf(v.outcomes)).catch(() => []);
      return results.find((r) => r.name === v.spec.name);
    }),
  );
  if (parsed.some((r) => r === undefined)) return grid;
  const results = parsed as BenchmarkResult[];
  const loads = sweepLoads(results, sweep.slo.load);
  if ('reason' in loads) return grid;
  const first = variants[0]!.spec;
  const key = LOAD_PARAMS[loads.setting].find((name) => name in (first.sweep?.params ?? {}));
  const unit = LOAD_UNITS[loads.setting];
  if (key === undefined) {
    const reason = `capacity: search sets the load as a sweep parameter, and ${first.name} gives its ${loads.setting} only in its result file; give each variant one (${LOAD_PARAMS[loads.setting].join(', ')})`;
    return notSearched(grid, reason, unit);
  }
  const search = searchOptions(sweep.search, loads.loads, loads.setting);
  const count = Math.min(...variants.map((v) => Math.min(v.spec.runs, cleanOf(v.outcomes).length)));
  const ownProbes = Math.max(1, search.maxRuns - variants.length);
  const probe = probeRunner(sweep, first, key, options, count * ownProbes);
  const searches: SearchedRun[] = [];
  for (let run = 0; run < count; run += 1) {
    const seeds = results.map((result, index) => ({
      load: loads.loads[index]!,
      found: probeMargin(result, sweep.slo, result.requests?.[run], run),
      durationMs: cleanOf(variants[index]!.outcomes)[run]?.durationMs ?? 0,
    }));
    const unread = seeds.find((s) => 'reason' in s.found);
    if (unread && 'reason' in unread.found) return notSearched(grid, unread.found.reason, unit);
    const searched = await oneSearch(
      seedOrder(
        seeds.map((s) => ({ load: s.load, margin: (s.found as { margin: number }).margin })),
      ),
      search,
      probe,
    );
    const durationMs = seeds.reduce((sum, s) => sum + s.durationMs, 0) + searched.durationMs;
    if (searched.failure !== undefined) {
      const searchedSoFar = searchedCapacity(grid, searches, search.resolution, unit);
      const why = `capacity search ${run + 1} stopped: ${searched.failure}; the capacity is judged on the searches before it`;
      if (searches.length === 0) return notSearched(grid, why, unit);
      return { ...searchedSoFar, warnings: [...searchedSoFar.warnings, why] };
    }
    searches.push({ run, result: searched.result, seeded: seeds.length, durationMs });
    options.log.info(
      `${capacityName(sweep.name)}: search ${run + 1} of ${count}: ${describe(searched.result, unit)}`,
    );
  }
  return searchedCapacity(grid, searches, search.resolution, unit);
}

function describe(result: SearchedRun['result'], unit: string): string {
  const bracket = result.bracket ? `, bracket ${result.bracket.join('–')}` : '';
  return `${result.kind} ${Number(result.value.toPrecision(4))} ${unit}${bracket}, ${result.runs} runs`;
}

/** The grid's result with the capacity not measured, and why. */
function notSearched(grid: DerivedCapacity, reason: string, unit: string): DerivedCapacity {
  const note = { reason, unit, direction: 'higher-is-better' as const };
  const result = {
    ...grid.result,
    metrics: [],
    notMeasured: { ...grid.result.notMeasured, capacity: note },
  };
  return { result, warnings: [] };
}

/**
 * The grid's probes in an order the search can start from: the bracket's ends last, the
 * one that failed before the one that held, so the Illinois weighting (which halves the
 * end retained several probes in a row) starts even instead of reading the grid's order
 * (every load that failed last) as a run of failed probes.
 */
export function seedOrder(seeds: readonly BoundaryProbe[]): BoundaryProbe[] {
  const sorted = [...seeds].sort((a, b) => a.load - b.load);
  const high = sorted.find((p) => p.margin < 0);
  const held = sorted.filter((p) => p.margin >= 0 && (!high || p.load < high.load));
  const low = held.at(-1);
  const ends = [high, low].filter((p): p is BoundaryProbe => p !== undefined);
  return [...sorted.filter((p) => !ends.includes(p)), ...ends];
}

type Probe = (
  load: number,
) => Promise<{ margin: number; durationMs: number } | { failure: string }>;

/** One search from the grid's probes of its run index; stops at the first probe that fails. */
async function oneSearch(
  seeds: BoundaryProbe[],
  options: BoundarySearchOptions,
  probe: Probe,
): Promise<
  | { result: SearchedRun['result']; durationMs: number; failure?: undefined }
  | { failure: string; durationMs: number }
> {
  const probes = [...seeds];
  let durationMs = 0;
  for (;;) {
    const step = nextStep(probes, options);
    if (step.kind === 'done') return { result: step.result, durationMs };
    const measured = await probe(step.load);
    if ('failure' in measured) return { failure: measured.failure, durationMs };
    durationMs += measured.durationMs;
    probes.push({ load: step.load, margin: measured.margin });
  }
}

/** Runs one probe at a load: the first variant with its load parameter set, parsed, its margin. */
function probeRunner(
  sweep: Sweep,
  first: BenchmarkSpec,
  key: string,
  options: CapacitySearchRunOptions,
  of: number,
): Probe {
  let index = 0;
  return async (load) => {
    index += 1;
    const spec: BenchmarkSpec = {
      ...first,
      name: capacityName(sweep.name),
      sweep: {
        ...first.sweep!,
        variant: 'capacity',
        params: { ...first.sweep!.params, [key]: load },
      },
    };
    const outcome = await options.runOnce(spec, index, index, of);
    if (!outcome.ok)
      return {
        failure: `the probe at ${load} (run ${index}) failed: ${outcome.error ?? 'unknown error'}`,
      };
    const parsed = await options
      .parse(spec, [outcome])
      .then((results) => results.find((r) => r.name === spec.name))
      .catch(() => undefined);
    if (!parsed)
      return { failure: `the probe at ${load} (run ${index}) wrote a result the gate cannot read` };
    const found = probeMargin(parsed, sweep.slo, parsed.requests?.[0], 0);
    if ('reason' in found)
      return { failure: `the probe at ${load} (run ${index}): ${found.reason}` };
    options.log.info(
      `${spec.name}: probe at ${load}: the SLO ${found.margin >= 0 ? 'held' : 'failed'} (margin ${found.margin.toFixed(3)})`,
    );
    return { margin: found.margin, durationMs: outcome.durationMs };
  };
}
