// Apache Otava's change-point detection (formerly DataStax Hunter), re-implemented from
// its public description and source (otava/analysis.py, change_point_divisive/*.py, and
// Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions", ICPE 2023), for the change-point bench only. Not copied: written anew in
// TypeScript from reading how it works, so that its published defaults (window 50,
// p 0.001, min magnitude 0) can be run on exactly the series our detector sees. PyPI is
// not reachable on this machine, so the real package could not be run next to it.
//
// What it does, as Otava does it:
// - split: sliding windows of `window` values, advancing by window/2 (or to the last
//   change point found); in each, E-divisive (Matteson & James) proposes the split that
//   maximises the energy statistic Q(τ, κ) over both the split τ and the right end κ,
//   within the intervals between change points already found; each proposal is kept when
//   a two-sided Student t-test (equal variances, from the sides' means and population
//   standard deviations, as scipy's ttest_ind_from_stats is called) gives p ≤ 10 × p_max,
//   and the window stops at the first proposal that fails;
// - merge: with every change point's t-test recomputed between its neighbours, the one
//   with the largest p is dropped while that p ≥ p_max, and the stats of the change points
//   at the dropped one's list position and the next are recomputed (as Otava does).

import { studentTCdf } from '../src/stats/distributions.js';
import { meanOf } from '../src/stats/mean.js';

export interface OtavaOptions {
  window: number;
  maxPValue: number;
  minMagnitude: number;
}

export const OTAVA_DEFAULTS: OtavaOptions = { window: 50, maxPValue: 0.001, minMagnitude: 0 };

export interface OtavaChangePoint {
  /** Index of the first value on the new level. */
  index: number;
  pValue: number;
  /** mean after / mean before − 1. */
  forwardChange: number;
}

/** Otava's change points of `series` (one value per night). */
export function otavaChangePoints(
  series: readonly number[],
  options: OtavaOptions = OTAVA_DEFAULTS,
): OtavaChangePoint[] {
  const { maxPValue } = options;
  const firstPass = maxPValue < 0.05 ? maxPValue * 10 : maxPValue < 0.5 ? maxPValue * 2 : maxPValue;
  const weak = split(series, options.window, firstPass);
  return merge(weak, series, maxPValue, options.minMagnitude).map((cp) => ({
    index: cp.index,
    pValue: cp.p,
    forwardChange: cp.mean1 === 0 ? 0 : cp.mean2 / cp.mean1 - 1,
  }));
}

interface Stats {
  index: number;
  p: number;
  mean1: number;
  mean2: number;
}

function split(series: readonly number[], window: number, maxP: number): Stats[] {
  const step = Math.floor(window / 2);
  const found = new Map<number, true>();
  let start = 0;
  while (start < series.length) {
    const end = Math.min(start + window, series.length);
    const values = series.slice(start, end);
    const points = windowChangePoints(values, maxP).map((i) => i + start);
    const last = points.length > 0 ? points[points.length - 1]! : 0;
    start = Math.max(last, start + step);
    for (const index of points) found.set(index, true);
  }
  const indexes = [...found.keys()].sort((a, b) => a - b);
  return indexes.map((index, i) =>
    sidesStats(series, indexes[i - 1] ?? 0, index, indexes[i + 1] ?? series.length),
  );
}

/** E-divisive in one window: indexes (within `values`) of the significant change points. */
function windowChangePoints(values: readonly number[], maxP: number): number[] {
  const n = values.length;
  // within[a][b] = Σ_{a ≤ i < k < b} |x_i − x_k|
  const within: Float64Array[] = Array.from({ length: n + 1 }, () => new Float64Array(n + 1));
  for (let a = 0; a < n; a += 1) {
    let sum = 0;
    for (let b = a + 1; b <= n; b += 1) {
      // Adding x_{b−1}: its distances to x_a .. x_{b−2}.
      const x = values[b - 1]!;
      for (let i = a; i < b - 1; i += 1) sum += Math.abs(values[i]! - x);
      within[a]![b] = sum;
    }
  }
  const points: number[] = [];
  for (;;) {
    const bounds = [0, ...points, n];
    let best: { index: number; q: number } | undefined;
    for (let i = 0; i + 1 < bounds.length; i += 1) {
      const s = bounds[i]!;
      const e = bounds[i + 1]!;
      if (e - s <= 1) continue;
      const candidate = bestCandidate(within, s, e);
      if (!best || candidate.q > best.q) best = candidate;
    }
    if (!best) break;
    const index = best.index;
    const around = [0, ...points, n];
    const left = Math.max(...around.filter((b) => b < index));
    const right = Math.min(...around.filter((b) => b > index));
    if (sidesStats(values, left, index, right).p > maxP) break;
    points.push(index);
    points.sort((a, b) => a - b);
  }
  return points;
}

