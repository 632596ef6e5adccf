// Stored records older than a baseline's window, carried on its metrics (Metric.olderRecords)
// so that the day-to-day drift is learnt from many days, not only the window's few.
//
// Why not a longer window: the window decides what the change is measured against (the
// newest few records: the code as it is now), while the day-to-day spread is a property of
// the machine, the driver and the room that older records know as well. Five records know
// it by 4 degrees of freedom, and five that happen to agree hide it (stats/interval.ts:
// driftSpread); twenty know it by 19. The data branch keeps hundreds of records and the
// record store reads the newest 20 or more anyway, so this costs no read.

import type { BenchmarkResult, Metric, RunInfo } from '../model.js';
import { gateRunLoad } from './record-load.js';

/**
 * Records a benchmark's day-to-day drift is learnt from, its baseline's window included
 * (default 5 + 15 older). About as many as the record store reads up front
 * (record-store.ts: recordsToRead), so no further read is ever needed for them.
 */
export const DRIFT_HISTORY_RECORDS = 20;

/** What an older record brings: each metric's per-run values, and its runs' host load. */
export interface OlderRecord {
  metrics: readonly Pick<Metric, 'id' | 'values'>[];
  runs?: readonly RunInfo[];
}

/**
 * The baseline with, on each metric, the per-run values of the `older` records (newest
 * first) that measured it. Changes `baseline`, which the caller built and owns.
 */
export function withOlderRecords(
  baseline: BenchmarkResult,
  older: readonly OlderRecord[],
): BenchmarkResult {
  if (older.length === 0) return baseline;
  for (const metric of baseline.metrics) {
    const measured = older.flatMap((record) => {
      const same = valuesIn(record, metric.id);
      return same ? [{ values: same, load: gateRunLoad(record.runs ?? []) }] : [];
    });
    if (measured.length === 0) continue;
    metric.olderRecords = measured.map((record) => record.values);
    if (measured.some((record) => record.load !== null)) {
      metric.olderHostLoads = measured.map((record) => record.load);
    }
  }
  return baseline;
}

/**
 * The baseline with, on each metric, the per-run values of the benchmark's `newest` stored
 * record, when the baseline left it out (a regression's record): one value a commit asks
 * whether the previous commit was beyond the noise too (compare/one-value.ts). Changes
 * `baseline`, which the caller built and owns.
 */
export function withNewestLeftOut(
  baseline: BenchmarkResult,
  newest: OlderRecord | undefined,
): BenchmarkResult {
  if (!newest) return baseline;
  for (const metric of baseline.metrics) {
    const same = valuesIn(newest, metric.id);
    if (same) metric.newestLeftOut = same;
  }
  return baseline;
}

/** A copy of the record's values of metric `id`; undefined when it measured none. */
function valuesIn(record: OlderRecord, id: string): number[] | undefined {
  const same = record.metrics.find((m) => m.id === id);
  return same && same.values.length > 0 ? [...same.values] : undefined;
}
