// The order of an A/B comparison's runs: blocks of A B B A. Within a block each side's
// runs sit at the same mean time, so a host that drifts linearly during the block slows
// both sides alike and the drift cancels from the block's difference; between blocks the
// host may change as it likes (the statistic compares within blocks, stats/paired.ts).
// ABBA rather than randomized pairs: with the few blocks an accelerator allows, a fixed
// balanced order cancels drift by construction, where random orders cancel it only on
// average and leave some pull requests with an unlucky order. The simulator's host drift
// (SIM_HOST_DRIFT) and bench:accuracy's A/B scenario check both; both drifts are our own
// models, not measured inf2 hosts.

export type AbSide = 'base' | 'head';

/** One run of the schedule: which side, in which block. */
export interface ScheduledRun {
  side: AbSide;
  block: number;
}

const BLOCK: readonly AbSide[] = ['base', 'head', 'head', 'base'];

/** The runs of blocks `first` … `first + count − 1`, in order. */
export function abbaBlocks(first: number, count: number): ScheduledRun[] {
  const runs: ScheduledRun[] = [];
  for (let block = first; block < first + count; block += 1) {
    for (const side of BLOCK) runs.push({ side, block });
  }
  return runs;
}

/** Runs of each side in one block. */
export const RUNS_PER_SIDE_PER_BLOCK = BLOCK.filter((side) => side === 'base').length;