/** The (τ, κ) maximising Q within [s, e): τ is the candidate. */
function bestCandidate(within: Float64Array[], s: number, e: number): { index: number; q: number } {
  let best = { index: -1, q: Number.NEGATIVE_INFINITY };
  for (let tau = s + 1; tau < e; tau += 1) {
    const n = tau - s;
    for (let kappa = tau + 1; kappa <= e; kappa += 1) {
      const m = kappa - tau;
      const cross = within[s]![kappa]! - within[s]![tau]! - within[tau]![kappa]!;
      let q = (2 / (m + n)) * cross;
      if (n > 1) q -= ((2 * m) / ((m + n) * (n - 1))) * within[s]![tau]!;
      if (m > 1) q -= ((2 * n) / ((m + n) * (m - 1))) * within[tau]![kappa]!;
      if (q > best.q) best = { index: tau, q };
    }
  }
  // numpy's argmax over Otava's whole matrix also sees the zeros below its diagonal: when
  // every real Q is negative it picks the first of those, which is τ = s + 2.
  if (best.q < 0 && e - s >= 3) return { index: s + 2, q: 0 };
  return best;
}

/** Student's t-test between [from, index) and [index, to), as Otava calls scipy. */
function sidesStats(series: readonly number[], from: number, index: number, to: number): Stats {
  const left = series.slice(from, index);
  const right = series.slice(index, to);
  const mean1 = meanOf(left);
  const mean2 = meanOf(right);
  const df = left.length + right.length - 2;
  let p = 1;
  if (df > 0) {
    // Population standard deviations (np.std), handed to a test that treats them as samples'.
    const s1 = populationStd(left);
    const s2 = populationStd(right);
    const pooled = ((left.length - 1) * s1 * s1 + (right.length - 1) * s2 * s2) / df;
    const se = Math.sqrt(pooled * (1 / left.length + 1 / right.length));
    if (se > 0) {
      const t = (mean1 - mean2) / se;
      p = 2 * (1 - studentTCdf(Math.abs(t), df));
    } else {
      p = mean1 === mean2 ? 1 : 0;
    }
  }
  return { index, p, mean1, mean2 };
}

function merge(
  points: Stats[],
  series: readonly number[],
  maxP: number,
  minMagnitude: number,
): Stats[] {
  const list = [...points];
  const magnitude = (cp: Stats) =>
    Math.max(
      Math.abs(cp.mean1 === 0 ? 0 : cp.mean2 / cp.mean1 - 1),
      Math.abs(cp.mean2 === 0 ? 0 : cp.mean1 / cp.mean2 - 1),
    );
  while (list.length > 0) {
    let weakest = list.reduce((a, b) => (b.p > a.p ? b : a));
    if (weakest.p < maxP) {
      weakest = list.reduce((a, b) => (magnitude(b) < magnitude(a) ? b : a));
      if (magnitude(weakest) > minMagnitude) return list;
    }
    const at = list.findIndex((cp) => cp.index === weakest.index);
    list.splice(at, 1);
    const recompute = (i: number) => {
      if (i < 0 || i >= list.length) return;
      list[i] = sidesStats(
        series,
        list[i - 1]?.index ?? 0,
        list[i]!.index,
        list[i + 1]?.index ?? series.length,
      );
    };
    recompute(at);
    recompute(at + 1);
  }
  return list;
}

function populationStd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = meanOf(values);
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / values.length);
}
