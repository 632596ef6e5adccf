// The noise model of a series' nights, and the variance of any comparison of its nights.
//
// A night's mean (on a log scale) is its level plus two kinds of noise:
// - its runs' own spread, sigma²/runs, independent from night to night (sigma² pooled
//   within nights: many degrees of freedom, thanks to the replicates);
// - a night effect of variance tau² that need not be independent: a machine or a room
//   drifts slowly, so neighbouring nights share part of it. It is modelled as AR(1) with
//   coefficient phi (phi = 0: independent nights).
// Treating drifting nights as independent makes the mean of a run of nights look far more
// precise than it is (at phi 0.8, nine times), and every slow wander a change point.
//
// tau² and phi are fitted to the variogram of the night means (half the mean square
// difference of nights k apart, k = 1…K), each from the smallest 90% of its differences
// so that a step or an awful night barely moves it; sigma² is known from the runs.

import {
  normalQuantile,
  normalUpperTail,
  regularizedIncompleteBeta,
} from '../stats/distributions.js';
import type { SeriesPoint } from './series.js';
import { satterthwaiteDf } from '../stats/estimated-variance.js';
import { meanOf } from '../stats/mean.js';
import {
  effectAtPhiByLikelihood,
  fitEnd,
  PHI_GRID,
  tau2Ceiling,
  tau2StandardError,
  type NightData,
} from './night-likelihood.js';
import { runnerLevels, type RunnerEffect, type RunnerLevels } from './runner-levels.js';

export interface NightModel {
  /** Night means, on the analysis scale (log when every value is > 0). */
  mean: Float64Array;
  runs: Int32Array;
  log: boolean;
  /** Off the log scale, the value one unit of `mean` stands for (the overall mean); else 1. */
  scale: number;
  /** Run-to-run variance within a night. */
  sigma2: number;
  /** Variance of the night effect (beyond the runs' own spread). */
  tau2: number;
  /** Correlation of the night effects of consecutive nights (AR(1)). */
  phi: number;
  /**
   * Standard error of tau²: the nights that estimate it are few, and fewer still when
   * they drift (neighbours repeat each other), so every variance that leans on tau² is
   * itself uncertain (estimated-variance.ts).
   */
  tau2Error: number;
  /** 1 / (tau² + sigma²/runs): how much a night counts in a level. */
  weight: Float64Array;
  /**
   * How tau² was fitted: by likelihood (at a gate's shared phi, night-likelihood.ts), or
   * from the variogram (a series on its own).
   */
  fittedBy: 'likelihood' | 'variogram';
  /** The runners' offsets, already taken out of `mean` (runner-levels.ts). */
  runners: RunnerLevels;
}

/** Share of the differences at each lag that estimate the variogram. */
const KEPT_DIFFERENCES = 0.9;

export interface FitOptions {
  /**
   * Nights that start a new level (found by an earlier pass): differences across them
   * tell nothing about the noise.
   */
  changes?: readonly number[];
  /**
   * Only consecutive nights (a first pass, before any step is known): a step then spoils
   * one difference, which the trimming leaves out, but a drift cannot be told apart
   * from independent nights (phi is 0).
   */
  consecutiveOnly?: boolean;
  /**
   * The drift the gate's series show together (shared-drift.ts): its phi replaces this
   * series' own fit, which a few dozen nights cannot pin down.
   */
  shared?: SharedDrift;
}

/** A night correlation fitted across series: each keeps its own tau², at least theirs together. */
export interface SharedDrift {
  phi: number;
  /**
   * The series' night effect fitted together at phi: each series' floor, up to the largest
   * tau² its own nights allow.
   */
  tau2?: number;
}

