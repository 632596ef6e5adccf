// The runner as a factor: a fleet of runners of one instance type, each a little faster or
// slower than the others, that a series' nights rotate over.
//
// Each runner's level (on the analysis scale, relative to the others) is estimated from
// nights of different runners close in time: night j minus night i, in the same segment,
// is runner(j)'s offset minus runner(i)'s plus noise. Close nights share the level and
// most of a slow drift, so the offsets come out right whether the nights drift or not,
// and a step spoils only the few pairs across it (pairs far from the others' fit are left
// out, as the variogram trims its differences). A first fit takes pairs at most
// PAIR_NIGHTS apart alike; the second takes pairs up to FAR_PAIR_NIGHTS apart, each
// weighted by the inverse of the variance of differences at its lag (the nights' own
// variogram, runners taken out): on independent nights far pairs count as much as near
// ones and the offsets rest on every night of the runner, not only on those next to a
// swap; on drifting nights they count for little. A runner with fewer than MIN_NIGHTS
// nights in near pairs is not estimated: its nights keep offset 0, the fleet's average,
// and a change to it is judged against the runners' spread (runnerExplains).
//
// The detectors then see every night at its runner-adjusted level, so a swap to a slower
// runner is no step. Pure: the same nights give the same offsets.

import { normal, type Random } from '../stats/rng.js';

/** Nights [start, end). */
type Range = readonly [number, number];

/** Pairs of nights at most this far apart make the first fit, and say which runners are estimated. */
const PAIR_NIGHTS = 4;
/**
 * Pairs at most this far apart make the second fit, weighted by their lag's variance: far
 * enough that a runner kept a week is compared with the nights of the runner before it
 * and after it, near enough that a step the segments do not yet cut spoils few pairs.
 */
const FAR_PAIR_NIGHTS = 12;
/** A runner is estimated from at least this many of its nights paired with another runner's. */
export const MIN_RUNNER_NIGHTS = 5;
/** Pairs beyond this many robust deviations of the fit are left out of it. */
const PAIR_CLIP = 3;

export interface RunnerLevel {
  runner: string;
  /** Offset of its nights from the fleet's average, on the analysis scale; 0 when not estimated. */
  offset: number;
  /** Its nights in the series. */
  nights: number;
  /** Whether enough of its nights lie next to another runner's to estimate its offset. */
  estimated: boolean;
  /**
   * Standard error of `offset` (0 when not estimated): what is left of the runner's level
   * in its nights, the same in each of them (RunnerEffect).
   */
  error: number;
}

/**
 * What the estimated offsets leave in the nights: night i's runner `of[i]` (−1: none),
 * whose error of variance `variance[of[i]]` every night of that runner shares. The night
 * algebra counts it as a random effect of the runner (night-model.ts), so a level
 * comparison across runners whose offsets are poorly known is as uncertain as they are.
 */
export interface RunnerEffect {
  of: Int32Array;
  variance: readonly number[];
}

export interface RunnerLevels {
  /** Each night's runner offset (0 for an unknown or unestimated runner). */
  offset: Float64Array;
  /** The offsets' errors, by night. */
  effect: RunnerEffect;
  /** One per runner the nights name, by first appearance. */
  runners: RunnerLevel[];
  /**
   * Standard deviation of the estimated runners' offsets (at least two of them), the
   * spread a runner not yet estimated is expected to lie in; undefined with fewer.
   */
  spread?: number;
}

interface Pair {
  from: number;
  to: number;
  /** Night `to` minus night `from`. */
  difference: number;
  /** Nights of the pair (for counting a runner's paired nights). */
  nights: [number, number];
  /** How much the pair counts in the fit. */
  weight: number;
}

/**
 * The runners' offsets from night means. `runnerOf[i]`: night i's runner (undefined:
 * not recorded); `segments`: nights that share a level (pairs never cross them); only
 * nights before `end` estimate (the newest ones are left out, as the likelihood fit
 * leaves them: a fresh step would pass for a runner's offset).
 */
