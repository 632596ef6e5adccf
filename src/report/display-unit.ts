// The unit a metric's figures are shown in. Values are stored in their metric's unit
// (latency in ms); a table shows each metric in the unit its figures read best in, so a
// 0.4 µs micro-benchmark reads "400 ns", not "0.000 ms". Stored values never change.

import { escapeMarkdown } from './escape.js';

/** Time units from the largest to the smallest, with their size in seconds. */
const TIME_UNITS: readonly { label: string; seconds: number; aliases: readonly string[] }[] = [
  { label: 's', seconds: 1, aliases: ['s', 'sec', 'seconds'] },
  { label: 'ms', seconds: 1e-3, aliases: ['ms'] },
  { label: 'µs', seconds: 1e-6, aliases: ['µs', 'μs', 'us'] },
  { label: 'ns', seconds: 1e-9, aliases: ['ns'] },
];

export interface DisplayUnit {
  /** The unit to write beside the metric. */
  unit: string;
  /** Stored value × factor = the value shown. */
  factor: number;
}

/**
 * The unit to show figures of `unit` in: the same, or a smaller time unit when every
 * figure is below 1 in it (0.0004 ms → 400 ns). Never a larger one: latencies stay in ms
 * as users compare them. Figures that are all zero or missing keep the unit.
 */
export function displayUnit(
  unit: string,
  values: readonly (number | null | undefined)[],
): DisplayUnit {
  const same = { unit, factor: 1 };
  const from = TIME_UNITS.findIndex((candidate) => candidate.aliases.includes(unit));
  if (from === -1) return same;
  let largest = 0;
  for (const value of values) {
    if (value !== null && value !== undefined && Number.isFinite(value)) {
      largest = Math.max(largest, Math.abs(value));
    }
  }
  if (largest === 0 || largest >= 1) return same;
  const base = TIME_UNITS[from]!;
  for (const smaller of TIME_UNITS.slice(from + 1)) {
    const factor = base.seconds / smaller.seconds;
    if (largest * factor >= 1 || smaller === TIME_UNITS.at(-1)) {
      return { unit: smaller.label, factor };
    }
  }
  return same;
}

/** `latency_p50 (µs)`, or the id alone when the metric has no unit. */
export function metricLabel(id: string, unit: string): string {
  return unit === '' ? escapeMarkdown(id) : `${escapeMarkdown(id)} (${escapeMarkdown(unit)})`;
}

/** A value in the display unit; null stays null. */
export function inUnit(value: number | null | undefined, shown: DisplayUnit): number | null {
  return value === null || value === undefined ? null : value * shown.factor;
}