/** What the fit of the night effect starts from: the night means and their variogram. */
export interface NightVariogram {
  mean: Float64Array;
  runs: Int32Array;
  log: boolean;
  scale: number;
  sigma2: number;
  /** The runs' share of a night mean's variance, sigma² times the mean of 1/runs. */
  runsPart: number;
  /**
   * gamma(k) − runsPart for k = 1…: what the night effect adds at each lag. The first
   * `seriesLags` fit the series' own night effect; the rest, out to a third of the
   * nights, help a gate's series fit their shared phi (shared-drift.ts).
   */
  excess: number[];
  seriesLags: number;
  /** Blocks of nights against nights within blocks, the evidence of a drift. */
  blocks: BlockVariance;
  /** What the likelihood fit reads (night-likelihood.ts). */
  data: NightData;
  /** The runners' offsets, already taken out of `mean` (runner-levels.ts). */
  runners: RunnerLevels;
}

/** Fits the night model to a series' points. */
export function nightModel(points: readonly SeriesPoint[], options: FitOptions = {}): NightModel {
  const variogram = nightVariogram(points, options);
  if (options.shared) {
    // At the gate's phi, this series' tau² by likelihood (at least the gate's), and its
    // standard error.
    const effect = atLeastTheGates(
      effectAtPhiByLikelihood(variogram.data, options.shared.phi),
      options.shared,
      variogram.data,
    );
    const model = modelOf(variogram, effect);
    const error = tau2StandardError(variogram.data, effect.tau2, effect.phi);
    const fitted = { ...model, fittedBy: 'likelihood' as const };
    return Number.isFinite(error) ? { ...fitted, tau2Error: error } : fitted;
  }
  return modelOf(variogram, fitNightEffect(variogram));
}

/**
 * A series' night effect, no smaller than its gate's: at a slow drift (phi 0.95) 40 nights
 * of one series are two or three independent ones, its own tau² often a fraction of the
 * truth or 0, and then each wander of the drift is a step. The gate's series drift on one
 * machine; their tau² fitted together rests on all their nights. Unless its own nights
 * show it quieter: a series beside noisier ones is floored only to the largest tau² its
 * nights allow.
 */
function atLeastTheGates(
  effect: { tau2: number; phi: number },
  shared: SharedDrift,
  data: NightData,
): { tau2: number; phi: number } {
  const gate = shared.tau2 ?? 0;
  if (effect.tau2 >= gate) return effect;
  const floor = tau2Ceiling(data, shared.phi, effect.tau2, gate);
  return floor > effect.tau2 ? { tau2: floor, phi: shared.phi } : effect;
}

/** The night means of a series' points and their variogram. */
export function nightVariogram(
  points: readonly SeriesPoint[],
  options: FitOptions = {},
): NightVariogram {
  const log = points.every((p) => p.values.every((v) => v > 0));
  const n = points.length;
  const mean = new Float64Array(n);
  const runs = new Int32Array(n);
  let within = 0;
  let df = 0;
  // Without logs (a value ≤ 0): relative to the overall mean, so sizes still read as ratios.
  const scale = log ? 1 : Math.abs(points.reduce((s, p) => s + p.mean, 0) / Math.max(1, n)) || 1;
  points.forEach((point, i) => {
    const values = point.values.map((v) => (log ? Math.log(v) : v / scale));
    const m = meanOf(values);
    mean[i] = m;
    runs[i] = values.length;
    for (const v of values) within += (v - m) ** 2;
    df += values.length - 1;
  });
  // Each night at its runner's level: a fleet's faster and slower runners are no steps.
  const runners = runnerLevels(
    mean,
    points.map((p) => p.environment.runner),
    rangesBetween(n, options.changes ?? []),
    fitEnd(n),
  );
  for (let i = 0; i < n; i += 1) mean[i]! -= runners.offset[i]!;
  const segments = segmentIndices(n, options.changes ?? []);
  // One run a night shows no run-to-run spread: consecutive nights' differences stand for
  // it (the nugget), and only what nights further apart add is a night effect. Taken as
  // 0, nothing would be noise and every night a change (REML clipped at tau² → 0).
  const sigma2 = df > 0 ? within / df : (trimmedHalfSquare(mean, 1, segments) ?? 0);
  let inverseRuns = 0;
  for (let i = 0; i < n; i += 1) inverseRuns += 1 / runs[i]!;
  const runsPart = (sigma2 * inverseRuns) / Math.max(1, n);
  const seriesLags = options.consecutiveOnly ? 1 : variogramLags(n);
  const lags = options.consecutiveOnly ? 1 : sharedLags(n);
  const excess: number[] = [];
  for (let k = 1; k <= lags && k < n; k += 1) {
    const half = trimmedHalfSquare(mean, k, segments);
    if (half !== undefined) excess.push(half - runsPart);
  }
  const blocks = blockVariance(mean, segments);
  const data = likelihoodData(mean, runs, sigma2, options.changes ?? []);
  return { mean, runs, log, scale, sigma2, runsPart, excess, seriesLags, blocks, data, runners };
}