export function runnerLevels(
  mean: ArrayLike<number>,
  runnerOf: readonly (string | undefined)[],
  segments: readonly Range[],
  end: number = mean.length,
): RunnerLevels {
  const n = mean.length;
  const names: string[] = [];
  const index = new Map<string, number>();
  const id = new Int32Array(n).fill(-1);
  const counts: number[] = [];
  runnerOf.forEach((runner, i) => {
    if (runner === undefined || runner === '') return;
    if (!index.has(runner)) {
      index.set(runner, names.length);
      names.push(runner);
      counts.push(0);
    }
    id[i] = index.get(runner)!;
    counts[id[i]!]! += 1;
  });
  const none = (): RunnerLevels => ({
    offset: new Float64Array(n),
    effect: { of: id, variance: names.map(() => 0) },
    runners: names.map((runner, k) => ({
      runner,
      offset: 0,
      nights: counts[k]!,
      estimated: false,
      error: 0,
    })),
  });
  if (names.length < 2) return none();

  let pairs = pairsOf(mean, id, segments, end, PAIR_NIGHTS);
  let estimable = pairedRunners(pairs, id, names.length);
  pairs = pairs.filter((p) => estimable[p.from]! && estimable[p.to]!);
  let offsets = fitOffsets(pairs, names.length);
  // Once more without the pairs far from the fit (a step, an awful night).
  const residuals = pairs.map((p) => p.difference - (offsets[p.to]! - offsets[p.from]!));
  const scale = 1.4826 * median(residuals.map(Math.abs));
  if (scale > 0) {
    pairs = pairs.filter((_, k) => Math.abs(residuals[k]!) <= PAIR_CLIP * scale);
    estimable = pairedRunners(pairs, id, names.length);
    pairs = pairs.filter((p) => estimable[p.from]! && estimable[p.to]!);
    offsets = fitOffsets(pairs, names.length);
  }
  if (!estimable.some(Boolean)) return none();
  const far = farPairsFit(mean, id, segments, end, offsets, estimable);
  const fitted = far ?? { offsets, pairs, nightVariance: (scale * scale) / 2 };
  offsets = fitted.offsets;
  centre(offsets, pairs, counts, estimable);
  const errors = offsetErrors(fitted.pairs, id, names.length, fitted.nightVariance);

  const offset = new Float64Array(n);
  for (let i = 0; i < n; i += 1) if (id[i]! >= 0 && estimable[id[i]!]) offset[i] = offsets[id[i]!]!;
  const estimated = offsets.filter((_, k) => estimable[k]);
  const runners = names.map((runner, k) => ({
    runner,
    offset: estimable[k] ? offsets[k]! : 0,
    nights: counts[k]!,
    estimated: estimable[k]!,
    error: estimable[k] ? errors[k]! : 0,
  }));
  const effect = { of: id, variance: runners.map((r) => r.error ** 2) };
  return estimated.length >= 2
    ? { offset, effect, runners, spread: sd(estimated) }
    : { offset, effect, runners };
}

/**
 * Pairs of nights of known runners at most `lag` apart, within one segment, before `end`,
 * each of weight 1: of different runners only, unless `sameToo`.
 */
function pairsOf(
  mean: ArrayLike<number>,
  id: Int32Array,
  segments: readonly Range[],
  end: number,
  lag: number,
  sameToo = false,
): Pair[] {
  const pairs: Pair[] = [];
  for (const [start, stop] of segments) {
    const last = Math.min(stop, end);
    for (let i = start; i < last; i += 1) {
      if (id[i]! < 0) continue;
      for (let j = i + 1; j < last && j - i <= lag; j += 1) {
        if (id[j]! < 0 || (id[j] === id[i] && !sameToo)) continue;
        pairs.push({
          from: id[i]!,
          to: id[j]!,
          difference: mean[j]! - mean[i]!,
          nights: [i, j],
          weight: 1,
        });
      }
    }
  }
  return pairs;
}

/**
 * The second fit: pairs of the estimated runners up to FAR_PAIR_NIGHTS apart, each
 * weighted by 1 / the variance of night differences at its lag (what the nights show
 * with the first fit's offsets taken out; never less than at a shorter lag, as a drift
 * only adds with distance), pairs beyond PAIR_CLIP of their lag's deviation left out.
 * Undefined where some lag shows no variance to weigh by (the first fit stands).
 */
