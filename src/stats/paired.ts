import { meanOf } from './mean.js';
// The change between two sides measured on one host in blocks (A/B mode: each block runs
// both sides, e.g. A B B A), judged within the blocks so that whatever the host does
// between blocks cancels. The model is the randomized complete block design's on log
// values: run = block level + side effect + noise. The change is the mean over the blocks
// of (mean log of the current side − mean log of the baseline side) in that block; its
// standard error comes from the residuals of that additive model, whose degrees of
// freedom (all runs − blocks − 1) are about three times those of a t-test on the block
// differences alone (blocks − 1): with 3 blocks of A B B A, 8 against 2. Drift inside a
// block stays in the residuals, which only widens the interval; ABBA's order makes
// linear drift inside a block cancel from the change itself. A block where one side has
// no value (its run never ran, or gave no value of this metric) is left out of the
// pairing and named (BlockGap): comparing it across blocks would let the host's drift
// between blocks into the change. Fewer than two complete blocks leave no pairing at all.

/** One side's runs: their values and the block of each (same order). */
export interface BlockedRuns {
  values: readonly number[];
  blocks: readonly number[];
}

export interface PairedSpread {
  /** Mean over the blocks of the within-block difference of mean logs (current − baseline). */
  center: number;
  se: number;
  df: number;
  /** The residual variance of one run's log value: se² · blocks / (what a block adds). */
  perRun: number;
  /** Blocks the standard error is of: more blocks shrink it as perRun / blocks. */
  runs: number;
  /** Block differences, for the report. */
  differences: number[];
  /** Blocks left out because a side has no value in them, in block order. */
  gaps: BlockGap[];
}

/** A block one side has no value in: it is not paired. */
export interface BlockGap {
  block: number;
  /** The side without a value there (both: each value there was NaN). */
  missing: 'current' | 'baseline' | 'both';
}

/**
 * The paired change and its spread over the blocks that have both sides, or undefined when
 * fewer than two blocks do, or a value is not positive (no log). Blocks with one side only
 * are left out and listed in `gaps`.
 */
export function pairedSpread(
  current: BlockedRuns,
  baseline: BlockedRuns,
): PairedSpread | undefined {
  const blocked = blockCells(current, baseline);
  if (blocked === undefined) return undefined;
  const cells = blocked.filter(({ now, before }) => now.length > 0 && before.length > 0);
  if (cells.length < 2) return undefined;
  const differences = cells.map(({ now, before }) => meanOf(now) - meanOf(before));
  const center = meanOf(differences);
  // Residuals of the additive model: run − its block's level − its side's effect.
  let squares = 0;
  let runs = 0;
  for (const { now, before } of cells) {
    const level = (meanOf(now) + meanOf(before)) / 2;
    for (const value of now) squares += (value - level - center / 2) ** 2;
    for (const value of before) squares += (value - level + center / 2) ** 2;
    runs += now.length + before.length;
  }
  // At least 1: every cell has a run of each side, and there are at least two cells.
  const df = runs - cells.length - 1;
  const residual = squares / df;
  // Var(center) = residual · mean over blocks of (1/nₐ + 1/n_b), divided by the blocks.
  const weight = meanOf(cells.map(({ now, before }) => 1 / now.length + 1 / before.length));
  const perRun = residual * weight;
  return {
    center,
    se: Math.sqrt(perRun / cells.length),
    df,
    perRun,
    runs: cells.length,
    differences,
    gaps: gapsOf(blocked),
  };
}

/**
 * The blocks one side has no value in, and how many blocks have both: what a report says
 * of the pairing, also when there is none. Empty when the runs carry no usable blocks.
 */
export function blockPairing(
  current: BlockedRuns,
  baseline: BlockedRuns,
): { paired: number; gaps: BlockGap[] } {
  const blocked = blockCells(current, baseline) ?? [];
  const gaps = gapsOf(blocked);
  return { paired: blocked.length - gaps.length, gaps };
}

interface Cell {
  block: number;
  now: number[];
  before: number[];
}

function gapsOf(cells: readonly Cell[]): BlockGap[] {
  return cells.flatMap(({ block, now, before }): BlockGap[] => {
    if (now.length > 0 && before.length > 0) return [];
    const missing = now.length > 0 ? 'baseline' : before.length > 0 ? 'current' : 'both';
    return [{ block, missing }];
  });
}

/**
 * Log values per block, in block order, a side's list empty where it has no value; a
 * value that is not a number (NaN: not measured) is no value. Undefined when the values
 * and blocks do not match up or a value is not positive.
 */
function blockCells(current: BlockedRuns, baseline: BlockedRuns): Cell[] | undefined {
  const cells = new Map<number, Cell>();
  const add = (runs: BlockedRuns, side: 'now' | 'before'): boolean => {
    if (runs.values.length !== runs.blocks.length) return false;
    for (const [i, value] of runs.values.entries()) {
      const block = runs.blocks[i]!;
      const cell = cells.get(block) ?? { block, now: [], before: [] };
      cells.set(block, cell);
      if (Number.isNaN(value)) continue;
      if (!(Number.isFinite(value) && value > 0)) return false;
      cell[side].push(Math.log(value));
    }
    return true;
  };
  if (!add(current, 'now') || !add(baseline, 'before')) return undefined;
  return [...cells.values()].sort((a, b) => a.block - b.block);
}
