// Change points of one series, found from every run of every night.
//
// Each night contributes its runs, not one number: the variance of a night's mean is
// modelled as tau² + sigma²/runs, where sigma² is the pooled run-to-run variance within
// nights (many degrees of freedom, thanks to the replicates) and tau² the extra spread
// between nights (machine state, the day's noise), estimated robustly from the
// differences of consecutive nights so that steps and outlier nights barely move it.
// Values are taken on a log scale, so steps are relative and a step up and down of the
// same ratio weigh the same.
//
// Three detectors share that model:
// - segmentation: binary segmentation on the weighted-mean shift statistic (a z score per
//   split, the likelihood-ratio test of one mean shift under the model), each split kept
//   when a permutation test of whole nights (runs of a night stay together) says the
//   largest |z| of its segment is unlikely without a change (p ≤ alpha). Every segment
//   is at least `minNights` nights long and night means are clipped to 3 standard
//   deviations around the segment's median, so one odd night is never a change point;
// - tail: the newest 2 and 3 nights against the rest of their segment, at a per-night
//   false alarm rate of about `tailAlpha`: a fresh step is named within 2–3 nights rather
//   than when the segmentation has enough nights to see it. Each newest night counts at
//   most 2.5 of its standard deviations, so a single awful night is not a change;
// - creep: the newest 3 nights against the first nights of their segment, one-sided in
//   the regressing direction, so five 1% steps add up to a finding even though no single
//   step is big enough to be one.
//
// Pure and seeded: the same series gives the same change points.

import { fingerprintDifferences, type FingerprintDifference } from '../environment/fingerprint.js';
import type { Direction, Environment } from '../model.js';
import { normalQuantile } from '../stats/distributions.js';
import { seededRandom } from '../stats/rng.js';
import type { Series, SeriesPoint } from './series.js';

export interface DetectOptions {
  /** Significance of a segmentation split (permutation p-value). */
  alpha: number;
  /** Per-night false alarm rate of the tail detector (two tests share it). */
  tailAlpha: number;
  /** Per-night false alarm rate of the creep detector (one-sided). */
  creepAlpha: number;
  /** Permutations per segmentation test. */
  permutations: number;
  /** Shortest segment, in nights. */
  minNights: number;
  /** Nights at the start of a segment that the creep detector takes as its reference. */
  creepReference: number;
  /** Confidence of the step intervals. */
  confidence: number;
}

export const DEFAULT_DETECT_OPTIONS: Readonly<DetectOptions> = Object.freeze({
  alpha: 0.005,
  tailAlpha: 0.005,
  creepAlpha: 0.002,
  permutations: 199,
  minNights: 2,
  creepReference: 10,
  confidence: 0.95,
});

/** A point of a series as a change point names it. */
export interface PointRef {
  /** Index in the series' points. */
  index: number;
  path: string;
  commit: string;
  createdAt: string;
  runId: string;
  environment: Environment;
}

export type ChangeKind = 'step' | 'creep';
export type ChangeDirection = 'regression' | 'improvement';

export interface ChangePoint {
  seriesId: string;
  /** `step`: the level moved between two nights; `creep`: it drifted over many. */
  kind: ChangeKind;
  direction: ChangeDirection;
  /** The first night on the new level (a creep: where the drift is best split). */
  firstBad: PointRef;
  /** The night before it. */
  lastGood: PointRef;
  /** Relative change of the level, after / before − 1 (0.03 = 3% higher). */
  change: number;
  /** Confidence interval of `change`. */
  interval: [number, number];
  confidence: number;
  /** Level (geometric mean of the runs) before and after, with the nights and runs behind each. */
  before: Level;
  after: Level;
  /** Segmentation: permutation p-value; tail and creep: the normal p-value of the test. */
  pValue: number;
  /** Which detector found it. */
  detector: 'segmentation' | 'tail' | 'creep';
  /** What differs between the last good and the first bad night's environment (SDK upgrade). */
  environmentChanges: FingerprintDifference[];
}

