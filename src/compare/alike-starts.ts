// A server's clean starts, compared like with like. The first start of a gate run reads
// the model through a cold page cache (and compiles on a wiped compile cache), so it is
// slower than the restarts by an amount that varies from run to run (5–30% in
// bench:accuracy's every-metric model): a population of its own. Pooled with the restarts,
// it widens every interval until a 25% slower start is not found, and a gate run of one
// start would be held against the baseline's faster restarts. So the restarts are judged
// against the stored restarts when both sides have some; a gate run with its first start
// alone is judged against the stored first starts, one value a gate run (one-value.ts).

import type { Metric } from '../model.js';
import { valuesByRecord } from '../stats/records.js';

/** The metric whose values are a server's clean starts, the first one first (runner/served-benchmarks.ts). */
export const STARTS_METRIC = 'server_startup';

/** Which of the starts were compared. */
export type StartsCompared = 'restarts' | 'first-starts';

export interface AlikeStarts {
  current: Metric;
  baseline: Metric;
  compared: StartsCompared;
  /** Whether a stored record has restarts: a restart of the current server would compare like with like. */
  restartsStored: boolean;
}

/**
 * The current and stored starts of the same kind: the restarts (every start but each
 * gate run's first) when the current gate run and a stored record have some, else the
 * first starts. Undefined for any other metric, and in A/B mode (a server per run, its
 * starts paired by block with the other side's: like with like already).
 */
export function alikeStarts(current: Metric, baseline: Metric): AlikeStarts | undefined {
  if (current.id !== STARTS_METRIC || current.blocks || baseline.blocks) return undefined;
  const stored = valuesByRecord(baseline);
  const older = baseline.olderRecords ?? [];
  const restartsStored = stored.some((record) => record.length > 1);
  const restarts = current.values.length > 1 && restartsStored;
  const pick = restarts
    ? (record: readonly number[]) => record.slice(1)
    : (record: readonly number[]) => record.slice(0, 1);
  return {
    current: { ...current, values: pick(current.values) },
    baseline: recordsOf(baseline, stored.map(pick), older.map(pick), pick),
    compared: restarts ? 'restarts' : 'first-starts',
    restartsStored,
  };
}

/**
 * Whether the starts are worth confirming with restarts (compare/confirmation-looks.ts):
 * the looks have restarts left (`moreRuns`), and the verdict is undecided (inconclusive:
 * beyond the threshold without clear evidence) or open (`worthConfirming`: the interval
 * reaches past twice the threshold). A restart costs one model load, not a benchmark run,
 * so an undecided start takes them where an undecided run metric would settle as is; the
 * looks' levels, not this rule, bound the false alarms. A first start alone is worth them
 * only when the stored records have restarts to compare the restarts with (no later start
 * changes the first).
 */
export function startsWorthRestarts(
  alike: AlikeStarts,
  judged: { verdict: string; worthConfirming?: boolean },
  moreRuns: number | undefined,
): boolean {
  if ((moreRuns ?? 0) <= 0) return false;
  if (alike.compared === 'first-starts') {
    return alike.restartsStored && judged.verdict === 'inconclusive';
  }
  return judged.verdict === 'inconclusive' || judged.worthConfirming === true;
}

/** A metric like `like` of these records' values (empty records dropped). */
function recordsOf(
  like: Metric,
  records: number[][],
  older: number[][],
  pick: (record: readonly number[]) => number[],
): Metric {
  const kept = records.filter((record) => record.length > 0);
  const keptOlder = older.filter((record) => record.length > 0);
  const leftOut = like.newestLeftOut ? pick(like.newestLeftOut) : [];
  return {
    id: like.id,
    unit: like.unit,
    direction: like.direction,
    values: kept.flat(),
    ...(kept.length > 1 ? { records: kept.map((record) => record.length) } : {}),
    ...(keptOlder.length > 0 ? { olderRecords: keptOlder } : {}),
    ...(leftOut.length > 0 ? { newestLeftOut: leftOut } : {}),
  };
}
