// Whether a one-value-a-night series' step stands beyond the spread of its own nights.
//
// A series with one value a night (MFU, memory, capacity, start-up) has no runs within a
// night to learn its noise from; its night model takes the spread of its nights, robustly
// (the largest differences left out), and a shared drift's phi. Real nights are wilder
// than that model: a stall slows a whole run, a drift holds a few nights low together. So
// before such a step opens an issue, it is held against the series' own history: the
// nights since the change, averaged, must sit farther the worse way than every run of as
// many consecutive nights before it did. That spread is measured, not modelled: stalls,
// drift and its memory are all in it. And it must show on four nights in a row, not two.

import type { ChangePoint } from './changepoints.js';
import type { Series } from './series.js';

/**
 * Fewest runs of nights before the change to judge by: with fewer, the history cannot
 * say how far its nights stray, and the night model's verdict stands alone.
 */
export const FEWEST_WINDOWS = 20;

/**
 * Nights in a row a regression must show before it asks for an issue: two, or four with
 * one value a night. One run a night has no runs to average a stall away, and a stall
 * slows a run by about 5%, on one night in ten on the simulator's noise: two or three of
 * them in a row, on a drift's low, made a false issue every few weeks for 200 series
 * (bench:changepoints' year; docs/history.md).
 */
export function nightsToPersist(series: Series): number {
  return oneValueANight(series) ? 4 : 2;
}

/** Whether every night of the series holds exactly one value. */
export function oneValueANight(series: Series): boolean {
  return series.points.length > 0 && series.points.every((p) => p.values.length === 1);
}

/**
 * For a one-value series: whether the mean of the nights from the change's first bad
 * night to the newest is farther the worse way from the level before it than every run
 * of as many consecutive nights before the change was. Other series, and histories too
 * short to tell, always pass.
 */
export function standsBeyondOwnNights(
  series: Series,
  change: Pick<ChangePoint, 'firstBad' | 'before'>,
): boolean {
  if (!oneValueANight(series)) return true;
  const at = change.firstBad.index;
  const span = series.points.length - at;
  const start = at - change.before.nights;
  const windows = change.before.nights - span + 1;
  if (span < 1 || start < 0 || windows < FEWEST_WINDOWS) return true;
  const values = series.points.map((p) => p.values[0]!);
  const scale = values.every((v) => v > 0) ? Math.log : (v: number) => v;
  const nights = values.map(scale);
  // Deviations signed so that worse is larger.
  const worse = series.direction === 'higher-is-better' ? -1 : 1;
  const level = meanOf(nights, start, at);
  const since = worse * (meanOf(nights, at, nights.length) - level);
  for (let from = start; from + span <= at; from += 1) {
    if (worse * (meanOf(nights, from, from + span) - level) >= since) return false;
  }
  return true;
}

function meanOf(values: readonly number[], from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += values[i]!;
  return sum / (to - from);
}