export interface Level {
  value: number;
  nights: number;
  runs: number;
}

export interface SeriesAnalysis {
  series: Series;
  /** Oldest first. */
  changePoints: ChangePoint[];
  /** Run-to-run (within a night) and extra night-to-night standard deviation, relative. */
  noise: { run: number; night: number };
}

/** Segments shorter than this many nights are tested without permutations. */
const SMALL_SEGMENT = 20;

/** Per-night figures on the analysis scale. */
interface Nights {
  mean: Float64Array;
  weight: Float64Array;
  runs: Int32Array;
  log: boolean;
  sigma2: number;
  tau2: number;
}

/** Change points of one series. */
export function detectChangePoints(
  series: Series,
  options: Partial<DetectOptions> = {},
): SeriesAnalysis {
  const settings = { ...DEFAULT_DETECT_OPTIONS, ...options };
  const nights = nightFigures(series.points);
  const noise = {
    run: nights.log ? Math.sqrt(nights.sigma2) : 0,
    night: nights.log ? Math.sqrt(nights.tau2) : 0,
  };
  const n = series.points.length;
  if (n < 2 * settings.minNights) return { series, changePoints: [], noise };
  const random = seededRandom(series.id);
  const splits = segment(nights, 0, n, settings, random).sort((a, b) => a.index - b.index);
  const found: Found[] = splits.map((s) => ({ ...s, detector: 'segmentation' as const }));

  const lastStart = found.length > 0 ? found[found.length - 1]!.index : 0;
  const tail = tailTest(nights, lastStart, n, settings);
  if (tail) found.push(tail);
  const creep = tail ? undefined : creepTest(nights, lastStart, n, series.direction, settings);
  if (creep) found.push(creep);

  const bounds = [0, ...found.map((f) => f.index), n];
  const changePoints = found.map((f, i) =>
    describe(series, nights, f, bounds[i]!, bounds[i + 2]!, settings),
  );
  return { series, changePoints, noise };
}

interface Found {
  index: number;
  pValue: number;
  detector: ChangePoint['detector'];
  /** Creep: the reference and current windows compared, instead of the adjacent segments. */
  windows?: { before: [number, number]; after: [number, number] };
}

// ── the night model ──────────────────────────────────────────────────────────────────

function nightFigures(points: readonly SeriesPoint[]): Nights {
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
    const m = values.reduce((s, v) => s + v, 0) / values.length;
    mean[i] = m;
    runs[i] = values.length;
    for (const v of values) within += (v - m) ** 2;
    df += values.length - 1;
  });
  const sigma2 = df > 0 ? within / df : 0;
  // Spread of consecutive differences, Var(m_i+1 − m_i) = 2·(tau² + sigma²/r), from the
  // smallest 90% of them: a step or an awful night only makes a few differences large,
  // and those are left out. (The median would do too, but it is so noisy that tau² would
  // come out well above 0 on half the series without any night effect, and weigh the
  // nights down: a trimmed mean of squares keeps most of the precision.)
  const nightVar = trimmedNightVariance(mean);
  let inverseRuns = 0;
  for (let i = 0; i < n; i += 1) inverseRuns += 1 / runs[i]!;
  const tau2 = Math.max(0, nightVar - (sigma2 * inverseRuns) / Math.max(1, n));
  // A floor keeps a noise-free series (a simulator at SIM_NOISE=0) from dividing by zero.
  const floor = 1e-12;
  const weight = new Float64Array(n);
  for (let i = 0; i < n; i += 1) weight[i] = 1 / Math.max(floor, tau2 + sigma2 / runs[i]!);
  return { mean, weight, runs, log, sigma2, tau2 };
}

/** Share of the consecutive differences of night means that estimate their spread. */
const KEPT_DIFFERENCES = 0.9;

