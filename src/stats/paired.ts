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
// linear drift inside a block cancel from the change itself.

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
}

/**
 * The paired change and its spread, or undefined when the runs do not form at least two
 * complete blocks (a block without a run of each side, or fewer than two, has no pairing).
 */
export function pairedSpread(
  current: BlockedRuns,
  baseline: BlockedRuns,
): PairedSpread | undefined {
  const cells = blockCells(current, baseline);
  if (cells === undefined || cells.length < 2) return undefined;
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
  const df = runs - cells.length - 1;
  if (df < 1) return undefined;
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
  };
}

interface Cell {
  now: number[];
  before: number[];
}

/** Log values per block, in block order; undefined when a block misses a side or a value is not positive. */
function blockCells(current: BlockedRuns, baseline: BlockedRuns): Cell[] | undefined {
  const cells = new Map<number, Cell>();
  const add = (runs: BlockedRuns, side: keyof Cell): boolean => {
    if (runs.values.length !== runs.blocks.length) return false;
    for (const [i, value] of runs.values.entries()) {
      if (!(Number.isFinite(value) && value > 0)) return false;
      const block = runs.blocks[i]!;
      const cell = cells.get(block) ?? { now: [], before: [] };
      cell[side].push(Math.log(value));
      cells.set(block, cell);
    }
    return true;
  };
  if (!add(current, 'now') || !add(baseline, 'before')) return undefined;
  const ordered = [...cells.entries()].sort(([a], [b]) => a - b).map(([, cell]) => cell);
  return ordered.every((c) => c.now.length > 0 && c.before.length > 0) ? ordered : undefined;
}
