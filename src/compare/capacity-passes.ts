// A sweep's capacity under its SLO, judged with confirmation passes like any gated metric:
// the first look on the variants' runs as they were measured, and while the capacity is
// open (neither settled nor failed, compare/sequential.ts: needsMoreRuns) and passes
// remain, batches of passes over the whole sweep. A pass runs every variant once more
// (against the server the group still holds; one that has the run already from its own
// confirmation runs sits it out), so it adds one capacity: run r of every variant forms
// sweep r (derive/capacity.ts). The looks follow the group-sequential plan
// of a benchmark's confirmation runs (up to four looks, the earlier ones sharing a fifth of
// the capacity's share of the budget), with `confirm-runs` counting passes. The variants'
// own verdicts stand: their runs in a pass serve the capacity only.

import type { FamilyMember } from './family.js';
import {
  lookOptions,
  needsMoreRuns,
  planLooks,
  sequentialPlan,
  withConfirmation,
  type LookOptions,
  type LookPlan,
} from './sequential.js';
import type { BenchmarkSpec } from '../config/types.js';
import type { SloSpec } from '../config/slo.js';
import { deriveCapacity, type DerivedCapacity } from '../derive/capacity.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport, BenchmarkResult, RunOutcome } from '../model.js';

/** One variant of the sweep: its spec, its runs so far and its result as its own look judged it. */
export interface VariantRuns {
  spec: BenchmarkSpec;
  outcomes: RunOutcome[];
  /** Undefined when the variant could not be measured. */
  result?: BenchmarkResult;
}

export interface CapacityPassOptions {
  /** The capacity's share of the gate's false-alarm budget. */
  budget: number;
  /** Passes of the whole sweep the looks may add (the entry's `confirm-runs`). */
  maxPasses: number;
  log: Logger;
  /** Runs one more clean run of a variant, numbered `index`, for pass `pass` (runner/benchmark.ts). */
  runOnce: (spec: BenchmarkSpec, index: number, pass: number) => Promise<RunOutcome>;
  /** Judges the derived capacity with the look's part of the budget. */
  judge: (
    derived: DerivedCapacity,
    lookOf: (members: FamilyMember[]) => LookOptions,
  ) => Promise<BenchmarkReport[]>;
  /** A variant's result from its clean runs (parsed, with the SLO's derived metrics). */
  measure: (spec: BenchmarkSpec, outcomes: RunOutcome[]) => Promise<BenchmarkResult | undefined>;
}

/** The capacity's reports after as many looks as it needed. */
export async function judgeCapacityWithPasses(
  sweep: { name: string; slo: SloSpec },
  variants: readonly VariantRuns[],
  options: CapacityPassOptions,
): Promise<BenchmarkReport[]> {
  const { budget, maxPasses, log } = options;
  const { measure } = options;
  let current = variants.map((v) => ({ ...v, outcomes: [...v.outcomes] }));
  let planned: LookPlan | undefined;
  const judgeLook = (look: number, warnings: string[]) => {
    const derived = deriveCapacity(
      sweep.name,
      sweep.slo,
      current.map((v) => ({ variant: v.spec.sweep!.variant, result: v.result })),
    );
    const withWarnings = { ...derived, warnings: [...derived.warnings, ...warnings] };
    return options.judge(withWarnings, (members) => {
      planned ??= planLooks(members, budget, maxPasses);
      return lookOptions(planned, look);
    });
  };
  const first = await judgeLook(0, []);
  const { schedule } = planned ?? sequentialPlan(budget, 0);
  let reports = first;
  let passes = 0;
  let runs = 0;
  const warnings: string[] = [];
  for (let look = 1; look < schedule.length && needsMoreRuns(reports); look += 1) {
    const count = schedule[look]! - passes;
    log.info(
      `${sweep.name}/capacity: not settled yet; ${count} more pass(es) of the whole sweep ` +
        `(each of its ${current.length} variants one more run; at most ${maxPasses} passes in all)`,
    );
    const taken = await takePasses(current, count, passes, options.runOnce);
    current = await Promise.all(
      taken.variants.map(async (v) => ({ ...v, result: await measure(v.spec, v.outcomes) })),
    );
    passes += taken.passes;
    runs += taken.runs;
    if (taken.failure) warnings.push(taken.failure);
    reports = await judgeLook(look, warnings);
    if (taken.failure) break;
  }
  return passes === 0
    ? reports
    : reports.map((r) => withConfirmation(r, first, runs, { sweepPasses: passes }));
}

/**
 * `count` passes over the variants in order; stops at the first run that fails. A variant
 * that already has the clean run a pass needs (its own confirmation runs) sits it out:
 * run r of every variant forms sweep r, whenever it was taken.
 */
async function takePasses(
  variants: VariantRuns[],
  count: number,
  done: number,
  runOnce: CapacityPassOptions['runOnce'],
): Promise<{ variants: VariantRuns[]; passes: number; runs: number; failure?: string }> {
  const next = variants.map((v) => ({ ...v, outcomes: [...v.outcomes] }));
  const cleanRuns = (v: VariantRuns) => v.outcomes.filter((o) => o.kind === 'clean' && o.ok).length;
  const sweeps = Math.min(...next.map(cleanRuns));
  let runs = 0;
  for (let pass = 1; pass <= count; pass += 1) {
    for (const variant of next.filter((v) => cleanRuns(v) < sweeps + pass)) {
      const index = variant.outcomes.length + 1;
      const outcome = await runOnce(variant.spec, index, done + pass);
      if (!outcome.ok) {
        // The pass is incomplete: its run index forms no sweep, the passes before it stand.
        const why = outcome.error ?? 'unknown error';
        const failure = `capacity pass ${done + pass}: ${variant.spec.name} run ${index} failed (${why}); the capacity is judged on the passes before it`;
        return { variants: next, passes: pass - 1, runs, failure };
      }
      variant.outcomes.push(outcome);
      runs += 1;
    }
  }
  return { variants: next, passes: count, runs };
}