/** Var(m_i) estimated from the smallest squared consecutive differences of `mean`. */
function trimmedNightVariance(mean: Float64Array): number {
  const squares: number[] = [];
  for (let i = 1; i < mean.length; i += 1) squares.push((mean[i]! - mean[i - 1]!) ** 2);
  if (squares.length === 0) return 0;
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
  const share = (2 * normalCdf(root) - 1 - 2 * root * density) / q;
  return sum / kept / share / 2;
}

/** Weighted mean and its variance over nights [from, to). */
function levelOf(nights: Nights, from: number, to: number): { mean: number; variance: number } {
  let w = 0;
  let wm = 0;
  for (let i = from; i < to; i += 1) {
    w += nights.weight[i]!;
    wm += nights.weight[i]! * nights.mean[i]!;
  }
  return { mean: wm / w, variance: 1 / w };
}

// ── segmentation ─────────────────────────────────────────────────────────────────────

/** The split of [from, to) with the largest |z|, both sides at least minNights long. */
function bestSplit(
  mean: ArrayLike<number>,
  weight: ArrayLike<number>,
  from: number,
  to: number,
  minNights: number,
): { index: number; z: number } {
  let totalW = 0;
  let totalWM = 0;
  for (let i = from; i < to; i += 1) {
    totalW += weight[i]!;
    totalWM += weight[i]! * mean[i]!;
  }
  let leftW = 0;
  let leftWM = 0;
  let best = { index: -1, z: 0 };
  for (let k = from; k < to - minNights; k += 1) {
    leftW += weight[k]!;
    leftWM += weight[k]! * mean[k]!;
    const split = k + 1;
    if (split - from < minNights) continue;
    const rightW = totalW - leftW;
    const diff = (totalWM - leftWM) / rightW - leftWM / leftW;
    const z = Math.abs(diff) / Math.sqrt(1 / leftW + 1 / rightW);
    if (z > best.z) best = { index: split, z };
  }
  return best;
}

function segment(
  nights: Nights,
  from: number,
  to: number,
  settings: DetectOptions,
  random: { next(): number },
): { index: number; pValue: number }[] {
  if (to - from < 2 * settings.minNights) return [];
  const mean = clippedMeans(nights, from, to);
  const weight = nights.weight.slice(from, to);
  const best = bestSplit(mean, weight, 0, to - from, settings.minNights);
  if (best.index < 0) return [];
  // Few nights leave a permutation test too few orders to reach alpha: there the normal
  // p-value of the best split, times the splits tried (Bonferroni), decides instead.
  const splits = to - from - 2 * settings.minNights + 1;
  const pValue =
    to - from < SMALL_SEGMENT
      ? Math.min(1, splits * 2 * (1 - normalCdf(best.z)))
      : permutationPValue(mean, weight, best.z, settings, random);
  if (pValue > settings.alpha) return bumpIn(nights, mean, weight, from, to, settings, random);
  const index = from + best.index;
  return [
    ...segment(nights, from, index, settings, random),
    { index, pValue },
    ...segment(nights, index, to, settings, random),
  ];
}

/**
 * A short regression that was fixed again (a few nights on another level, then back) in
 * the middle of a segment: one split cannot see it (either side's mean barely moves) and
 * shuffled nights make such a split as easily (the bump's nights look like a few odd
 * ones, scattered). The best bump [a, b) against the rest of the segment is tested
 * instead, with its normal p-value times the bumps tried (Bonferroni): consecutive
 * nights on one level are what sets a bump apart from odd nights, which a permutation
 * would throw away. Each side and the bump are at least `minNights` long, so one awful
 * night (clipped to 3 standard deviations) is never a bump.
 */
