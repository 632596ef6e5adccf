// What the history analysis found, as the dashboard shows it: every change point with its
// direction, size and whether it is inside the metric's threshold or a runner change (both
// drawn quiet), and the open regressions that the page opens with.

import type { HistoryAnalysis } from '../history/analyze.js';
import type { ChangePoint } from '../history/changepoints.js';
import { pValueText } from '../history/p-value-text.js';
import {
  beyondThreshold,
  type RegressionChange,
  type RegressionStatus,
} from '../history/regressions.js';
import type { Series } from '../history/series.js';

/** A found change in a series (from src/history's change-point search). */
export interface ChangeMark {
  seriesId: string;
  /** The first point after the change (a record path). */
  path: string;
  /** For the reader: "regression −12.0% (step, p 0.001)". */
  label: string;
  /** Relative change of the level (after / before − 1) and its interval. */
  change: number;
  interval: [number, number];
  /** The levels before and after, in the series' unit. */
  before: number;
  after: number;
  /** Inside the metric's threshold, a metric that is not gated, or a runner change: drawn quiet. */
  quiet: boolean;
  /** A regression's state; absent for an improvement. */
  status?: RegressionStatus;
}

/** An open regression, by the series it moved beyond their thresholds. */
export interface RegressionMark {
  /** `<gate key>@<run id>`, as its issue's marker names it. */
  id: string;
  /** Record paths of its first bad and last good records. */
  firstBad: string;
  lastGood: string;
  /** Its open changes beyond their thresholds: the series and the change's first bad record. */
  changes: { seriesId: string; path: string }[];
  /** Its issue's number, when the page's builder knows it. */
  issue?: number;
}

/** Change marks and open regressions of an analysed history. */
export function changeMarks(analysis: HistoryAnalysis): {
  changes: ChangeMark[];
  regressions: RegressionMark[];
} {
  const regressionChanges = new Map<ChangePoint, RegressionChange>();
  for (const regression of analysis.regressions) {
    for (const change of regression.changes) regressionChanges.set(change.change, change);
  }
  const changes = analysis.analyses.flatMap(({ series, changePoints }) =>
    changePoints.map((point) => changeMark(series, point, regressionChanges.get(point))),
  );
  const regressions = analysis.regressions.flatMap((regression): RegressionMark[] => {
    const open = regression.changes.filter((c) => c.status === 'open');
    if (regression.status !== 'open' || open.length === 0) return [];
    return [
      {
        id: regression.id,
        firstBad: regression.firstBad.path,
        lastGood: regression.lastGood.path,
        changes: open.map((c) => ({ seriesId: c.seriesId, path: c.change.firstBad.path })),
      },
    ];
  });
  return { changes, regressions };
}

function changeMark(
  series: Series,
  point: ChangePoint,
  regression: RegressionChange | undefined,
): ChangeMark {
  const percent = `${point.change >= 0 ? '+' : '−'}${Math.abs(point.change * 100).toFixed(1)}%`;
  return {
    seriesId: point.seriesId,
    path: point.firstBad.path,
    label: `${point.direction} ${percent} (${point.kind}, ${pValueText(point)}${causeOf(point)})`,
    change: point.change,
    interval: point.interval,
    before: point.before.value,
    after: point.after.value,
    // A step the runners' levels explain is the fleet's, not the code's: drawn quiet.
    quiet: point.runnerChange !== undefined || !beyondThreshold(series, point),
    ...(regression ? { status: regression.status } : {}),
  };
}

/** What else changed on the change's night, as the label names it. */
function causeOf(point: ChangePoint): string {
  if (point.runnerChange) {
    return `, runner changed ${point.runnerChange.from} → ${point.runnerChange.to}`;
  }
  return point.environmentChanges.length > 0 ? ', software changed' : '';
}
