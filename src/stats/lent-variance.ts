// Older stored records lend their run-to-run spread to a comparison without day-to-day
// drift. With no drift found, the change's standard error rests on the variance of the
// current runs and the window's (3 + 15 runs: 16 degrees of freedom), and the gate's
// far-tail test pays for those few: t(99.9%) is 3.69 at 16 degrees of freedom, 3.27 at 46.
// The older records (same benchmark and environment, stored beyond the window) measured
// the same runs' noise on other days. They lend it in blocks of the window's size, each
// around its own mean, so that the lent variance holds as much of an undetected day-to-day
// spread as the window's own (the window's runs are pooled around one mean): never the
// baseline's figure, only the spread. A block's mean may be another version of the code;
// its spread is the machine's. Blocks that scatter less than the window's and the current
// runs (an F test at LEND_TEST_LEVEL) lend nothing, and skewed runs take nothing
// (interval.ts): the heavier tails of their own t are what their skewness correction was
// measured with, and lent degrees of freedom made `compare` fail 1.0% of unchanged
// heavy-tailed pull requests (bench:accuracy, 6,000).

import { fTestDiffers, sampleVariance, variancesDiffer, type LogSpread } from './spread.js';

/**
 * Two-sided level of the F test under which the older blocks' variance is the same as the
 * runs'; lending is refused on its upper side only (the runs scatter more).
 */
export const LEND_TEST_LEVEL = 0.01;

/** The sum of squares and degrees of freedom of older records, in blocks around their own means. */
export interface LentSquares {
  squares: number;
  df: number;
}

/**
 * The older records' squares around the mean of each block of `blockRecords` consecutive
 * records (the window's record count), blocks of fewer than 2 runs left out; undefined
 * when none is left.
 */
export function olderBlockSquares(
  older: readonly (readonly number[])[],
  blockRecords: number,
): LentSquares | undefined {
  const size = Math.max(1, blockRecords);
  let squares = 0;
  let df = 0;
  for (let start = 0; start < older.length; start += size) {
    const block = older.slice(start, start + size).flat();
    if (block.length < 2) continue;
    squares += sampleVariance(block)! * (block.length - 1);
    df += block.length - 1;
  }
  return df > 0 ? { squares, df } : undefined;
}

/**
 * The pooled spread of the difference of mean logs (logSpread's, current `a` against the
 * baseline's `b`) with the older blocks' squares added to the pooled variance and their
 * degrees of freedom to the test's. Undefined where logSpread would not pool (a side with
 * one run, or sides that scatter differently: Welch's) or the runs scatter more than the
 * blocks (scattersMore); then the runs alone decide. For runs not clearly skewed only
 * (interval.ts): skewed runs keep their own degrees of freedom, whose heavier t tails the
 * skewness correction was measured with.
 */
export function lentSpread(
  a: readonly number[],
  b: readonly number[],
  lent: LentSquares | undefined,
): LogSpread | undefined {
  if (!lent || a.length < 2 || b.length < 2) return undefined;
  const va = sampleVariance(a)!;
  const vb = sampleVariance(b)!;
  if (variancesDiffer(va, a.length, vb, b.length)) return undefined;
  const ownDf = a.length + b.length - 2;
  const own = ((a.length - 1) * va + (b.length - 1) * vb) / ownDf;
  if (scattersMore(own, ownDf, lent)) return undefined;
  const df = ownDf + lent.df;
  const pooled = ((a.length - 1) * va + (b.length - 1) * vb + lent.squares) / df;
  const r = 1 / a.length + 1 / b.length;
  return { se: Math.sqrt(pooled * r), df, perRun: pooled, runs: a.length };
}

/**
 * Whether the runs scatter more than the older blocks (one side of the two-sided F test at
 * LEND_TEST_LEVEL): their spread would understate the runs', so nothing is lent. Blocks
 * that scatter more are lent all the same, which widens the interval: refusing them left
 * the runs alone exactly when their variance was low by chance, and unchanged pull
 * requests whose 18 runs happened to agree failed at 1.14 times the test's level at the
 * first look's far tail (0.027%; 3,000,000 normal draws in numpy: 0.96 times lent so).
 */
function scattersMore(own: number, ownDf: number, lent: LentSquares): boolean {
  const blocks = lent.squares / lent.df;
  return own > blocks && fTestDiffers(own, ownDf, blocks, lent.df, LEND_TEST_LEVEL);
}