function farPairsFit(
  mean: ArrayLike<number>,
  id: Int32Array,
  segments: readonly Range[],
  end: number,
  first: number[],
  estimable: readonly boolean[],
): { offsets: number[]; pairs: Pair[]; nightVariance: number } | undefined {
  const residual = (p: Pair, offsets: readonly number[]) =>
    p.difference - (offsets[p.to]! - offsets[p.from]!);
  const known = (p: Pair) => estimable[p.from]! && estimable[p.to]!;
  const all = pairsOf(mean, id, segments, end, FAR_PAIR_NIGHTS, true).filter(known);
  const variance = lagVariances(
    all.map((p) => ({ lag: p.nights[1] - p.nights[0], r: residual(p, first) })),
  );
  if (variance.slice(1).some((v) => !(v > 0))) return undefined;
  const lagOf = (p: Pair) => p.nights[1] - p.nights[0];
  const pairs = all
    .filter((p) => p.from !== p.to)
    .filter((p) => Math.abs(residual(p, first)) <= PAIR_CLIP * Math.sqrt(variance[lagOf(p)]!))
    .map((p) => ({ ...p, weight: 1 / variance[lagOf(p)]! }));
  if (pairs.length === 0) return undefined;
  return { offsets: fitOffsets(pairs, first.length), pairs, nightVariance: variance[1]! / 2 };
}

/**
 * Standard error of each runner's offset: a runner's offset is, near enough, the mean of
 * its paired nights against the mean of the other runners' nights it is paired with, so
 * its variance is a night's (`nightVariance`) times 1/its nights + 1/theirs. (Counting
 * pairs instead would count each night once per partner: far too sure.)
 */
function offsetErrors(
  pairs: readonly Pair[],
  id: Int32Array,
  runners: number,
  nightVariance: number,
): number[] {
  const own = Array.from({ length: runners }, () => new Set<number>());
  const others = Array.from({ length: runners }, () => new Set<number>());
  for (const {
    nights: [i, j],
  } of pairs) {
    own[id[i]!]!.add(i);
    own[id[j]!]!.add(j);
    others[id[i]!]!.add(j);
    others[id[j]!]!.add(i);
  }
  return own.map((nights, k) =>
    nights.size > 0 && others[k]!.size > 0
      ? Math.sqrt(nightVariance * (1 / nights.size + 1 / others[k]!.size))
      : 0,
  );
}

/**
 * Variance of night differences by lag (index = lag; 0 unused), robustly (the median
 * absolute difference), each at least the shorter lags' (a drift only adds).
 */
function lagVariances(residuals: readonly { lag: number; r: number }[]): number[] {
  const byLag = Array.from({ length: FAR_PAIR_NIGHTS + 1 }, () => [] as number[]);
  for (const { lag, r } of residuals) byLag[lag]!.push(Math.abs(r));
  const variance = new Array<number>(FAR_PAIR_NIGHTS + 1).fill(0);
  for (let lag = 1; lag <= FAR_PAIR_NIGHTS; lag += 1) {
    const own = byLag[lag]!.length > 0 ? (1.4826 * median(byLag[lag]!)) ** 2 : 0;
    variance[lag] = Math.max(own, variance[lag - 1]!);
  }
  return variance;
}

/** Runners with at least MIN_RUNNER_NIGHTS of their nights in `pairs`. */
function pairedRunners(pairs: readonly Pair[], id: Int32Array, runners: number): boolean[] {
  const nights = Array.from({ length: runners }, () => new Set<number>());
  for (const {
    nights: [i, j],
  } of pairs) {
    nights[id[i]!]!.add(i);
    nights[id[j]!]!.add(j);
  }
  return nights.map((set) => set.size >= MIN_RUNNER_NIGHTS);
}

/**
 * Weighted least squares of difference = offset[to] − offset[from] over the pairs, by Gauss–Seidel
 * (a handful of runners; the system is a graph Laplacian, fixed up to a constant per
 * connected group, which centre() then sets).
 */
