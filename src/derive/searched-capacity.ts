// A sweep's capacity from boundary searches (`capacity: search`): one search per run index,
// each starting from the grid's runs of that index as its first probes (so it already holds
// the bracket the grid found, or expands past it) and probing loads of its own until the
// bracket is narrower than the resolution. Each search's crossing is one value of the
// `capacity` metric, as each sweep's is in grid mode (derive/capacity.ts): the judge's
// interval comes from the spread of independent searches, which holds the run-to-run noise
// and the search's own error alike. Each search's bracket and noise interval are kept in
// the result's info and said in the comment. Pure.

import type { CapacitySearchSpec } from '../config/capacity-search.js';
import type { LoadSetting } from '../config/slo.js';
import type { CapacityMark, Metric, RunInfo } from '../model.js';
import type { BoundaryResult, BoundarySearchOptions, Resolution } from './boundary-search.js';
import type { DerivedCapacity } from './capacity.js';

/** A search's own probes beyond the grid's runs, when `max-runs` is not given. */
export const DEFAULT_OWN_PROBES = 10;
export const DEFAULT_RESOLUTION: Resolution = { relative: 0.05 };

/** One search: the run index it started from, its result, its grid probes and its time. */
export interface SearchedRun {
  /** 0-based run index of the grid's runs it started from. */
  run: number;
  result: BoundaryResult;
  /** How many of its probes were the grid's runs (the rest it ran itself). */
  seeded: number;
  /** Wall time of its runs, the grid's included. */
  durationMs: number;
}

/** The search's options: the config's, else from the sweep's loads. */
export function searchOptions(
  spec: CapacitySearchSpec,
  loads: readonly number[],
  setting: LoadSetting,
): BoundarySearchOptions {
  const from = spec.from ?? Math.min(...loads);
  const highest = spec.to ?? Math.max(...loads);
  return {
    from,
    to: highest > from ? highest : from * 2,
    resolution: spec.resolution ?? DEFAULT_RESOLUTION,
    maxRuns: spec.maxRuns ?? loads.length + DEFAULT_OWN_PROBES,
    integer: setting === 'max_concurrency',
  };
}

const round = (x: number) => Number(x.toPrecision(3));

/** `5%` or `0.25 requests/s`. */
export function resolutionText(resolution: Resolution, unit: string): string {
  return 'relative' in resolution
    ? `${round(resolution.relative * 100)}%`
    : `${round(resolution.absolute)} ${unit}`;
}

/** One search's answer in a few characters: `4.1–4.52`, `≥ 8`, `< 1`. */
function intervalText({ result }: SearchedRun): string {
  if (result.kind === 'at-least') return `≥ ${round(result.value)}`;
  if (result.kind === 'below') return `< ${round(result.value)}`;
  const [low, high] = result.interval ?? result.bracket ?? [result.value, result.value];
  return `${round(low)}–${round(high)}`;
}

/**
 * "searched: 3 searches, 22 runs (15 of the grid's, 7 probes), resolution 5%, intervals
 * 4.1–4.52, 4.2–4.4, 4.05–4.49 requests/s": what the comment says of the searches.
 */
export function searchSummary(
  searches: readonly SearchedRun[],
  resolution: Resolution,
  unit: string,
): string {
  const runs = searches.reduce((sum, s) => sum + s.result.runs, 0);
  const seeded = searches.reduce((sum, s) => sum + s.seeded, 0);
  const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;
  const intervals = searches.map(intervalText).join(', ');
  return (
    `searched: ${plural(searches.length, 'search', 'searches')}, ${plural(runs, 'run')} ` +
    `(${seeded} of the grid's, ${plural(runs - seeded, 'probe')}), ` +
    `resolution ${resolutionText(resolution, unit)}, ` +
    `${searches.length === 1 ? 'interval' : 'intervals'} ${intervals} ${unit}`
  );
}

/** What the reader must know of each search: the budget ran out, the noise was not estimated. */
function searchWarnings(searches: readonly SearchedRun[], unit: string): string[] {
  return searches.flatMap(({ run, result }) =>
    result.notes.map((note) => `capacity search ${run + 1}: ${note} (${unit})`),
  );
}

/**
 * The capacity benchmark from the searches: the grid's result (its curve, its name) with
 * the searches' crossings as the `capacity` metric, one value per search.
 */
export function searchedCapacity(
  grid: DerivedCapacity,
  searches: readonly SearchedRun[],
  resolution: Resolution,
  unit: string,
): DerivedCapacity {
  const measured = searches.filter((s) => s.result.kind !== 'below');
  const runs: RunInfo[] = measured.map((s, index) => ({
    index: index + 1,
    kind: 'clean',
    ok: true,
    durationMs: s.durationMs,
    exitCode: 0,
    timedOut: false,
  }));
  const summary = searchSummary(searches, resolution, unit);
  const info: Record<string, unknown> = {
    ...grid.result.info,
    search: { summary, searches: searches.map(searchInfo) },
  };
  // The grid's "not measured" of the capacity is the search's to say.
  const { notMeasured: gridNotes, ...gridResult } = grid.result;
  const notMeasured = Object.fromEntries(
    Object.entries(gridNotes ?? {}).filter(([id]) => id !== 'capacity'),
  );
  const otherNotes = Object.keys(notMeasured).length > 0 ? { notMeasured } : {};
  const base = { ...gridResult, runs, info, ...otherNotes };
  const warnings = searchWarnings(searches, unit);
  if (measured.length === 0) {
    const lowest = Math.min(...searches.map((s) => s.result.value));
    const reason = `the SLO failed at every load the search probed, down to ${round(lowest)} ${unit}: the capacity is below it`;
    const note = { reason, unit, direction: 'higher-is-better' as const };
    return {
      result: { ...base, metrics: [], notMeasured: { ...notMeasured, capacity: note } },
      warnings,
    };
  }
  const metric: Metric = {
    id: 'capacity',
    unit,
    direction: 'higher-is-better',
    values: measured.map((s) => s.result.value),
  };
  const mark: CapacityMark = {
    value: metric.values.reduce((sum, v) => sum + v, 0) / metric.values.length,
    atLeast: measured.some((s) => s.result.kind === 'at-least'),
  };
  const curve = info.capacity as Record<string, unknown> | undefined;
  return {
    result: {
      ...base,
      metrics: [metric],
      info: { ...info, ...(curve ? { capacity: { ...curve, capacity: mark } } : {}) },
    },
    warnings,
    sweeps: measured.map((s) => s.run),
  };
}

/** A search as report.json keeps it: its answer, bracket, interval and probes. */
function searchInfo({ run, result, seeded }: SearchedRun) {
  return {
    run: run + 1,
    kind: result.kind,
    value: result.value,
    ...(result.bracket ? { bracket: result.bracket } : {}),
    ...(result.interval ? { interval: result.interval } : {}),
    resolved: result.resolved,
    runs: result.runs,
    seeded,
    probes: result.probes.map((p) => ({ load: p.load, margin: round(p.margin) })),
  };
}
