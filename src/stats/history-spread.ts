// One value a day: a benchmark that runs once per gate run (github-action-benchmark's one
// number per commit) has no runs to learn its noise from within a record, and a bare
// threshold then fails consecutive commits of unchanged code as often as the noise
// crosses it. Its stored records are the replicates: each is a day's value, so their
// spread holds the run-to-run and the day-to-day noise both, which is what a new day's
// single value scatters by. The new value is judged against the window's mean with that
// spread, learned from every stored record (the window's and the older ones).

import { sampleVariance, type LogSpread } from './spread.js';

/**
 * Stored single-value records needed before their spread stands for the noise: 3 give 2
 * degrees of freedom, whose wide t interval says how little they know; the window alone
 * (a file or artifact store keeps no older records) still confirms a step with 4.
 */
export const MIN_HISTORY_RECORDS = 3;

/**
 * The spread of (one current value − the window's mean), on logs, when the current side
 * has one value and every stored record one value: `window` the baseline's records,
 * `older` the records beyond it. Undefined otherwise (runs within records teach the noise).
 */
export function historySpread(
  current: readonly number[],
  window: readonly (readonly number[])[],
  older: readonly (readonly number[])[],
): LogSpread | undefined {
  if (current.length !== 1 || window.length < 2) return undefined;
  const records = [...window, ...older];
  if (records.some((record) => record.length !== 1)) return undefined;
  if (records.length < MIN_HISTORY_RECORDS) return undefined;
  const values = records.map((record) => record[0]!);
  const variance = sampleVariance(values)!;
  return {
    se: Math.sqrt(variance * (1 + 1 / window.length)),
    df: values.length - 1,
    perRun: variance,
    runs: 1,
    history: values.length,
  };
}