/** The segments `changes` cut nights [0, nights) into. */
function rangesBetween(nights: number, changes: readonly number[]): Range[] {
  const cuts = [0, ...changes.filter((c) => c > 0 && c < nights), nights];
  return cuts.slice(1).map((end, i) => [cuts[i]!, end] as const);
}

/**
 * The nights the likelihood fit reads: segments between the changes, without the newest
 * nights, so that a fresh step (the tail test's business) does not pass for noise.
 */
function likelihoodData(
  mean: Float64Array,
  runs: Int32Array,
  sigma2: number,
  changes: readonly number[],
): NightData {
  const end = fitEnd(mean.length);
  const cuts = [0, ...changes.filter((c) => c > 0 && c < end), end];
  const segments: Range[] = [];
  for (let i = 1; i < cuts.length; i += 1) segments.push([cuts[i - 1]!, cuts[i]!]);
  return { mean, white: Float64Array.from(runs, (r) => sigma2 / r), segments };
}

function modelOf(variogram: NightVariogram, effect: { tau2: number; phi: number }): NightModel {
  const { mean, runs, log, scale, sigma2, runners } = variogram;
  const { tau2, phi } = effect;
  // A floor keeps a noise-free series (a simulator at SIM_NOISE=0) from dividing by zero.
  const floor = 1e-12;
  const weight = Float64Array.from(runs, (r) => 1 / Math.max(floor, tau2 + sigma2 / r));
  // A variance from n values has a standard error of about √(2/n) of itself. The
  // variogram sees the runs' part, independent from night to night, and tau², whose
  // drifting nights count as n·(1 − phi²)/(1 + phi²) independent ones.
  const nights = Math.max(1, mean.length);
  const independent = Math.max(1, (nights * (1 - phi * phi)) / (1 + phi * phi));
  const tau2Error = variogram.runsPart * Math.sqrt(2 / nights) + tau2 * Math.sqrt(2 / independent);
  return {
    mean,
    runs,
    log,
    scale,
    sigma2,
    tau2,
    phi,
    tau2Error,
    weight,
    fittedBy: 'variogram',
    runners,
  };
}

/**
 * Lags of a series' own variogram: enough to see a slow drift, few enough that the
 * differences a step makes (k of them at lag k) stay well inside the share left out.
 */
function variogramLags(nights: number): number {
  return Math.max(1, Math.min(12, Math.floor(nights / 8)));
}

/**
 * Lags for a gate's shared phi: a third of the nights. With fewer, a few dozen drifting
 * nights show only the variogram's first rise (at phi 0.8 its first 2 lags reach a third
 * of tau²), which independent nights with a small night effect show too; a step that
 * spoils one series' far lags is outweighed by the other series.
 */
function sharedLags(nights: number): number {
  return Math.max(1, Math.min(12, Math.floor(nights / 3)));
}

