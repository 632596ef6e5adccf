// What the open regressions of the baseline branch mean for one run: per benchmark, the
// records each keeps out of a nightly baseline, or the records of the branch's level now
// that a pull request (code built on the branch as it is) is compared with; and, for the
// report, each open regression in short. Pure: read from the history's analysis.

import type { RecordStamp, OpenRegressionView } from '../model.js';
import type { HistoryAnalysis } from './analyze.js';
import type { PointRef } from './changepoints.js';
import { waitsForOneValueNights, type Regression } from './regressions.js';

/** A benchmark's open regressions, as its baseline needs them. */
export interface BenchmarkOpenRegressions {
  /** The open regression whose first bad record is oldest: held out from there on. */
  oldest: { id: string; firstBad: RecordStamp };
  /** The one whose first bad record is newest: every open change has happened by then. */
  newest: { id: string; firstBad: RecordStamp };
  /** The benchmark's records from the newest first bad record on: its level now. */
  sinceNewest: Set<string>;
}

/** Per benchmark, the open regressions that moved it; benchmarks without one are absent. */
export function openRegressionsByBenchmark(
  analysis: HistoryAnalysis,
): Map<string, BenchmarkOpenRegressions> {
  const firstBads = new Map<string, { id: string; ref: PointRef }[]>();
  for (const regression of analysis.regressions) {
    if (regression.status !== 'open') continue;
    for (const change of regression.changes) {
      if (change.status !== 'open') continue;
      const list = firstBads.get(change.benchmark) ?? [];
      list.push({ id: regression.id, ref: change.change.firstBad });
      firstBads.set(change.benchmark, list);
    }
  }
  const byBenchmark = new Map<string, BenchmarkOpenRegressions>();
  for (const [benchmark, list] of firstBads) {
    const sorted = [...list].sort((a, b) => a.ref.createdAt.localeCompare(b.ref.createdAt));
    const oldest = sorted[0]!;
    const newest = sorted.at(-1)!;
    const since = new Set(
      analysis.analyses
        .filter((a) => a.series.benchmark === benchmark && !a.series.ab)
        .flatMap((a) => a.series.points)
        .filter((point) => point.createdAt >= newest.ref.createdAt)
        .map((point) => point.path),
    );
    byBenchmark.set(benchmark, {
      oldest: { id: oldest.id, firstBad: stampOf(oldest.ref) },
      newest: { id: newest.id, firstBad: stampOf(newest.ref) },
      sinceNewest: since,
    });
  }
  return byBenchmark;
}

/** The open regressions for the report, oldest first, with their issue where one is known. */
export function openRegressionViews(
  analysis: HistoryAnalysis,
  issues: ReadonlyMap<string, { number: number; url: string }> = new Map(),
): OpenRegressionView[] {
  return analysis.regressions
    .filter((regression) => regression.status === 'open')
    .map((regression) => viewOf(regression, issues.get(regression.id)));
}

function viewOf(
  regression: Regression,
  issue: { number: number; url: string } | undefined,
): OpenRegressionView {
  return {
    id: regression.id,
    firstBad: stampOf(regression.firstBad),
    changes: regression.changes
      .filter((change) => change.status === 'open')
      .map((change) => ({
        benchmark: change.benchmark,
        metric: change.metric,
        change: change.change.change,
      })),
    persistent: regression.persistent,
    ...(waitsForOneValueNights(regression) ? { oneValueANight: true as const } : {}),
    ...(issue ? { issue } : {}),
  };
}

function stampOf(ref: PointRef): RecordStamp {
  return { commit: ref.commit, createdAt: ref.createdAt };
}
