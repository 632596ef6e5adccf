// One value a commit, judged on its stored history (stats/history-spread.ts). One value
// cannot tell a step from a one-commit spike (a noisy neighbour on a shared runner, a
// cold cache, a commit measured on the slower of two machines), and real histories of one
// value a commit have such spikes: a new one beats every stored value about once in
// twenty commits. So a value beyond the noise fails when the previous commit's value was
// beyond it too, each tested at ONE_VALUE_LEVEL: two in a row happen by chance about
// 0.04² of the time, and a spike rarely lines up with another excursion. Alone, it is
// inconclusive, and the next commit confirms or clears it. A real step is in every commit
// after it, so the second finds it.

import type { Metric } from '../model.js';
import { MIN_HISTORY_RECORDS } from '../stats/history-spread.js';
import { recordSizes, valuesByRecord } from '../stats/records.js';

/**
 * One-sided level each of the two values is tested at (a 92% interval). Replayed on noise
 * shaped like real histories (bench:one-value, 1,000 series each): 0–0.7% of same-code
 * commits fail, and a step of four times the noise is found by the second commit 92.5–100%
 * of the time. At 3% (400 series): 0–0.4% and 91–95%; at 5%: up to 1.0% and 94–99%.
 */
export const ONE_VALUE_LEVEL = 0.04;

/** Where a one-value verdict stands with the previous commit's value. */
export type OneValueStep = { step: 'first' } | { step: 'confirmed'; previous: number };

/**
 * Whether `current` is one value of a series of one value a commit: the current side has
 * one value and at least half of the stored records (the window's and the older ones) one
 * each, from MIN_HISTORY_RECORDS records on. A scheduled run's record of 24 runs among
 * them (nightly-runs) keeps the series what it is.
 */
export function isOneValueSeries(current: Metric, baseline: Metric): boolean {
  if (current.values.length !== 1) return false;
  const sizes = [...recordSizes(baseline), ...(baseline.olderRecords ?? []).map((r) => r.length)];
  const single = sizes.filter((size) => size === 1).length;
  return sizes.length >= MIN_HISTORY_RECORDS && 2 * single >= sizes.length;
}

/**
 * The newest stored record apart (the previous commit's values, the window's first: records
 * are newest first) and the baseline without it, topped up by the newest older record;
 * when the baseline left the newest record out (a regression's), that record and the
 * baseline as it is. Undefined when the baseline has one record and nothing older.
 */
export function previousApart(baseline: Metric): { previous: Metric; rest: Metric } | undefined {
  if (baseline.newestLeftOut && baseline.newestLeftOut.length > 0) {
    return { previous: recordsOf(baseline, [baseline.newestLeftOut]), rest: baseline };
  }
  const records = valuesByRecord(baseline);
  const older = baseline.olderRecords ?? [];
  if (records.length + older.length < 2) return undefined;
  const [newest, ...others] = records;
  const rest = recordsOf(baseline, older[0] ? [...others, older[0]] : others);
  if (older.length > 1) rest.olderRecords = older.slice(1);
  return { previous: recordsOf(baseline, [newest!]), rest };
}

/** A metric of these records' values, otherwise as `like`. */
function recordsOf(like: Metric, records: readonly (readonly number[])[]): Metric {
  return {
    id: like.id,
    unit: like.unit,
    direction: like.direction,
    values: records.flat(),
    records: records.map((record) => record.length),
  };
}