/** tau² and phi of one series, from its own variogram; phi 0 when nothing favours more. */
function fitNightEffect(variogram: NightVariogram): { tau2: number; phi: number } {
  const excess = ownLags(variogram);
  if (excess.length === 0) return { tau2: 0, phi: 0 };
  // A drift is fitted only where the nights show one: otherwise the variogram's noise
  // alone would often look like a slow drift and cost independent nights their power.
  const drifting = excess.length > 1 && driftPValue([variogram.blocks]) < DRIFT_EVIDENCE;
  if (!drifting) return independentEffect(excess);
  const phi = leastErrorPhi((candidate) => fitAtPhi(excess, candidate).error);
  const { tau2 } = fitAtPhi(excess, phi);
  return tau2 > 0 ? { tau2, phi } : { tau2: 0, phi: 0 };
}

/** The phi of PHI_GRID with the least `errorAt`; ties (no drift at all) go to the smaller. */
function leastErrorPhi(errorAt: (phi: number) => number): number {
  let best = { phi: 0, error: Number.POSITIVE_INFINITY };
  for (const phi of PHI_GRID) {
    const error = errorAt(phi);
    if (error < best.error * (1 - 1e-12)) best = { phi, error };
  }
  return best.phi;
}

function ownLags(variogram: NightVariogram): number[] {
  return variogram.excess.slice(0, variogram.seriesLags);
}

/**
 * tau² of independent nights: every lag estimates it alike, but should they drift after
 * all (too little to show), the far lags come nearer to the whole night variance.
 */
function independentEffect(excess: readonly number[]): { tau2: number; phi: number } {
  const far = excess.slice(excess.length >> 1);
  return { tau2: Math.max(0, meanOf(far)), phi: 0 };
}

/**
 * Least squares of the variogram, gamma(k) − runsPart = tau²·(1 − phi^k), at one phi
 * (tau² in closed form), and its squared error.
 */
function fitAtPhi(excess: readonly number[], phi: number): { tau2: number; error: number } {
  const shape = excess.map((_, i) => 1 - phi ** (i + 1));
  const dot = excess.reduce((s, y, i) => s + y * shape[i]!, 0);
  const norm = shape.reduce((s, a) => s + a * a, 0);
  const tau2 = Math.max(0, dot / norm);
  const error = excess.reduce((s, y, i) => s + (y - tau2 * shape[i]!) ** 2, 0);
  return { tau2, error };
}

/** p-value below which the nights are taken to drift (the F test of blocks of nights). */
export const DRIFT_EVIDENCE = 0.2;
/** Nights a block holds in that test. */
const DRIFT_BLOCK = 5;

/** Sums of squares of block means around their segment's level, and of nights within blocks. */
export interface BlockVariance {
  between: number;
  dfBetween: number;
  within: number;
  dfWithin: number;
}

/**
 * Blocks of consecutive nights against the nights within them (one-way analysis of
 * variance, blocks within each segment): independent nights give an F distribution, a
 * drift makes neighbours alike and the blocks apart.
 */
function blockVariance(mean: Float64Array, segmentOf: Int32Array): BlockVariance {
  // Block means, grouped by segment.
  const bySegment = new Map<number, number[]>();
  let within = 0;
  let blocks = 0;
  for (let start = 0; start + DRIFT_BLOCK <= mean.length;) {
    const end = start + DRIFT_BLOCK;
    if (segmentOf[start] !== segmentOf[end - 1]) {
      start = segmentOf.indexOf(segmentOf[end - 1]!, start);
      continue;
    }
    const block = mean.subarray(start, end);
    const blockMean = block.reduce((s, v) => s + v, 0) / DRIFT_BLOCK;
    for (const v of block) within += (v - blockMean) ** 2;
    const list = bySegment.get(segmentOf[start]!) ?? [];
    list.push(blockMean);
    bySegment.set(segmentOf[start]!, list);
    blocks += 1;
    start = end;
  }
  let between = 0;
  for (const means of bySegment.values()) {
    const level = meanOf(means);
    for (const m of means) between += DRIFT_BLOCK * (m - level) ** 2;
  }
  return {
    between,
    dfBetween: blocks - bySegment.size,
    within,
    dfWithin: blocks * (DRIFT_BLOCK - 1),
  };
}

