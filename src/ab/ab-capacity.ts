// A/B mode's capacity under the SLO. A sweep's variants (one benchmark per load) each run
// in ABBA blocks of their own; each side's capacity is derived as the stored mode derives
// it (derive/capacity.ts: run r of every variant forms sweep r, one capacity a sweep). Run
// r of a side lies in the same block of every variant's schedule (two runs a side a block),
// so capacity r belongs to that block, and the two sides' capacities are judged paired
// within the blocks like any metric (stats/paired.ts), with the capacity's own share of
// the gate's false-alarm budget (one more benchmark, as in the stored mode). While it is
// open, capacity-blocks.ts adds blocks to every variant and judges it again, in looks.

import type { SloSpec } from '../config/slo.js';
import type { BenchmarkSpec, GateConfig } from '../config/types.js';
import { lookOptions, sequentialPlan, type LookOptions } from '../compare/sequential.js';
import { familyMembers, judgeResults } from '../compare/judge.js';
import type { FamilyMember } from '../compare/family.js';
import { deriveCapacity, type DerivedCapacity } from '../derive/capacity.js';
import type { BenchmarkReport, BenchmarkResult } from '../model.js';
import { abbaBlocks, type AbSide, type ScheduledRun } from './schedule.js';

/** What a variant's A/B run gave (run-ab.ts' AbBenchmark), and the capacity's likewise. */
export interface AbOutcome {
  reports: BenchmarkReport[];
  order: ScheduledRun[];
  addedBlocks: number;
  base: BenchmarkResult[];
}

/** A sweep with an SLO, as the head's config has it. */
export interface AbSweep {
  name: string;
  slo: SloSpec;
  /** Its variants' benchmark names and variant names, in load order as configured. */
  variants: { benchmark: string; variant: string }[];
  thresholds: Record<string, number>;
}

/** One variant's results as judged: each side's, undefined when it was not measured. */
export type VariantSides = Record<AbSide, BenchmarkResult | undefined>;

/** The sweeps of these (head) specs whose capacity is judged: each sweep with an `slo:`. */
export function abSweeps(specs: readonly BenchmarkSpec[]): AbSweep[] {
  const sweeps = new Map<string, AbSweep>();
  for (const spec of specs) {
    if (!spec.sweep || !spec.slo) continue;
    const sweep = sweeps.get(spec.sweep.name) ?? {
      name: spec.sweep.name,
      slo: spec.slo,
      variants: [],
      thresholds: spec.thresholds,
    };
    sweep.variants.push({ benchmark: spec.name, variant: spec.sweep.variant });
    sweeps.set(sweep.name, sweep);
  }
  return [...sweeps.values()];
}

export interface AbCapacityOptions {
  config: Pick<GateConfig, 'confidence' | 'failOnInconclusive'>;
  /** The capacity's share of the gate's false-alarm budget. */
  budget: number;
  baseLabel: string;
}

/** A sweep's capacity in one look from its variants' outcomes (one of them could not be measured). */
export function abCapacityOnce(
  sweep: AbSweep,
  outcomes: readonly AbOutcome[],
  options: AbCapacityOptions,
): AbOutcome {
  const names = new Set(sweep.variants.map((v) => v.benchmark));
  const variants = outcomes.filter((o) => o.reports.some((r) => names.has(r.name)));
  const resultsOf = (benchmark: string) => {
    const outcome = variants.find((o) => o.reports.some((r) => r.name === benchmark));
    return {
      base: outcome?.base.find((b) => b.name === benchmark),
      head: outcome?.reports.find((r) => r.name === benchmark)?.result,
    };
  };
  const judged = judgeAbCapacity(sweep, resultsOf, options);
  const blocks = Math.min(...variants.map((v) => new Set(v.order.map((run) => run.block)).size));
  return {
    reports: judged.reports,
    order: abbaBlocks(0, Number.isFinite(blocks) ? blocks : 0),
    addedBlocks: 0,
    base: [judged.base],
  };
}

/** One look with the capacity's whole share of the budget. */
const ONE_LOOK = (budget: number) => () => lookOptions(sequentialPlan(budget, 0), 0);

/** The capacity's report (head against base, paired in blocks) and the base's capacity. */
export function judgeAbCapacity(
  sweep: AbSweep,
  resultsOf: (benchmark: string) => VariantSides,
  options: AbCapacityOptions,
  lookOf: (members: FamilyMember[]) => LookOptions = ONE_LOOK(options.budget),
): { reports: BenchmarkReport[]; base: BenchmarkResult } {
  const side = (name: AbSide) =>
    blockedCapacity(
      sweep,
      sweep.variants.map((v) => ({ variant: v.variant, result: resultsOf(v.benchmark)[name] })),
    );
  const base = side('base');
  const head = side('head');
  const baseline = {
    source: `the base side (${options.baseLabel}), measured in the same blocks`,
    benchmarks: [base.result],
  };
  const thresholds = () => sweep.thresholds;
  const reports = judgeResults([head.result], baseline, thresholds, {
    confidence: options.config.confidence,
    failOnInconclusive: options.config.failOnInconclusive,
    baselineName: 'the base',
    ...lookOf(familyMembers([head.result], baseline, thresholds)),
  });
  const said = [
    ...base.warnings.map((w) => `base: ${w}`),
    ...head.warnings.map((w) => `head: ${w}`),
  ];
  return {
    reports: reports.map((report) => ({ ...report, warnings: [...report.warnings, ...said] })),
    base: base.result,
  };
}

/** One side's capacity, each value with the block its sweep ran in when every variant agrees. */
function blockedCapacity(
  sweep: AbSweep,
  variants: { variant: string; result: BenchmarkResult | undefined }[],
): DerivedCapacity {
  const derived = deriveCapacity(sweep.name, sweep.slo, variants);
  const [metric] = derived.result.metrics;
  if (!metric || !derived.sweeps) return derived;
  const blocks = derived.sweeps.map((run) => blockOfRun(variants, run));
  if (blocks.some((block) => block === undefined)) {
    const why = 'its variants ran that sweep in different blocks, so it is compared unpaired';
    return { ...derived, warnings: [...derived.warnings, `capacity: ${why}`] };
  }
  return {
    ...derived,
    result: { ...derived.result, metrics: [{ ...metric, blocks: blocks as number[] }] },
  };
}

/** The block of run `run` (0-based) in every variant, or undefined when they differ or lack it. */
function blockOfRun(
  variants: { result: BenchmarkResult | undefined }[],
  run: number,
): number | undefined {
  const blocks = new Set(
    variants.map(({ result }) => result?.metrics.find((m) => m.blocks)?.blocks?.[run]),
  );
  const [block] = blocks;
  return blocks.size === 1 ? block : undefined;
}
