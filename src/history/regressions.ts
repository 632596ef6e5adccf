// Regression records: the change points that made a gate worse, grouped so that one
// regression (one commit, one SDK upgrade) is one record however many benchmarks and
// metrics it moved, named by the night its series agree on (consensus.ts), and followed
// to closure: restored by a later change point, or accepted with `baseline accept` (or
// accept-current). An automatic accept-after never closes one: a regression the history
// still sees is not absorbed into the baseline.

import type { FingerprintDifference } from '../environment/fingerprint.js';
import {
  detectChangePoints,
  type ChangePoint,
  type DetectOptions,
  type PointRef,
  type SeriesAnalysis,
} from './changepoints.js';
import {
  consensusOf,
  groupByConsensus,
  type ConsensusGroup,
  type RegressionConsensus,
  type RunRank,
} from './consensus.js';
import { nightsToPersist, oneValueANight, standsBeyondOwnNights } from './own-nights.js';
import type { AcceptanceMark, Series } from './series.js';
import { meanOf } from '../stats/mean.js';

export type RegressionStatus = 'open' | 'restored' | 'accepted';

/** One series' part of a regression. */
export interface RegressionChange {
  seriesId: string;
  benchmark: string;
  metric: string;
  unit: string;
  environmentKey: string;
  change: ChangePoint;
  status: RegressionStatus;
  /** The later change point that brought the level back (at least half of the step). */
  restoredBy?: ChangePoint;
  /** The acceptance that took it as the new normal. */
  acceptedBy?: AcceptanceMark;
  /**
   * Open, the newest two nights both sit nearer the new level than the old one, the step
   * is at least the metric's threshold, and (one value a night) the nights since it sit
   * beyond every as long run of nights before it: only such a change is worth an issue.
   */
  persistent: boolean;
  /** The step is at least the metric's threshold (or the threshold is unknown). */
  beyondThreshold: boolean;
  /** Its series has one value a night: it waits for four nights in a row, not two (own-nights.ts). */
  oneValueANight?: true;
}

export interface Regression {
  /** `<gate key>@<run id of the first bad record>`: names its issue. */
  id: string;
  gateKey: string;
  /** The first bad record its series agree on (consensus.ts), not merely the earliest. */
  firstBad: PointRef;
  lastGood: PointRef;
  /** How far its series agree on firstBad: where each put it, and how sure it is. */
  consensus: RegressionConsensus;
  status: RegressionStatus;
  /**
   * One per series it moved past the metric's threshold, by series id: what the issue,
   * the comment and the baseline act on.
   */
  changes: RegressionChange[];
  /**
   * Series whose regression change points agree on its night but moved less than their
   * thresholds (or are not gated): they help name the night, and are counted, not listed.
   */
  belowThreshold: number;
  /** The environment differences its changes name (an SDK upgrade), once each. */
  environmentChanges: FingerprintDifference[];
  benchmarks: string[];
  /**
   * Run ids within `groupRuns` runs of the first bad record: where the first bad record
   * may have been placed on an earlier night, so that the regression keeps its issue.
   */
  nearbyRunIds: string[];
  /**
   * Open, beyond its threshold and seen on the newest two nights of at least one series
   * (see persists): only then is an issue opened, so one bad night (or a bad night and an unlucky one) is not
   * an issue. An issue already open follows its regression whatever this says.
   */
  persistent: boolean;
}

export interface RegressionOptions {
  /** Change points at most this many runs from the night their series agree on are one regression. */
  groupRuns: number;
  /** Share of the step a later change point must win back to restore it. */
  restoreShare: number;
}

export const DEFAULT_REGRESSION_OPTIONS: Readonly<RegressionOptions> = Object.freeze({
  groupRuns: 2,
  restoreShare: 0.5,
});

