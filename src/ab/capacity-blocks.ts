// A/B mode's confirmation blocks for a sweep's capacity. The capacity is judged in looks
// like a benchmark's metrics (compare/sequential.ts, with the capacity's own share of the
// budget): while it is open, every variant of the sweep is run up to the look's number of
// blocks (one that has them from its own confirmation blocks sits it out), so run r of a
// side still lies in block r of every variant and capacity r belongs to that block; then
// both sides' capacities are derived again from all the blocks and judged. At most
// `confirmBlocks` more blocks, as for a benchmark. The variants' own verdicts stand: they
// were judged at their own looks, and judging them again on blocks the capacity chose
// would be a look their budget did not plan; the report says what was added to them.

import {
  lookOptions,
  needsMoreRuns,
  planLooks,
  type LookOptions,
  type LookPlan,
} from '../compare/sequential.js';
import type { FamilyMember } from '../compare/family.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport, BenchmarkResult } from '../model.js';
import {
  abCapacityOnce,
  judgeAbCapacity,
  type AbCapacityOptions,
  type AbOutcome,
  type AbSweep,
  type VariantSides,
} from './ab-capacity.js';
import { abbaBlocks } from './schedule.js';

/** A variant's runs, still open after its own looks: blocks can be added and read again. */
export interface OpenVariant {
  /** Blocks it has run: the next one added is numbered this. */
  blocks(): number;
  /** Adds `count` blocks after its last; an error report when a run failed. */
  add(count: number): Promise<BenchmarkReport | undefined>;
  /** Both sides' results over all its blocks; an error report when they cannot be read. */
  sides(): Promise<VariantSides | BenchmarkReport>;
}

export interface CapacityBlockOptions extends AbCapacityOptions {
  /** Blocks the capacity may add (the run's confirm-blocks). */
  confirmBlocks: number;
  /** Blocks a variant may have in all (blocks + confirm-blocks): a variant's own never exceed it. */
  maxBlocks: number;
  log: Logger;
}

/** The capacity as judged at its last look, and the blocks it was judged on and added. */
export interface ConfirmedCapacity {
  reports: BenchmarkReport[];
  /** The base side's capacity; none when a variant could not be read. */
  base?: BenchmarkResult;
  blocks: number;
  added: number;
}

/**
 * A sweep's capacity from its variants: in looks with confirmation blocks when every
 * variant's runs are open (`open`, by benchmark name), else in one look on their outcomes.
 */
export async function abCapacity(
  sweep: AbSweep,
  outcomes: readonly AbOutcome[],
  open: ReadonlyMap<string, OpenVariant>,
  options: CapacityBlockOptions,
): Promise<AbOutcome> {
  const variants = new Map(sweep.variants.map((v) => [v.benchmark, open.get(v.benchmark)]));
  if ([...variants.values()].some((v) => v === undefined)) {
    return abCapacityOnce(sweep, outcomes, options);
  }
  const confirmed = await confirmAbCapacity(sweep, variants as Map<string, OpenVariant>, options);
  return {
    reports: confirmed.reports,
    order: abbaBlocks(0, confirmed.blocks),
    addedBlocks: confirmed.added,
    base: confirmed.base ? [confirmed.base] : [],
  };
}

/** The capacity's reports after as many looks as it needed, `variants` by benchmark name. */
export async function confirmAbCapacity(
  sweep: AbSweep,
  variants: ReadonlyMap<string, OpenVariant>,
  options: CapacityBlockOptions,
): Promise<ConfirmedCapacity> {
  let planned: LookPlan | undefined;
  const judgeLook = async (look: number) =>
    judgeOnBlocks(sweep, variants, options, (members) => {
      planned ??= planLooks(members, options.budget, options.confirmBlocks);
      return lookOptions(planned, look);
    });
  const start = fewestBlocks(variants);
  let judged = await judgeLook(0);
  const schedule = planned?.schedule ?? [0];
  let added = 0;
  for (let look = 1; look < schedule.length && needsMoreRuns(judged.reports); look += 1) {
    const target = Math.min(start + schedule[look]!, options.maxBlocks);
    options.log.info(
      `${sweep.name}/capacity: not settled yet; every variant up to ${target} block(s) (at most ${options.confirmBlocks} more)`,
    );
    const failed = await addUpTo(variants, target);
    if (failed) {
      // Judged on what its last look had: a variant's blocks after the failure cannot be read.
      const warning = `capacity: confirmation stopped at ${failed.name} (${failed.error ?? 'failed'}); judged on the blocks before`;
      const reports = judged.reports.map((r) => ({ ...r, warnings: [...r.warnings, warning] }));
      return { ...judged, reports, added };
    }
    added = target - start;
    judged = await judgeLook(look);
  }
  return { ...judged, added };
}

/** The capacity derived from every variant's blocks so far and judged at this look. */
async function judgeOnBlocks(
  sweep: AbSweep,
  variants: ReadonlyMap<string, OpenVariant>,
  options: AbCapacityOptions,
  lookOf: (members: FamilyMember[]) => LookOptions,
): Promise<ConfirmedCapacity> {
  const sides = new Map<string, VariantSides>();
  for (const [name, variant] of variants) {
    const read = await variant.sides();
    if ('verdict' in read) return { reports: [read], blocks: 0, added: 0 };
    sides.set(name, read);
  }
  const none: VariantSides = { base: undefined, head: undefined };
  const judged = judgeAbCapacity(sweep, (name) => sides.get(name) ?? none, options, lookOf);
  return { ...judged, blocks: fewestBlocks(variants), added: 0 };
}

/** Each variant with fewer than `target` blocks run up to it; the first failure's report. */
async function addUpTo(
  variants: ReadonlyMap<string, OpenVariant>,
  target: number,
): Promise<BenchmarkReport | undefined> {
  for (const variant of variants.values()) {
    const missing = target - variant.blocks();
    if (missing <= 0) continue;
    const failed = await variant.add(missing);
    if (failed) return failed;
  }
  return undefined;
}

function fewestBlocks(variants: ReadonlyMap<string, OpenVariant>): number {
  return Math.min(...[...variants.values()].map((v) => v.blocks()));
}

/** A variant's outcome noting the blocks the capacity added after its own `own` (to `now`). */
export function notedCapacityBlocks<T extends AbOutcome>(outcome: T, own: number, now: number): T {
  if (now <= own) return outcome;
  const added = now === own + 1 ? `block ${now}` : `blocks ${own + 1}–${now}`;
  const note = `its sweep's capacity added ${added} to it; this verdict and these values are of its own blocks 1–${own}`;
  const reports = outcome.reports.map((r) => ({ ...r, warnings: [...r.warnings, note] }));
  return { ...outcome, reports };
}