function bumpIn(
  nights: Nights,
  mean: Float64Array,
  weight: Float64Array,
  from: number,
  to: number,
  settings: DetectOptions,
  random: { next(): number },
): { index: number; pValue: number }[] {
  const length = to - from;
  const m = settings.minNights;
  if (length < 3 * m) return [];
  // Prefix sums of w and w·mean.
  const w = new Float64Array(length + 1);
  const wm = new Float64Array(length + 1);
  for (let i = 0; i < length; i += 1) {
    w[i + 1] = w[i]! + weight[i]!;
    wm[i + 1] = wm[i]! + weight[i]! * mean[i]!;
  }
  let best = { a: -1, b: -1, z: 0 };
  let tried = 0;
  for (let a = m; a <= length - 2 * m; a += 1) {
    for (let b = a + m; b <= length - m; b += 1) {
      tried += 1;
      const inside = w[b]! - w[a]!;
      const outside = w[length]! - inside;
      const diff = (wm[b]! - wm[a]!) / inside - (wm[length]! - (wm[b]! - wm[a]!)) / outside;
      const z = Math.abs(diff) / Math.sqrt(1 / inside + 1 / outside);
      if (z > best.z) best = { a, b, z };
    }
  }
  if (best.a < 0) return [];
  const pValue = Math.min(1, tried * 2 * (1 - normalCdf(best.z)));
  if (pValue > settings.alpha) return [];
  const start = from + best.a;
  const end = from + best.b;
  return [
    ...segment(nights, from, start, settings, random),
    { index: start, pValue },
    ...segment(nights, start, end, settings, random),
    { index: end, pValue },
    ...segment(nights, end, to, settings, random),
  ];
}

/**
 * The segment's night means, each at most 3 of its standard deviations from the
 * segment's median night: one awful night (a stall, a noisy neighbour) then weighs like
 * an unlucky one and cannot make a change point at an edge on its own, while a real step
 * of any size still moves every night after it.
 */
function clippedMeans(nights: Nights, from: number, to: number): Float64Array {
  const mean = nights.mean.slice(from, to);
  const sorted = Float64Array.from(mean).sort();
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  for (let i = 0; i < mean.length; i += 1) {
    const limit = 3 / Math.sqrt(nights.weight[from + i]!);
    mean[i] = Math.min(median + limit, Math.max(median - limit, mean[i]!));
  }
  return mean;
}

/** How often shuffled nights (each with its runs) give a largest |z| at least as large. */
function permutationPValue(
  original: Float64Array,
  originalWeight: Float64Array,
  observed: number,
  settings: DetectOptions,
  random: { next(): number },
): number {
  const length = original.length;
  const mean = original.slice();
  const weight = originalWeight.slice();
  let atLeast = 0;
  for (let p = 0; p < settings.permutations; p += 1) {
    for (let i = length - 1; i > 0; i -= 1) {
      const j = Math.floor(random.next() * (i + 1));
      const m = mean[i]!;
      mean[i] = mean[j]!;
      mean[j] = m;
      const w = weight[i]!;
      weight[i] = weight[j]!;
      weight[j] = w;
    }
    if (bestSplit(mean, weight, 0, length, settings.minNights).z >= observed) atLeast += 1;
    // Past alpha the split is rejected whatever the other orders give: stop there (most
    // segments hold no change, so this spares most of the work). The p-value is then a
    // lower bound, above alpha; only kept splits report theirs, and those are exact.
    if ((atLeast + 1) / (settings.permutations + 1) > settings.alpha) break;
  }
  return (atLeast + 1) / (settings.permutations + 1);
}

// ── the newest nights ────────────────────────────────────────────────────────────────

/**
 * The newest 2 and 3 nights against the rest of their segment, in both directions. Both
 * windows are looked at every night, so their threshold is that of the larger of two
 * correlated z scores (they share the newest 2 nights): each direction then has a false
 * alarm rate of `tailAlpha` a night, not 2 × tailAlpha.
 */