/**
 * The F test's p-value of a drift in one or more series: each series' sums are taken
 * relative to its own within-block mean square, so that series of any spread count alike.
 */
export function driftPValue(series: readonly BlockVariance[]): number {
  let between = 0;
  let within = 0;
  let dfBetween = 0;
  let dfWithin = 0;
  for (const s of series) {
    if (s.dfBetween < 2 || s.within <= 0) continue;
    const unit = s.within / s.dfWithin;
    between += s.between / unit;
    within += s.within / unit;
    dfBetween += s.dfBetween;
    dfWithin += s.dfWithin;
  }
  if (dfBetween < 2 || within <= 0) return 1;
  const f = between / dfBetween / (within / dfWithin);
  const x = (dfBetween * f) / (dfBetween * f + dfWithin);
  return 1 - regularizedIncompleteBeta(x, dfBetween / 2, dfWithin / 2);
}

/**
 * Half the mean square difference of nights `lag` apart, from the smallest 90% of them:
 * a step or an awful night only makes a few differences large, and those are left out.
 * (The median would do too, but it is so noisy that tau² would come out well above 0 on
 * half the series without any night effect: a trimmed mean keeps most of the precision.)
 */
function trimmedHalfSquare(
  mean: Float64Array,
  lag: number,
  segmentOf: Int32Array,
): number | undefined {
  const squares: number[] = [];
  for (let i = lag; i < mean.length; i += 1) {
    if (segmentOf[i] === segmentOf[i - lag]) squares.push((mean[i]! - mean[i - lag]!) ** 2);
  }
  if (squares.length === 0) return undefined;
  squares.sort((a, b) => a - b);
  const kept = Math.max(1, Math.floor(KEPT_DIFFERENCES * squares.length));
  let sum = 0;
  for (let i = 0; i < kept; i += 1) sum += squares[i]!;
  // d²/(2v) is chi-square(1); the mean of its smallest share q is P(chi²(3) ≤ x_q) / q,
  // with x_q its q quantile: 2Φ(√x) − 1 − 2√x·φ(√x) for chi-square(3).
  const q = kept / squares.length;
  if (q >= 1) return sum / kept / 2;
  const root = normalQuantile((1 + q) / 2);
  const density = Math.exp((-root * root) / 2) / Math.sqrt(2 * Math.PI);
  const share = (1 - 2 * normalUpperTail(root) - 2 * root * density) / q;
  return sum / kept / share / 2;
}

/** For each night, which of the segments `changes` cut the series into it belongs to. */
function segmentIndices(nights: number, changes: readonly number[]): Int32Array {
  const segmentOf = new Int32Array(nights);
  for (let i = 0, s = 0; i < nights; i += 1) {
    while (s < changes.length && changes[s]! <= i) s += 1;
    segmentOf[i] = s;
  }
  return segmentOf;
}

/** Nights [start, end). */
export type Range = readonly [number, number];

/**
 * Weighted sums of nights over ranges, and the variance and covariance of any comparison
 * of weighted range means under the night model, each in O(1) after O(n) set-up: the
 * segmentation scans every split and every bump of a segment with it.
 */
export class NightAlgebra {
  private readonly tau2: number;
  private readonly phi: number;
  private readonly tau2Error: number;
  private readonly w: Float64Array;
  /** Σ_{i<k} w_i. */
  private readonly sumW: Float64Array;
  /** Σ_{i<k} w_i² sigma²/runs_i: the runs' own part of the variance. */
  private readonly sumWhite: Float64Array;
  /** Σ_{i<k} w_i phi^(k−1−i). */
  private readonly toEnd: Float64Array;
  /** Σ_{j≥k} w_j phi^(j−k). */
  private readonly fromStart: Float64Array;
  /** Σ_{i,j<k} w_i w_j phi^|i−j|. */
  private readonly square: Float64Array;
  /** Per runner with an offset error: Σ_{i<k, runner i} w_i, and that error's variance. */
  private readonly runnerSums: { sumW: Float64Array; variance: number }[];

