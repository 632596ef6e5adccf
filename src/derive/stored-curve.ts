// The latency–load curve of one gate run, as the capacity benchmark's info keeps it (and
// so its stored record, which is the next run's baseline), and the chart's data built from
// this run's curve and the baseline's. A stored curve is read back as untrusted input.

import type { LoadSetting } from '../config/slo.js';
import { LOAD_SETTINGS } from '../config/slo.js';
import type {
  BenchmarkResult,
  CapacityCurve,
  CapacityMark,
  CapacityPoint,
  CapacitySeries,
} from '../model.js';

export interface StoredSeries {
  metric: string;
  unit: string;
  limit: number;
  holds: CapacitySeries['holds'];
  points: CapacityPoint[];
}

export interface StoredCurve {
  load: LoadSetting;
  unit: string;
  series: StoredSeries[];
  capacity: CapacityMark | null;
}

export function storedCurve(
  load: LoadSetting,
  unit: string,
  series: StoredSeries[],
  capacity: CapacityMark | null,
): StoredCurve {
  return { load, unit, series, capacity };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

function pointsOf(value: unknown): CapacityPoint[] | undefined {
  if (!Array.isArray(value) || value.length > 1000) return undefined;
  const points = value.filter(
    (p): p is CapacityPoint => isObject(p) && isNumber(p.load) && isNumber(p.value),
  );
  return points.length === value.length
    ? points.map(({ load, value: v }) => ({ load, value: v }))
    : undefined;
}

function seriesOf(value: unknown): StoredSeries | undefined {
  if (!isObject(value)) return undefined;
  const { metric, unit, limit, holds } = value;
  const points = pointsOf(value.points);
  if (typeof metric !== 'string' || typeof unit !== 'string' || !isNumber(limit)) return undefined;
  if (holds !== 'at-most' && holds !== 'at-least') return undefined;
  return points ? { metric, unit, limit, holds, points } : undefined;
}

function markOf(value: unknown): CapacityMark | null {
  if (!isObject(value) || !isNumber(value.value)) return null;
  return { value: value.value, atLeast: value.atLeast === true };
}

/**
 * A result's (or a stored record's) curve, checked; undefined when it has none or it is
 * malformed.
 */
export function curveOf(
  result: Pick<BenchmarkResult, 'info'> | undefined,
): StoredCurve | undefined {
  const stored = result?.info?.capacity;
  if (!isObject(stored) || !Array.isArray(stored.series)) return undefined;
  const load = LOAD_SETTINGS.find((setting) => setting === stored.load);
  if (!load || typeof stored.unit !== 'string') return undefined;
  const series = stored.series.slice(0, 20).map(seriesOf);
  if (series.some((s) => s === undefined)) return undefined;
  return storedCurve(load, stored.unit, series as StoredSeries[], markOf(stored.capacity));
}

/**
 * The chart's data: this run's curve, with the baseline's points of the same objectives
 * when the baseline was measured in the same load (else none). Undefined without a curve.
 */
export function capacityCurveOf(
  current: BenchmarkResult | undefined,
  baseline: BenchmarkResult | undefined,
): CapacityCurve | undefined {
  const now = curveOf(current);
  if (!now || now.series.length === 0) return undefined;
  const before = curveOf(baseline);
  const comparable = before && before.load === now.load && before.unit === now.unit;
  const series = now.series.map((s): CapacitySeries => {
    const old = comparable
      ? before.series.find((b) => b.metric === s.metric && b.unit === s.unit)
      : undefined;
    return {
      metric: s.metric,
      unit: s.unit,
      limit: s.limit,
      holds: s.holds,
      baseline: old?.points ?? [],
      current: s.points,
    };
  });
  return {
    load: now.load,
    unit: now.unit,
    series,
    capacity: { baseline: comparable ? before.capacity : null, current: now.capacity },
  };
}