function fitOffsets(pairs: readonly Pair[], runners: number): number[] {
  const offsets = new Array<number>(runners).fill(0);
  const degree = new Array<number>(runners).fill(0);
  for (const p of pairs) {
    degree[p.from]! += p.weight;
    degree[p.to]! += p.weight;
  }
  for (let sweep = 0; sweep < 200; sweep += 1) {
    let moved = 0;
    for (let k = 0; k < runners; k += 1) {
      if (degree[k] === 0) continue;
      let sum = 0;
      for (const p of pairs) {
        if (p.to === k) sum += p.weight * (p.difference + offsets[p.from]!);
        else if (p.from === k) sum += p.weight * (offsets[p.to]! - p.difference);
      }
      const next = sum / degree[k]!;
      moved = Math.max(moved, Math.abs(next - offsets[k]!));
      offsets[k] = next;
    }
    if (moved < 1e-12) break;
  }
  return offsets;
}

/**
 * Offsets relative to the average night of each group of runners the pairs connect: the
 * adjusted nights keep the series' overall level.
 */
function centre(
  offsets: number[],
  pairs: readonly Pair[],
  counts: readonly number[],
  estimable: readonly boolean[],
): void {
  const group = offsets.map((_, k) => k);
  const root = (k: number): number => (group[k] === k ? k : (group[k] = root(group[k]!)));
  for (const p of pairs) group[root(p.from)] = root(p.to);
  const roots = new Set(offsets.map((_, k) => root(k)));
  for (const r of roots) {
    const members = offsets.map((_, k) => k).filter((k) => estimable[k] && root(k) === r);
    const weight = members.reduce((s, k) => s + counts[k]!, 0);
    if (weight === 0) continue;
    const average = members.reduce((s, k) => s + counts[k]! * offsets[k]!, 0) / weight;
    for (const k of members) offsets[k]! -= average;
  }
}

/**
 * Whether a runner change explains a step of `logStep` (the analysis scale): the night
 * before and the first night after ran on different runners, one of them not estimated
 * (an estimated one's offset is already out of the nights), and the step lies within
 * RUNNER_Z of the runners' spread. Without a spread (fewer than two runners estimated),
 * a step smaller than the metric's `threshold`; without a threshold either, nothing is
 * explained: the change names the runner, and a person judges it.
 */
export function runnerExplains(
  levels: RunnerLevels,
  before: string | undefined,
  after: string | undefined,
  logStep: number,
  threshold?: number | null,
): boolean {
  if (before === undefined || after === undefined || before === after) return false;
  const estimated = (name: string) => levels.runners.find((r) => r.runner === name)?.estimated;
  if (estimated(before) && estimated(after)) return false;
  // No spread known yet (one runner, or none estimated): a runner of the same instance
  // type is not expected to differ by the metric's threshold (what a pull request fails
  // for); a step that large is a regression whatever ran it.
  if (levels.spread === undefined) {
    return typeof threshold === 'number' && Math.abs(logStep) < Math.log1p(threshold);
  }
  // Both unknown: the difference of two runners, √2 of one runner's spread.
  const both = !estimated(before) && !estimated(after);
  return Math.abs(logStep) <= RUNNER_Z * levels.spread * (both ? Math.SQRT2 : 1);
}

/**
 * One draw of the runners' offset errors, for the draws from the night model
 * (segmentation.ts, refitted-draws.ts): night i's part of it, the same for every night of
 * a runner.
 */
export function drawRunnerErrors(effect: RunnerEffect, random: Random): (night: number) => number {
  const errors = effect.variance.map((v) => (v > 0 ? Math.sqrt(v) * normal(random) : 0));
  return (night) => (effect.of[night]! >= 0 ? errors[effect.of[night]!]! : 0);
}

/** Steps within this many of the runners' spread are a runner's, not the code's. */
const RUNNER_Z = 2.5;

/**
 * The runner change nearest night `index` (on it, else a night either side: the night a
 * step is placed on is not always the first of the new runner), as the runners of the
 * night before and the night after it.
 */
export function runnerChangeNear(
  runnerOf: readonly (string | undefined)[],
  index: number,
): { before: string; after: string } | undefined {
  for (const at of [index, index + 1, index - 1]) {
    const before = runnerOf[at - 1];
    const after = runnerOf[at];
    if (at < 1 || before === undefined || after === undefined || before === after) continue;
    return { before, after };
  }
  return undefined;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function sd(values: readonly number[]): number {
  const m = values.reduce((s, v) => s + v, 0) / values.length;
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1));
}