  /**
   * `weight`: how much each night counts in a level; `white`: each night's independent
   * variance (sigma²/runs); tau² and phi: the night effect; `runners`: what the runners'
   * estimated offsets leave in their nights (runner-levels.ts), shared by a runner's nights.
   */
  constructor(
    effect: Pick<NightModel, 'tau2' | 'phi'> & Partial<Pick<NightModel, 'tau2Error'>>,
    weight: ArrayLike<number>,
    white: ArrayLike<number>,
    runners?: RunnerEffect,
  ) {
    const n = weight.length;
    this.tau2 = effect.tau2;
    this.phi = effect.phi;
    this.tau2Error = effect.tau2Error ?? 0;
    this.w = Float64Array.from(weight);
    this.sumW = new Float64Array(n + 1);
    this.sumWhite = new Float64Array(n + 1);
    this.toEnd = new Float64Array(n + 1);
    this.fromStart = new Float64Array(n + 1);
    this.square = new Float64Array(n + 1);
    const phi = this.phi;
    for (let k = 0; k < n; k += 1) {
      const w = this.w[k]!;
      this.sumW[k + 1] = this.sumW[k]! + w;
      this.sumWhite[k + 1] = this.sumWhite[k]! + w * w * white[k]!;
      this.square[k + 1] = this.square[k]! + w * w + 2 * w * phi * this.toEnd[k]!;
      this.toEnd[k + 1] = w + phi * this.toEnd[k]!;
    }
    for (let k = n - 1; k >= 0; k -= 1)
      this.fromStart[k] = this.w[k]! + phi * this.fromStart[k + 1]!;
    this.runnerSums = runnerSumsOf(this.w, runners);
  }

  /** How much night `i` counts. */
  weightAt(i: number): number {
    return this.w[i]!;
  }

  /** Total weight of the nights of `range`. */
  weightOf([p, q]: Range): number {
    return this.sumW[q]! - this.sumW[p]!;
  }

  /**
   * Covariance of Σ_r a_r·S_r and Σ_r b_r·S_r, with S_r the weighted sum of the nights of
   * range r (the ranges disjoint, oldest first). A difference of weighted means is a = ±1/W.
   */
  covariance(ranges: readonly Range[], a: readonly number[], b: readonly number[]): number {
    const { white, shared } = this.covarianceParts(ranges, a, b);
    return white + this.tau2 * shared;
  }

  /** The covariance's runs part, and its night effect part per unit of tau². */
  private covarianceParts(
    ranges: readonly Range[],
    a: readonly number[],
    b: readonly number[],
  ): { white: number; shared: number } {
    let white = this.runnerPart(ranges, a, b);
    let shared = 0;
    for (let r = 0; r < ranges.length; r += 1) {
      const [p, q] = ranges[r]!;
      white += a[r]! * b[r]! * (this.sumWhite[q]! - this.sumWhite[p]!);
      shared += a[r]! * b[r]! * this.within(p, q);
      for (let s = r + 1; s < ranges.length; s += 1) {
        const cross = this.between(ranges[r]!, ranges[s]!);
        shared += (a[r]! * b[s]! + a[s]! * b[r]!) * cross;
      }
    }
    return { white, shared };
  }

