// A sweep's capacity under its SLO in the comment: per objective, the latency (or the
// attainment) against load for the baseline and this run, and the SLO line; each side's
// capacity is marked on the chart of the objective that set it (derive/setting-objective.ts,
// found from that side's own points, so the two sides may be marked on different charts),
// and the legend under each chart says which objective set it. Then one line with the
// capacity as the `capacity` metric was judged.
//
// A Mermaid xy chart places a line's points evenly along its x axis and has no markers or
// labels, so the curves are drawn on an even grid of loads (each measured load on a grid
// point where the loads allow) and a capacity is a line that runs under the SLO line and
// drops to the load axis at the capacity: a spike pointing at it, named in the legend.
// (A bar is no better: its width follows the axis ticks, about a third of a load unit, and
// Mermaid draws a bar of the axis' lowest value as a band along the axis.)

import { settingObjective } from '../derive/setting-objective.js';
import type { BenchmarkReport, CapacityCurve, CapacityPoint, CapacitySeries } from '../model.js';
import { escapeMarkdown } from './escape.js';
import { PALETTE, formatNumber, xyChartBlock } from './mermaid.js';
import { formatChange, formatValue } from './numbers.js';

/** Objectives drawn per capacity benchmark; report.json keeps the rest. */
export const MAX_CAPACITY_CHARTS = 6;
const BASELINE = PALETTE[0]!;
const CURRENT = PALETTE[3]!;
const SLO_LINE = { color: '#31373d', square: '⬛' };
const HOLDS: Record<CapacitySeries['holds'], string> = { 'at-most': '≤', 'at-least': '≥' };