function tailTest(
  nights: Nights,
  from: number,
  to: number,
  settings: DetectOptions,
): Found | undefined {
  const windows = TAIL_WINDOWS.map((newest) => to - newest);
  if (windows.some((split) => split - from < Math.max(settings.minNights, 5))) return undefined;
  const threshold = maxOfTwoThreshold(settings.tailAlpha, tailCorrelation(nights, from, to));
  let best: Found | undefined;
  for (const split of windows) {
    const z = Math.abs(zBetween(nights, [from, split], [split, to], TAIL_CLIP));
    if (z < threshold) continue;
    // The chance of a z this large in either window, either direction.
    const pValue = Math.min(1, 2 * maxOfTwoTail(z, tailCorrelation(nights, from, to)));
    if (!best || pValue < best.pValue) best = { index: split, pValue, detector: 'tail' };
  }
  return best;
}

/** The windows of newest nights the tail test looks at (the first is the shorter). */
const TAIL_WINDOWS = [2, 3] as const;

/**
 * A newest night counts at most this many of its standard deviations away from the
 * reference level: one awful night among them is then not a change on its own, while a
 * step of 2–3 night deviations (a 3% step at 20 runs) loses little.
 */
const TAIL_CLIP = 3;

/** Correlation of the z scores of the newest 2 and newest 3 nights against the rest. */
function tailCorrelation(nights: Nights, from: number, to: number): number {
  // With night variances 1/w: z_k = (M_k − R_k) / sd_k, where M_k is the weighted mean of
  // the newest k nights and R_k that of the nights before them (from `from` on).
  const sum = (a: number, b: number) => {
    let w = 0;
    for (let i = a; i < b; i += 1) w += nights.weight[i]!;
    return w;
  };
  const w2 = sum(to - 2, to);
  const w3 = sum(to - 3, to);
  const r3 = sum(from, to - 3);
  const r2 = r3 + nights.weight[to - 3]!;
  const middle = nights.weight[to - 3]!;
  // Cov(M2, M3) = 1/w3; Cov(R2, R3) = 1/r2; Cov(R2, M3) = w_mid / (r2·w3); Cov(M2, R3) = 0.
  const covariance = 1 / w3 + 1 / r2 - middle / (r2 * w3);
  return covariance / Math.sqrt((1 / w2 + 1 / r2) * (1 / w3 + 1 / r3));
}

const thresholdCache = new Map<string, number>();

/** The c with P(max(Z1, Z2) ≥ c) = alpha for standard normals of correlation `rho`. */
export function maxOfTwoThreshold(alpha: number, rho: number): number {
  const key = `${alpha}:${rho.toFixed(3)}`;
  const cached = thresholdCache.get(key);
  if (cached !== undefined) return cached;
  // Between the one-test threshold (rho = 1) and Bonferroni's (rho = 0).
  let low = normalQuantile(1 - alpha);
  let high = normalQuantile(1 - alpha / 2);
  for (let step = 0; step < 40; step += 1) {
    const middle = (low + high) / 2;
    if (maxOfTwoTail(middle, rho) > alpha) low = middle;
    else high = middle;
  }
  thresholdCache.set(key, high);
  return high;
}

/** P(max(Z1, Z2) ≥ c) for standard normals of correlation `rho` (Simpson's rule). */
export function maxOfTwoTail(c: number, rho: number): number {
  // P(Z1 < c, Z2 < c) = ∫_{−∞}^{c} φ(x) Φ((c − ρx) / √(1 − ρ²)) dx.
  const spread = Math.sqrt(Math.max(1e-12, 1 - rho * rho));
  const low = Math.min(-8, c - 1);
  const steps = 400;
  const h = (c - low) / steps;
  let total = 0;
  for (let i = 0; i <= steps; i += 1) {
    const x = low + i * h;
    const f = (Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI)) * normalCdf((c - rho * x) / spread);
    total += f * (i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2);
  }
  return Math.max(0, 1 - (total * h) / 3);
}

