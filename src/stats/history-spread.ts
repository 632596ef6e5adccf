// One value a day, or two: a benchmark that runs once per gate run (github-action-benchmark's
// one number per commit) has no runs to learn its noise from within a record, and a
// `vllm bench sweep` summary's 2 runs a setting know their own scatter by one degree of
// freedom (Welch's interval of 2 runs is then about as wide as a t at 1 df makes it, and
// nothing fails). Their stored records are the replicates: each is a day's mean of as many
// runs, so the spread of the record means holds the run-to-run and the day-to-day noise
// both, which is what a new day's mean of that many runs scatters by. The new mean is judged
// against the window's mean with that spread, learned from every stored record of that
// size (the window's and the older ones), at their number less one degrees of freedom.

import { meanOf } from './mean.js';
import { sampleVariance, type LogSpread } from './spread.js';

/**
 * Stored records needed before their spread stands for the noise: 3 give 2 degrees of
 * freedom, whose wide t interval says how little they know; the window alone (a file or
 * artifact store keeps no older records) still confirms a step with 4.
 */
export const MIN_HISTORY_RECORDS = 3;

/**
 * The most current runs judged by the stored records' spread: 2 runs' own variance has one
 * degree of freedom; 3 runs pooled with the window's know the run-to-run noise well enough.
 */
export const FEW_RUNS = 2;

/**
 * The spread of (the current runs' mean − the window's mean), on logs, when the current side
 * has 1 to FEW_RUNS runs and every window record as many: `window` the baseline's records,
 * `older` the records beyond it (those of another size, such as a nightly record of 24
 * runs among sweep summaries of 2, are left out; with one value a side every record must
 * hold one). Undefined otherwise (runs within records teach the noise).
 */
export function historySpread(
  current: readonly number[],
  window: readonly (readonly number[])[],
  older: readonly (readonly number[])[],
): LogSpread | undefined {
  const runs = current.length;
  if (runs < 1 || runs > FEW_RUNS || window.length < 2) return undefined;
  if (window.some((record) => record.length !== runs)) return undefined;
  const records = [...window, ...(runs === 1 ? older : older.filter((r) => r.length === runs))];
  if (records.some((record) => record.length !== runs)) return undefined;
  if (records.length < MIN_HISTORY_RECORDS) return undefined;
  const means = records.map((record) => meanOf(record));
  const variance = sampleVariance(means)!;
  // What more current runs would shrink (withMoreRuns): their run-to-run part, σ² / runs of
  // the mean's variance, with σ² pooled within the records; never more than all of it.
  const within = runs > 1 ? pooledWithin(records) : variance;
  return {
    se: Math.sqrt(variance * (1 + 1 / window.length)),
    df: means.length - 1,
    perRun: Math.min(within, variance * runs),
    runs,
    history: means.length,
    ...(runs > 1 ? { historyRuns: runs } : {}),
  };
}

/** The variance of runs around their record's mean, pooled over the records. */
function pooledWithin(records: readonly (readonly number[])[]): number {
  let squares = 0;
  let df = 0;
  for (const record of records) {
    squares += sampleVariance(record)! * (record.length - 1);
    df += record.length - 1;
  }
  return squares / df;
}