/** The regressions of every gate in `analyses`, oldest first. */
export function findRegressions(
  analyses: readonly SeriesAnalysis[],
  acceptances: readonly AcceptanceMark[],
  options: Partial<RegressionOptions> = {},
): Regression[] {
  const settings = { ...DEFAULT_REGRESSION_OPTIONS, ...options };
  const byGate = new Map<string, SeriesAnalysis[]>();
  for (const analysis of analyses) {
    const list = byGate.get(analysis.series.gateKey) ?? [];
    list.push(analysis);
    byGate.set(analysis.series.gateKey, list);
  }
  const regressions: Regression[] = [];
  for (const [gateKey, list] of byGate) {
    const { rank, ordered } = runRanks(list.map((a) => a.series));
    const changes = list
      .flatMap((analysis) => changesOf(analysis, acceptances, settings))
      .sort(
        (a, b) =>
          rank(a.change.firstBad) - rank(b.change.firstBad) || a.seriesId.localeCompare(b.seriesId),
      );
    for (const group of groupByConsensus(changes, rank, settings.groupRuns)) {
      // Only a step at least its metric's threshold is a regression to act on; a group
      // of smaller ones (a drifting machine, a metric that is not gated) is none.
      if (!group.members.some((change) => change.beyondThreshold)) continue;
      const at = rank(group.agreed.change.firstBad);
      const nearby = ordered.slice(
        Math.max(0, at - settings.groupRuns),
        at + settings.groupRuns + 1,
      );
      regressions.push(regressionOf(gateKey, group, rank, nearby));
    }
  }
  return regressions.sort((a, b) => a.firstBad.createdAt.localeCompare(b.firstBad.createdAt));
}

/** Paths of the records an open regression holds out of the baseline, per benchmark. */
export function heldOutRecords(
  regressions: readonly Regression[],
  analyses: readonly SeriesAnalysis[],
): Map<string, Set<string>> {
  const seriesById = new Map(analyses.map((a) => [a.series.id, a.series]));
  const held = new Map<string, Set<string>>();
  for (const regression of regressions) {
    for (const change of regression.changes) {
      if (change.status !== 'open') continue;
      const series = seriesById.get(change.seriesId);
      if (!series) continue;
      const paths = held.get(change.benchmark) ?? new Set<string>();
      for (const point of series.points.slice(change.change.firstBad.index)) paths.add(point.path);
      held.set(change.benchmark, paths);
    }
  }
  return held;
}

/**
 * Whether the history up to the night before (each series without its newest night)
 * has a regression change point within `groupRuns` nights of this one's: the second
 * half of "two nights in a row" before an issue is opened. Only the series of the
 * regression's open changes are analysed again, and only when an issue would be opened.
 */
export function seenTheNightBefore(
  analyses: readonly SeriesAnalysis[],
  regression: Regression,
  detect: Partial<DetectOptions> = {},
): boolean {
  const byId = new Map(analyses.map((a) => [a.series.id, a]));
  const near = DEFAULT_REGRESSION_OPTIONS.groupRuns;
  return regression.changes.some((change) => {
    const analysis = byId.get(change.seriesId);
    if (change.status !== 'open' || !analysis) return false;
    const { series, sharedDrift } = analysis;
    const before = detectChangePoints(
      { ...series, points: series.points.slice(0, -1) },
      detect,
      sharedDrift,
    );
    return before.changePoints.some(
      (cp) =>
        cp.direction === 'regression' &&
        Math.abs(cp.firstBad.index - change.change.firstBad.index) <= near,
    );
  });
}

function changesOf(
  analysis: SeriesAnalysis,
  acceptances: readonly AcceptanceMark[],
  settings: RegressionOptions,
): RegressionChange[] {
  const { series, changePoints } = analysis;
  return changePoints.flatMap((change, i): RegressionChange[] => {
    // A step the runners' spread explains is the runner's, never a regression.
    if (change.direction !== 'regression' || change.runnerChange) return [];
    const base = {
      seriesId: series.id,
      benchmark: series.benchmark,
      metric: series.metric,
      unit: series.unit,
      environmentKey: series.environmentKey,
      change,
      beyondThreshold: beyondThreshold(series, change),
      ...(oneValueANight(series) ? { oneValueANight: true as const } : {}),
    };
    const restoredBy = changePoints
      .slice(i + 1)
      .find((later) => recovered(change, later) >= settings.restoreShare);
    if (restoredBy) return [{ ...base, status: 'restored', restoredBy, persistent: false }];
    const acceptedBy = acceptances.find(
      (mark) =>
        mark.gateKey === series.gateKey &&
        mark.benchmark === series.benchmark &&
        mark.environmentKey === series.environmentKey &&
        mark.reason !== 'accept-after' &&
        mark.at >= change.firstBad.createdAt,
    );
    if (acceptedBy) return [{ ...base, status: 'accepted', acceptedBy, persistent: false }];
    // A one-value series' step must also stand beyond its own nights' spread (own-nights.ts).
    const persistent =
      base.beyondThreshold && persists(series, change) && standsBeyondOwnNights(series, change);
    return [{ ...base, status: 'open', persistent }];
  });
}

