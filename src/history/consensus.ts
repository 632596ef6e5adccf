// Which night a regression started on, when its series do not all say the same.
//
// Each change point says how sure its series is of every night near it (location.ts: its
// likelihood shares). A regression's series vote with those shares: the night with the
// largest sum is the one they agree on, and the change points within `groupRuns` runs of
// it are that regression. One noisy series that puts the step a night early, even sure of
// it, is then outvoted by the rest, where the earliest night named a commit that changed
// nothing. What each series said stays in the regression, for the issue to show.

import type { ChangePoint } from './changepoints.js';

/** Position of a run among the gate's runs, oldest first. */
export type RunRank = (ref: { runId: string }) => number;

/** A change point of a series, as the vote needs it. */
export interface Voter {
  seriesId: string;
  benchmark: string;
  metric: string;
  change: Pick<ChangePoint, 'firstBad' | 'location'>;
}

export interface ConsensusGroup<T extends Voter> {
  /** The surest of the changes whose own first bad night is the agreed one. */
  agreed: T;
  /** Every change within `groupRuns` runs of that night, the agreed one too. */
  members: T[];
}

/** Where one series put the first bad night, and how sure it is. */
export interface SeriesLocation {
  seriesId: string;
  benchmark: string;
  metric: string;
  /** Its own first bad night. */
  runId: string;
  commit: string;
  createdAt: string;
  /** Its share of that night (1: sure of it). */
  share: number;
  /** Its share of the agreed night. */
  agreedShare: number;
}

/** The night a regression's series agree on, and what each of them said. */
export interface RegressionConsensus {
  runId: string;
  commit: string;
  /** The shares its series give it, summed: at most `series`. */
  weight: number;
  /** Change points in the regression (one per series, but for a rare second one). */
  series: number;
  /** Of those, how many put their own first bad night on it. */
  agreeing: number;
  /** Every change's own night, oldest night first. */
  locations: SeriesLocation[];
}

/** Sums closer than this are a tie (floating-point sums of shares). */
const TIE = 1e-9;

/**
 * The regressions `changes` make up: the night with the largest vote and the changes
 * within `groupRuns` runs of it, then the same among the rest, until none is left.
 */
export function groupByConsensus<T extends Voter>(
  changes: readonly T[],
  rank: RunRank,
  groupRuns: number,
): ConsensusGroup<T>[] {
  let left = [...changes];
  const groups: ConsensusGroup<T>[] = [];
  while (left.length > 0) {
    const agreed = mostAgreed(left, rank);
    const at = rank(agreed.change.firstBad);
    const members = left.filter((c) => Math.abs(rank(c.change.firstBad) - at) <= groupRuns);
    left = left.filter((c) => !members.includes(c));
    groups.push({ agreed, members });
  }
  return groups;
}

/** The group's agreed night and every member's own, for the issue and `history --json`. */
export function consensusOf<T extends Voter>(
  group: ConsensusGroup<T>,
  rank: RunRank,
): RegressionConsensus {
  const { runId, commit } = group.agreed.change.firstBad;
  const locations = group.members
    .map((member): SeriesLocation => ({
      seriesId: member.seriesId,
      benchmark: member.benchmark,
      metric: member.metric,
      runId: member.change.firstBad.runId,
      commit: member.change.firstBad.commit,
      createdAt: member.change.firstBad.createdAt,
      share: member.change.location.share,
      agreedShare: shareOn(member, runId),
    }))
    .sort(
      (a, b) =>
        rank(a) - rank(b) ||
        a.createdAt.localeCompare(b.createdAt) ||
        a.seriesId.localeCompare(b.seriesId),
    );
  return {
    runId,
    commit,
    weight: locations.reduce((sum, l) => sum + l.agreedShare, 0),
    series: locations.length,
    agreeing: locations.filter((l) => l.runId === runId).length,
    locations,
  };
}

/**
 * Among the changes' own first bad nights, the one whose shares, summed over every
 * change, are largest; on a tie the earlier night. Of the changes on it, the surest.
 */
function mostAgreed<T extends Voter>(changes: readonly T[], rank: RunRank): T {
  const votes = new Map<string, number>();
  for (const change of changes) {
    for (const night of change.change.location.nights) {
      votes.set(night.runId, (votes.get(night.runId) ?? 0) + night.share);
    }
  }
  const weightOf = (change: T) => votes.get(change.change.firstBad.runId) ?? 0;
  return changes.reduce((best, change) => {
    const difference = weightOf(change) - weightOf(best);
    if (Math.abs(difference) > TIE) return difference > 0 ? change : best;
    const earlier = rank(change.change.firstBad) - rank(best.change.firstBad);
    if (earlier !== 0) return earlier < 0 ? change : best;
    return change.change.location.share > best.change.location.share ? change : best;
  });
}

function shareOn(voter: Voter, runId: string): number {
  return voter.change.location.nights.find((night) => night.runId === runId)?.share ?? 0;
}
