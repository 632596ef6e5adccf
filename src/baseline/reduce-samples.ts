// Per-request samples shrunk to a fixed budget so that a stored record stays small while
// its percentiles stay where they were.
//
// The compare stage estimates a latency percentile from the samples of all runs pooled
// (src/stats/estimate.ts), so the reduction keeps the pooled order: all samples are
// sorted together and the values at evenly spaced ranks are kept, the smallest and the
// largest included, each staying in the run it came from. numpy's linear percentile at p
// of the kept values then interpolates between two kept neighbours whose ranks in the
// original bracket p·(N−1), so P50/P95/P99 move by at most the spread of the original
// values between two kept ranks. Every sample has the same chance to be kept whatever its
// run, so the budget splits across runs in proportion to their sizes, each kept value
// stands for the same number of requests, and each run's own percentiles hold as well.

import type { SampleRun } from '../model.js';
import { sortedSamples } from '../stats/sorted.js';

/** At most this many samples per metric are stored in a baseline record. */
export const MAX_STORED_SAMPLES = 2_000;

/**
 * At most this many samples per record, over its distinct sample sets (P50/P95/P99 of
 * one latency share one set). A vllm bench serve record has four sets (TTFT, TPOT, ITL,
 * end-to-end), each getting a quarter: 1,200 samples at about 9 bytes each leave such a
 * record near 50 KB, room within MAX_RECORD_BYTES for its summary, info and runs.
 */
export const MAX_RECORD_SAMPLES = 4_800;

/** A stored record's file stays within this size (the data branch holds thousands). */
export const MAX_RECORD_BYTES = 64 * 1024;

/**
 * …and a profiled record's operator times within this, beside it: Qwen3-0.6B's 339 ops take
 * about 45 KB; a model of more layers keeps its largest ops and sums the rest.
 */
export const MAX_RECORD_OP_BYTES = 48 * 1024;

/** The per-metric budget of a record with `sets` distinct sample sets. */
export function sampleBudgetPerSet(
  sets: number,
  perMetric = MAX_STORED_SAMPLES,
  perRecord = MAX_RECORD_SAMPLES,
): number {
  if (sets <= 0) return Math.min(perMetric, perRecord);
  return Math.min(perMetric, Math.floor(perRecord / sets));
}

/**
 * `samples` (one array per run) reduced to at most `budget` values in all, each run's
 * values sorted. When everything fits, the runs are only sorted. Every non-empty run
 * keeps at least one value while the budget allows; empty runs stay empty. The input is
 * not changed.
 */
export function reduceSamples(
  samples: readonly SampleRun[],
  budget: number = MAX_STORED_SAMPLES,
): number[][] {
  if (!Number.isInteger(budget) || budget < 0) {
    throw new RangeError(`reduceSamples: budget must be a whole number ≥ 0, got ${budget}`);
  }
  const sorted = samples.map(sortedSamples);
  const total = sorted.reduce((sum, run) => sum + run.length, 0);
  if (total <= budget) return sorted.map((run) => Array.from(run));
  const kept: number[][] = sorted.map(() => []);
  if (budget === 0) return kept;

  // Walk the runs merged in value order and keep the values at the chosen pooled ranks.
  const positions = new Array<number>(sorted.length).fill(0);
  let rank = 0;
  for (let i = 0; i < budget; i += 1) {
    const target =
      budget === 1 ? Math.floor((total - 1) / 2) : Math.round((i * (total - 1)) / (budget - 1));
    let run = -1;
    while (rank <= target) {
      run = smallestHead(sorted, positions);
      positions[run]! += 1;
      rank += 1;
    }
    kept[run]!.push(sorted[run]![positions[run]! - 1]!);
  }
  keepEveryRun(sorted, kept);
  return kept;
}

/** The run whose next unmerged value is the smallest. */
function smallestHead(sorted: Float64Array[], positions: number[]): number {
  let best = -1;
  let bestValue = Number.POSITIVE_INFINITY;
  for (let run = 0; run < sorted.length; run += 1) {
    const position = positions[run]!;
    const values = sorted[run]!;
    if (position < values.length && (best < 0 || values[position]! < bestValue)) {
      best = run;
      bestValue = values[position]!;
    }
  }
  return best;
}

/**
 * A small run among large ones can come out with no value kept; it then gets its median,
 * in place of the middle value of the run that kept the most, so the total stays.
 */
function keepEveryRun(sorted: Float64Array[], kept: number[][]): void {
  sorted.forEach((values, run) => {
    if (values.length === 0 || kept[run]!.length > 0) return;
    let donor = 0;
    kept.forEach((list, index) => {
      if (list.length > kept[donor]!.length) donor = index;
    });
    if (kept[donor]!.length <= 1) return;
    kept[donor]!.splice(Math.floor(kept[donor]!.length / 2), 1);
    kept[run]!.push(values[Math.floor((values.length - 1) / 2)]!);
  });
}