  /**
   * The runners' offset errors' part of the covariance: each runner's error counts once
   * for all its nights, Σ_k v_k (Σ_r a_r·W_k,r)(Σ_r b_r·W_k,r), W_k,r the weight of runner
   * k's nights in range r. (Known, as the runs part is: it rests on many nights' runs.)
   */
  private runnerPart(ranges: readonly Range[], a: readonly number[], b: readonly number[]): number {
    let total = 0;
    for (const { sumW, variance } of this.runnerSums) {
      let left = 0;
      let right = 0;
      for (let r = 0; r < ranges.length; r += 1) {
        const [p, q] = ranges[r]!;
        const w = sumW[q]! - sumW[p]!;
        left += a[r]! * w;
        right += b[r]! * w;
      }
      total += variance * left * right;
    }
    return total;
  }

  /**
   * Degrees of freedom of the variance of Σ_r a_r·S_r: its runs part is as good as known
   * (many runs), its night effect part rests on tau²'s estimate.
   */
  degreesOfFreedom(ranges: readonly Range[], a: readonly number[]): number {
    const { white, shared } = this.covarianceParts(ranges, a, a);
    return satterthwaiteDf(white, this.tau2 * shared, this.tau2Error * shared);
  }

  /** Variance of Σ_r a_r·S_r. */
  variance(ranges: readonly Range[], a: readonly number[]): number {
    return this.covariance(ranges, a, a);
  }

  /** Variance of the weighted mean of `after` minus that of `before` (disjoint ranges). */
  differenceVariance(before: Range, after: Range): number {
    return this.variance(...this.difference(before, after));
  }

  /** Degrees of freedom of that variance. */
  differenceDf(before: Range, after: Range): number {
    return this.degreesOfFreedom(...this.difference(before, after));
  }

  private difference(before: Range, after: Range): [Range[], number[]] {
    const ranges = before[0] < after[0] ? [before, after] : [after, before];
    const sign = (range: Range) =>
      range === after ? 1 / this.weightOf(after) : -1 / this.weightOf(before);
    return [ranges, ranges.map(sign)];
  }

  /** Σ_{i,j ∈ [p,q)} w_i w_j phi^|i−j|. */
  private within(p: number, q: number): number {
    return this.square[q]! - this.square[p]! - 2 * this.phi * this.toEnd[p]! * this.startSum(p, q);
  }

  /** Σ_{i ∈ r, j ∈ s} w_i w_j phi^(j−i), for r before s. */
  private between(r: Range, s: Range): number {
    if (this.phi === 0) return 0;
    return this.endSum(r[0], r[1]) * this.phi ** (s[0] - r[1] + 1) * this.startSum(s[0], s[1]);
  }

  /** Σ_{i ∈ [p,q)} w_i phi^(q−1−i). */
  private endSum(p: number, q: number): number {
    return this.toEnd[q]! - this.phi ** (q - p) * this.toEnd[p]!;
  }

  /** Σ_{j ∈ [p,q)} w_j phi^(j−p). */
  private startSum(p: number, q: number): number {
    return this.fromStart[p]! - this.phi ** (q - p) * this.fromStart[q]!;
  }
}

/** Prefix sums of the weights of each runner's nights, for runners with an offset error. */
function runnerSumsOf(
  weight: Float64Array,
  runners: RunnerEffect | undefined,
): { sumW: Float64Array; variance: number }[] {
  if (!runners) return [];
  const n = weight.length;
  return runners.variance.flatMap((variance, k) => {
    if (!(variance > 0)) return [];
    const sumW = new Float64Array(n + 1);
    for (let i = 0; i < n; i += 1) sumW[i + 1] = sumW[i]! + (runners.of[i] === k ? weight[i]! : 0);
    return [{ sumW, variance }];
  });
}

/** Each night's independent variance, sigma²/runs. */
export function whiteVariances(model: NightModel): Float64Array {
  return Float64Array.from(model.runs, (runs) => model.sigma2 / runs);
}

/** The algebra of a model's own nights. */
export function algebraOf(model: NightModel): NightAlgebra {
  return new NightAlgebra(model, model.weight, whiteVariances(model), model.runners.effect);
}