/** The newest 3 nights against the first nights of their segment, one-sided. */
function creepTest(
  nights: Nights,
  from: number,
  to: number,
  direction: Direction,
  settings: DetectOptions,
): Found | undefined {
  const newest = 3;
  const reference = Math.min(settings.creepReference, to - newest - from - newest);
  if (reference < 5) return undefined;
  const before: [number, number] = [from, from + reference];
  const after: [number, number] = [to - newest, to];
  const z = zBetween(nights, before, after, CREEP_CLIP);
  // Regressing: lower is worse for higher-is-better metrics.
  const worse = direction === 'higher-is-better' ? -z : z;
  if (worse < normalQuantile(1 - settings.creepAlpha)) return undefined;
  // Where the drift is best split, between the reference and the newest nights.
  const split = bestSplit(nights.mean, nights.weight, from + reference, to, 1);
  const index = split.index > 0 ? split.index : to - newest;
  return {
    index,
    pValue: 1 - normalCdf(worse),
    detector: 'creep',
    windows: { before, after },
  };
}

/**
 * z of the level of nights `b` against nights `a`. With `clip`, each night of `b` counts
 * at most `clip` of its own standard deviations away from `a`'s level: one bad night
 * among the newest is not a change (it takes more like it), however bad it is.
 */
function zBetween(
  nights: Nights,
  a: [number, number],
  b: [number, number],
  clip = Number.POSITIVE_INFINITY,
): number {
  const left = levelOf(nights, a[0], a[1]);
  let w = 0;
  let wm = 0;
  for (let i = b[0]; i < b[1]; i += 1) {
    const weight = nights.weight[i]!;
    const limit = clip / Math.sqrt(weight);
    const mean = Math.min(left.mean + limit, Math.max(left.mean - limit, nights.mean[i]!));
    w += weight;
    wm += weight * mean;
  }
  return (wm / w - left.mean) / Math.sqrt(left.variance + 1 / w);
}

/** The creep test's clip: a creep moves every night a little, never one night a lot. */
const CREEP_CLIP = 2.5;

// ── describing a change point ────────────────────────────────────────────────────────

function describe(
  series: Series,
  nights: Nights,
  found: Found,
  segmentStart: number,
  segmentEnd: number,
  settings: DetectOptions,
): ChangePoint {
  const [b0, b1] = found.windows?.before ?? [segmentStart, found.index];
  const [a0, a1] = found.windows?.after ?? [found.index, segmentEnd];
  const left = levelOf(nights, b0, b1);
  const right = levelOf(nights, a0, a1);
  const diff = right.mean - left.mean;
  const half =
    normalQuantile(1 - (1 - settings.confidence) / 2) * Math.sqrt(left.variance + right.variance);
  const ratio = (d: number) => (nights.log ? Math.exp(d) - 1 : d / Math.abs(left.mean || 1));
  const change = ratio(diff);
  const up = change > 0;
  const regressing = (series.direction === 'higher-is-better') !== up;
  const level = (l: { mean: number }, from: number, to: number): Level => ({
    value: nights.log ? Math.exp(l.mean) : l.mean,
    nights: to - from,
    runs: sumRuns(nights, from, to),
  });
  const firstBad = refOf(series, found.index);
  const lastGood = refOf(series, found.index - 1);
  return {
    seriesId: series.id,
    kind: found.detector === 'creep' ? 'creep' : 'step',
    direction: regressing ? 'regression' : 'improvement',
    firstBad,
    lastGood,
    change,
    interval: [ratio(diff - half), ratio(diff + half)],
    confidence: settings.confidence,
    before: level(left, b0, b1),
    after: level(right, a0, a1),
    pValue: found.pValue,
    detector: found.detector,
    environmentChanges: fingerprintDifferences(lastGood.environment, firstBad.environment),
  };
}

function sumRuns(nights: Nights, from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i += 1) total += nights.runs[i]!;
  return total;
}

function refOf(series: Series, index: number): PointRef {
  const point = series.points[index]!;
  return {
    index,
    path: point.path,
    commit: point.commit,
    createdAt: point.createdAt,
    runId: point.runId,
    environment: point.environment,
  };
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 through erf; |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
