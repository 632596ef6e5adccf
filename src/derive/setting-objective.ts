// Which objective of a sweep's SLO set its capacity, read from the mean curve of each
// objective: the one that stops holding first as load grows. The comment's capacity charts
// and the dashboard's both mark the capacity on that objective's chart only. Pure math.

import type { CapacityPoint, CapacitySeries } from '../model.js';
import { capacityOfSweep } from './crossing.js';

/** One objective over the loads of a sweep: its SLO line and its points, in any order. */
export interface ObjectiveCurve {
  limit: number;
  holds: CapacitySeries['holds'];
  points: readonly CapacityPoint[];
}

/**
 * The objective that set the capacity (an index into `series`): the one whose mean curve
 * stops holding its SLO at the lowest load (where it crosses, by the gate's own crossing
 * rule); when every curve holds at every load, the one with the least room left at the
 * highest load.
 */
export function settingObjective(curve: { series: readonly ObjectiveCurve[] }): number {
  const crossings = curve.series.map(crossingLoad);
  const first = Math.min(...crossings);
  if (first < Infinity) return crossings.indexOf(first);
  const room = curve.series.map(roomAtHighestLoad);
  return room.indexOf(Math.min(...room));
}

/** Where one objective stops holding: −∞ at the lowest load already, ∞ never. */
function crossingLoad(series: ObjectiveCurve): number {
  const { limit, holds } = series;
  if (series.points.length === 0) return Infinity;
  const sweep = capacityOfSweep(
    series.points.map((p) => ({ load: p.load, checks: [{ value: p.value, limit, holds }] })),
  );
  if (sweep.kind === 'below-lowest') return -Infinity;
  return sweep.kind === 'crossed' ? sweep.value : Infinity;
}

/** How far the objective is from its limit at the highest load, as a share of the limit. */
function roomAtHighestLoad(series: ObjectiveCurve): number {
  const top = [...series.points].sort((a, b) => b.load - a.load)[0];
  if (!top) return Infinity;
  const margin = series.holds === 'at-most' ? series.limit - top.value : top.value - series.limit;
  return margin / (Math.abs(series.limit) || 1);
}