/** The charts and the capacity line of a capacity benchmark; undefined without a curve. */
export function capacitySection(benchmark: BenchmarkReport): string | undefined {
  const curve = benchmark.capacityCurve;
  if (!curve) return undefined;
  const setters = capacitySetters(curve);
  const shown = curve.series.slice(0, MAX_CAPACITY_CHARTS);
  const parts = shown
    .map((_, index) => objectiveChart(benchmark.name, curve, index, setters))
    .filter((part): part is string => part !== undefined);
  const more = curve.series.length - shown.length;
  if (more > 0) {
    parts.push(`<sub>${more} more objective(s) not drawn: report.json has every curve.</sub>`);
  }
  const line = capacityLine(benchmark, curve);
  if (line) parts.push(line);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/**
 * "Capacity ≥ 8.000 requests/s (baseline 7.123, change +12.3%), from 3 pass(es) of the
 * sweep", from the judged metric.
 */
function capacityLine(benchmark: BenchmarkReport, curve: CapacityCurve): string | undefined {
  const judged = benchmark.metrics.find((m) => m.id === 'capacity');
  if (!judged || judged.current === null) return undefined;
  const atLeast = (side: 'baseline' | 'current') => (curve.capacity[side]?.atLeast ? '≥ ' : '');
  const unit = judged.unit === '' ? '' : ` ${escapeMarkdown(judged.unit)}`;
  const against =
    judged.baseline === null
      ? 'no baseline'
      : `baseline ${atLeast('baseline')}${formatValue(judged.baseline)}, change ${formatChange(judged.change)}`;
  return `**Capacity** ${atLeast('current')}${formatValue(judged.current)}${unit} (${against})${passesOf(benchmark)}.`;
}

/** ", from 5 passes of the sweep (2 to confirm)": one capacity a pass (a run of every variant). */
function passesOf(benchmark: BenchmarkReport): string {
  // capacity: search: how it was searched (derive/searched-capacity.ts), not passes.
  const search = benchmark.result?.info?.search as { summary?: unknown } | undefined;
  if (typeof search?.summary === 'string') return `; ${escapeMarkdown(search.summary)}`;
  const passes = benchmark.result?.runs.length ?? 0;
  if (passes === 0) return '';
  const confirming = benchmark.confirmation?.sweepPasses;
  return `, from ${passes} pass(es) of the sweep${confirming ? ` (${confirming} to confirm)` : ''}`;
}

type SideKey = 'baseline' | 'current';

/**
 * Per side, the objective (index into the curve's series) that set its capacity, found
 * from that side's own points: the baseline's and this run's may differ. Undefined for a
 * side without a capacity (the SLO failed at the lowest load) or without points.
 */
export function capacitySetters(curve: CapacityCurve): Record<SideKey, number | undefined> {
  const setter = (key: SideKey) => {
    if (!curve.capacity[key]) return undefined;
    const series = curve.series.map((s) => ({ limit: s.limit, holds: s.holds, points: s[key] }));
    return series.some((s) => s.points.length > 0) ? settingObjective({ series }) : undefined;
  };
  return { baseline: setter('baseline'), current: setter('current') };
}

interface Side {
  points: CapacityPoint[];
  capacity: number | undefined;
  atLeast: boolean;
  /** The objective that set this side's capacity, as an index into the curve's series. */
  setBy: number | undefined;
  color: { color: string; square: string };
  name: string;
}

/** One objective's chart and its legend; undefined when this run has fewer than two loads. */
function objectiveChart(
  name: string,
  curve: CapacityCurve,
  index: number,
  setters: Record<SideKey, number | undefined>,
): string | undefined {
  const series = curve.series[index]!;
  const current = side('this run', series.current, curve, 'current', CURRENT, setters.current);
  if (current.points.length < 2) return undefined;
  const min = current.points[0]!.load;
  const max = current.points.at(-1)!.load;
  const baseline = side('baseline', series.baseline, curve, 'baseline', BASELINE, setters.baseline);
  // A baseline swept over other loads would need points outside its range: not drawn.
  const sameRange =
    baseline.points.length >= 2 &&
    baseline.points[0]!.load === min &&
    baseline.points.at(-1)!.load === max;
  const sides = sameRange ? [baseline, current] : [current];
  const grid = loadGrid(current.points.map((p) => p.load));
  const [low, high] = valueRange([
    ...sides.flatMap((s) => s.points.map((p) => p.value)),
    series.limit,
  ]);
  // Only on the chart of the objective that set it: elsewhere the legend names that one.
  const marked = sides.filter(
    (s) => s.setBy === index && s.capacity !== undefined && s.capacity >= min && s.capacity <= max,
  );
  const chart = xyChartBlock({
    title: `${name} · ${series.metric} against load`,
    x: { label: `${curve.load} (${curve.unit})`, min, max },
    // Mermaid text cannot hold `%` (`%%` starts a directive).
    yLabel: series.unit === '%' ? 'percent' : series.unit === '' ? series.metric : series.unit,
    yRange: [low, high],
    // Spikes first, so that the SLO line covers them but where they drop; the curves last.
    lines: [
      ...marked.map((s) => spike(grid, s.capacity!, series.limit, low)),
      grid.map(() => series.limit),
      ...sides.map((s) => grid.map((load) => interpolate(s.points, load))),
    ],
    colors: [
      ...marked.map((s) => s.color.color),
      SLO_LINE.color,
      ...sides.map((s) => s.color.color),
    ],
  });
  const baselineShown = sameRange || baseline.points.length === 0;
  return `${chart}\n\n${legend(curve, index, sides, marked, baselineShown)}`;
}

function legend(
  curve: CapacityCurve,
  index: number,
  sides: Side[],
  marked: Side[],
  baselineShown: boolean,
): string {
  const series = curve.series[index]!;
  const unit = series.unit === '' || series.unit === '%' ? series.unit : ` ${series.unit}`;
  const slo = `${SLO_LINE.square} SLO ${escapeMarkdown(series.metric)} ${HOLDS[series.holds]} ${formatNumber(series.limit)}${escapeMarkdown(unit)}`;
  const curves = sides.map((s) => `${s.color.square} ${s.name}`).join(' · ');
  const notes = [spikeNote(curve, marked), ...setElsewhere(curve, index, sides)];
  const capacity = notes.filter((note) => note !== '').map((note) => ` ${note}.`);
  const missing = baselineShown ? '' : ' The baseline was swept over other loads: not drawn.';
  return `<sub>${curves} (mean of the runs at each load) · ${slo}.${capacity.join('')}${missing}</sub>`;
}

/**
 * "Spike to the load axis (its mean over the passes): 🟥 capacity 4.364 requests/s (this
 * run), set by this objective", for the sides whose capacity this chart marks.
 */
function spikeNote(curve: CapacityCurve, marked: Side[]): string {
  if (marked.length === 0) return '';
  const unit = curve.unit === '' ? '' : ` ${escapeMarkdown(curve.unit)}`;
  const named = (s: Side) =>
    `${s.color.square} capacity ${s.atLeast ? '≥ ' : ''}${formatValue(s.capacity!)}${unit} (${s.name})`;
  const crossed = marked.filter((s) => !s.atLeast).map(named);
  const held = marked.filter((s) => s.atLeast).map(named);
  const both = crossed.length > 1 ? 'both ' : '';
  const parts: string[] = [];
  if (crossed.length > 0) parts.push(`${crossed.join(' and ')}, ${both}set by this objective`);
  if (held.length > 0) {
    parts.push(
      `${held.join(' and ')} at the highest load: the SLO held at every load, and this objective came closest to failing`,
    );
  }
  const mean = marked.length > 1 ? "each side's mean over its passes" : 'its mean over the passes';
  return `${marked.length > 1 ? 'Spikes' : 'Spike'} to the load axis (${mean}): ${parts.join('; ')}`;
}

/** "🟦 🟥 capacity set by slo_attainment", for the sides another objective's chart marks. */
function setElsewhere(curve: CapacityCurve, index: number, sides: Side[]): string[] {
  const groups = new Map<string, Side[]>();
  for (const s of sides) {
    if (s.capacity === undefined || s.setBy === undefined || s.setBy === index) continue;
    const key = JSON.stringify([s.setBy, s.atLeast]);
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups.values()].map((group) => {
    const { setBy, atLeast } = group[0]!;
    const setter = escapeMarkdown(curve.series[setBy!]!.metric);
    const squares = group.map((s) => s.color.square).join(' ');
    return atLeast
      ? `${squares} capacity marked on ${setter}'s chart (the SLO held at every load)`
      : `${squares} capacity set by ${setter}`;
  });
}

function side(
  name: string,
  points: readonly CapacityPoint[],
  curve: CapacityCurve,
  key: SideKey,
  color: Side['color'],
  setBy: number | undefined,
): Side {
  const mark = curve.capacity[key];
  const finite = points.filter((p) => Number.isFinite(p.load) && Number.isFinite(p.value));
  return {
    name,
    points: [...finite].sort((a, b) => a.load - b.load),
    capacity: mark && Number.isFinite(mark.value) ? mark.value : undefined,
    atLeast: mark?.atLeast === true,
    setBy,
    color,
  };
}

/**
 * Loads from the lowest to the highest measured, evenly: 61 to 121 of them, the first
 * count that puts every measured load on a grid point (so each curve passes through its
 * points), else 81.
 */
export function loadGrid(loads: readonly number[]): number[] {
  const min = Math.min(...loads);
  const max = Math.max(...loads);
  const fits = (steps: number) =>
    loads.every((load) => {
      const at = ((load - min) / (max - min)) * steps;
      return Math.abs(at - Math.round(at)) < 1e-6;
    });
  let steps = 80;
  for (let candidate = 60; candidate <= 120; candidate += 1) {
    if (fits(candidate)) {
      steps = candidate;
      break;
    }
  }
  return Array.from({ length: steps + 1 }, (_, i) => min + ((max - min) * i) / steps);
}

/** The value at `load` on the straight line between the points around it (sorted by load). */
export function interpolate(points: readonly CapacityPoint[], load: number): number {
  const after = points.findIndex((p) => p.load >= load);
  if (after <= 0) return points[after === 0 ? 0 : points.length - 1]!.value;
  const [a, b] = [points[after - 1]!, points[after]!];
  if (b.load === a.load) return b.value;
  return a.value + ((b.value - a.value) * (load - a.load)) / (b.load - a.load);
}

/** The SLO line but at the grid point nearest `capacity`, where it drops to `low`. */
function spike(grid: readonly number[], capacity: number, limit: number, low: number): number[] {
  let nearest = 0;
  grid.forEach((load, i) => {
    if (Math.abs(load - capacity) < Math.abs(grid[nearest]! - capacity)) nearest = i;
  });
  return grid.map((_, i) => (i === nearest ? low : limit));
}

/** The y axis: the values and the SLO with room around them; from 0 when nothing is below it. */
function valueRange(values: number[]): [number, number] {
  const min = Math.min(...values);
  const max = Math.max(...values);
  const pad = max > min ? (max - min) * 0.1 : Math.abs(max) * 0.1 || 1;
  const low = min >= 0 ? Math.max(0, min - pad) : min - pad;
  return [low, max + pad];
}