/**
 * Whether the step is at least the metric's threshold: a drifting machine moves a level
 * by a percent or two for weeks, which the history shows but is no regression to act on,
 * as the gate itself would not fail a pull request for it. A metric that is not gated
 * (null) never is; an unknown threshold (absent) counts every step.
 */
export function beyondThreshold(series: Series, change: Pick<ChangePoint, 'change'>): boolean {
  if (series.threshold === undefined) return true;
  if (series.threshold === null) return false;
  return Math.abs(change.change) >= series.threshold;
}

/**
 * Whether the newest two nights of the series (four with one value a night) each sit on
 * the new level's side of the midpoint between the levels before and after the change:
 * the regression is still there on nights in a row. One awful night followed by a normal
 * one fails (the normal night sits on the old side), however far the awful night pulled
 * the level.
 */
function persists(series: Series, change: ChangePoint): boolean {
  const points = series.points;
  const newest = nightsToPersist(series);
  if (points.length - change.firstBad.index < newest) return false;
  const logScale = points.every((p) => p.values.every((v) => v > 0));
  const level = (values: readonly number[]) =>
    logScale
      ? Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length)
      : meanOf(values);
  // The levels are geometric means on a log scale: so is their midpoint.
  const middle = logScale
    ? Math.sqrt(change.before.value * change.after.value)
    : (change.before.value + change.after.value) / 2;
  const up = change.after.value > change.before.value;
  return points
    .slice(-newest)
    .every((p) => (up ? level(p.values) > middle : level(p.values) < middle));
}

/** The share of `change`'s step that the level after `later` has won back. */
function recovered(change: ChangePoint, later: ChangePoint): number {
  const step = change.after.value - change.before.value;
  if (step === 0) return 1;
  return (change.after.value - later.after.value) / step;
}

function regressionOf(
  gateKey: string,
  group: ConsensusGroup<RegressionChange>,
  rank: RunRank,
  nearbyRunIds: string[],
): Regression {
  const { agreed, members } = group;
  const changes = members.filter((change) => change.beyondThreshold);
  const status: RegressionStatus = changes.some((c) => c.status === 'open')
    ? 'open'
    : changes.some((c) => c.status === 'accepted')
      ? 'accepted'
      : 'restored';
  const seen = new Set<string>();
  const environmentChanges: FingerprintDifference[] = [];
  for (const change of changes) {
    for (const difference of change.change.environmentChanges) {
      const key = `${difference.field}:${difference.baseline}:${difference.current}`;
      if (seen.has(key)) continue;
      seen.add(key);
      environmentChanges.push(difference);
    }
  }
  return {
    id: `${gateKey}@${agreed.change.firstBad.runId}`,
    gateKey,
    firstBad: agreed.change.firstBad,
    lastGood: agreed.change.lastGood,
    consensus: consensusOf(group, rank),
    status,
    changes: [...changes].sort((a, b) => a.seriesId.localeCompare(b.seriesId)),
    belowThreshold: members.length - changes.length,
    environmentChanges,
    benchmarks: [...new Set(changes.map((c) => c.benchmark))].sort(),
    nearbyRunIds,
    persistent: changes.some((c) => c.persistent),
  };
}

/**
 * Whether an open series of the regression has one value a night, so that its wait for an
 * issue is four nights in a row (the text says so only then).
 */
export function waitsForOneValueNights(regression: Pick<Regression, 'changes'>): boolean {
  return regression.changes.some((c) => c.status === 'open' && c.oneValueANight === true);
}

/** Position of a record's run among all runs of the gate, oldest first. */
function runRanks(series: readonly Series[]): {
  rank: RunRank;
  ordered: string[];
} {
  const runs = new Map<string, string>();
  for (const s of series) for (const p of s.points) runs.set(p.runId, p.createdAt);
  const ordered = [...runs]
    .sort((a, b) => a[1].localeCompare(b[1]) || a[0].localeCompare(b[0]))
    .map(([runId]) => runId);
  const ranks = new Map(ordered.map((runId, i) => [runId, i]));
  return { rank: (ref) => ranks.get(ref.runId) ?? 0, ordered };
}
