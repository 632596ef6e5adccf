// Series that stopped reporting: a runner down, a benchmark removed by mistake. Nights are
// the gate's own run days (the UTC days on which any of its series has a point), not the
// calendar: a weekend without runs or a paused fleet flags nothing, and a gate that stopped
// as a whole has no later night to count. A series is missing once the gate has run on
// `after` or more days later than its last point. Which records count is decided upstream:
// the gate's history holds the default branch's records only, and A/B series are no levels.

import type { MissingSeriesView } from '../model.js';
import type { Series, SeriesPoint } from './series.js';

export interface MissingSeries {
  seriesId: string;
  gateKey: string;
  benchmark: string;
  metric: string;
  /** The series' environment key (`inf2.xlarge/2 cores/config 1a2b3c4`, or `any`). */
  environmentKey: string;
  /** The newest point it has. */
  lastSeen: Pick<SeriesPoint, 'commit' | 'createdAt' | 'runId'>;
  /** The gate's run days since that point (at least `after`). */
  nightsMissed: number;
}

export interface MissingOptions {
  /** Nights without a series before it is named; 0 turns the check off. */
  after: number;
  /** The run's time: points and run days after it are not counted. */
  now: Date;
}

/** Series of `series` that stopped reporting while their gate kept running, by gate then id. */
export function findMissingSeries(
  series: readonly Series[],
  options: MissingOptions,
): MissingSeries[] {
  if (!(options.after > 0)) return [];
  const today = dayOf(options.now.toISOString());
  const levels = series
    .filter((s) => !s.ab)
    .map((s) => ({ series: s, points: s.points.filter((p) => dayOf(p.createdAt) <= today) }))
    .filter((s) => s.points.length > 0);
  const runDays = runDaysByGate(levels);
  const missing: MissingSeries[] = [];
  for (const { series: s, points } of levels) {
    const last = points[points.length - 1]!;
    const lastDay = dayOf(last.createdAt);
    const nightsMissed = (runDays.get(s.gateKey) ?? []).filter((day) => day > lastDay).length;
    if (nightsMissed < options.after) continue;
    if (replacedLater(s, lastDay, levels)) continue;
    missing.push({
      seriesId: s.id,
      gateKey: s.gateKey,
      benchmark: s.benchmark,
      metric: s.metric,
      environmentKey: s.environmentKey,
      lastSeen: { commit: last.commit, createdAt: last.createdAt, runId: last.runId },
      nightsMissed,
    });
  }
  return missing.sort(
    (a, b) => a.gateKey.localeCompare(b.gateKey) || a.seriesId.localeCompare(b.seriesId),
  );
}

type Level = { series: Series; points: SeriesPoint[] };

/** The distinct UTC days on which each gate has any point. */
function runDaysByGate(levels: readonly Level[]): Map<string, string[]> {
  const days = new Map<string, Set<string>>();
  for (const { series, points } of levels) {
    const gate = days.get(series.gateKey) ?? new Set<string>();
    for (const point of points) gate.add(dayOf(point.createdAt));
    days.set(series.gateKey, gate);
  }
  return new Map([...days].map(([gate, set]) => [gate, [...set]]));
}

/**
 * Whether the same metric of the same benchmark reports later on the same instance type and
 * core count under another environment key: its benchmark config changed (a new config hash
 * starts a new series), which is not data gone missing.
 */
function replacedLater(series: Series, lastDay: string, levels: readonly Level[]): boolean {
  return levels.some(
    ({ series: other, points }) =>
      other.id !== series.id &&
      other.gateKey === series.gateKey &&
      other.benchmark === series.benchmark &&
      other.metric === series.metric &&
      other.environment.instanceType === series.environment.instanceType &&
      other.environment.neuronCores === series.environment.neuronCores &&
      // A series from before the LNC was read goes on under one that names it.
      (series.environment.logicalNcConfig === undefined ||
        other.environment.logicalNcConfig === series.environment.logicalNcConfig) &&
      dayOf(points[points.length - 1]!.createdAt) > lastDay,
  );
}

/** `YYYY-MM-DD` of an ISO 8601 UTC time. */
function dayOf(isoTime: string): string {
  const time = Date.parse(isoTime);
  return Number.isFinite(time) ? new Date(time).toISOString().slice(0, 10) : isoTime.slice(0, 10);
}

/** A missing series as the report and the issue name it. */
export function missingSeriesView(missing: MissingSeries): MissingSeriesView {
  return {
    benchmark: missing.benchmark,
    metric: missing.metric,
    environment: missing.environmentKey,
    lastSeen: { commit: missing.lastSeen.commit, createdAt: missing.lastSeen.createdAt },
    nightsMissed: missing.nightsMissed,
  };
}
