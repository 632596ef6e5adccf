// Binary segmentation of a series' nights: the split with the largest |z| (the
// likelihood-ratio test of one mean shift, its variance from the night model so that
// drifting nights are not taken for steps), kept when it is unlikely without a change.
//
// "Unlikely" is decided twice and both must agree: by shuffling whole nights (runs of a
// night stay together; right when nights are exchangeable, whatever their distribution)
// and, when the nights drift (phi > 0), by drawing segments from the fitted night model
// (right when nights drift, as long as they are roughly normal). A drift makes shuffled
// nights look too calm; heavy tails make the model's nights look too tame; each test
// covers the other's weak side. Every segment is at least `minNights` nights long and
// night means are clipped to 3 standard deviations around the segment's median, so one
// odd night is never a change point.

import { normalUpperTail } from '../stats/distributions.js';
import { normalEquivalent } from '../stats/estimated-variance.js';
import { normal, type Random } from '../stats/rng.js';
import { NightAlgebra, whiteVariances, type NightModel, type Range } from './night-model.js';
import { drawRunnerErrors } from './runner-levels.js';

export interface SegmentationSettings {
  /** Significance of a split. */
  alpha: number;
  /** Draws per test (shuffles, and draws from the model). */
  permutations: number;
  /** Shortest segment, in nights. */
  minNights: number;
}

export interface Split {
  index: number;
  pValue: number;
}

/** Segments shorter than this many nights are tested without resampling. */
const SMALL_SEGMENT = 20;

/** The change points of nights [from, to), oldest first. */
export function segment(
  model: NightModel,
  algebra: NightAlgebra,
  from: number,
  to: number,
  settings: SegmentationSettings,
  random: Random,
): Split[] {
  if (to - from < 2 * settings.minNights) return [];
  const mean = clippedMeans(model.mean.subarray(from, to), algebra, from);
  const best = bestSplit(algebra, from, mean, settings.minNights);
  if (best.index < 0) return [];
  // Few nights leave a resampling test too few orders to reach alpha: there the normal
  // p-value of the best split, times the splits tried (Bonferroni), decides instead.
  // (Its z is taken as the normal score of its tail, as its variance leans on tau²; the
  // resampling tests compare z scores of one variance and need no such care.)
  const splits = to - from - 2 * settings.minNights + 1;
  const index = from + best.index;
  let pValue: number;
  if (to - from < SMALL_SEGMENT) {
    const z = normalEquivalent(best.z, algebra.differenceDf([from, index], [index, to]));
    pValue = Math.min(1, splits * 2 * normalUpperTail(z));
  } else pValue = resampledPValue(model, algebra, from, mean, best.z, settings, random);
  if (pValue > settings.alpha) return bumpIn(model, algebra, from, to, mean, settings, random);
  return [
    ...segment(model, algebra, from, index, settings, random),
    { index, pValue },
    ...segment(model, algebra, index, to, settings, random),
  ];
}

/**
 * The split of the nights `offset`, `offset + 1`, … (means `mean`) with the largest |z|,
 * both sides at least minNights long; `index` counts from `offset`.
 */
export function bestSplit(
  algebra: NightAlgebra,
  offset: number,
  mean: ArrayLike<number>,
  minNights: number,
): { index: number; z: number } {
  const length = mean.length;
  let total = 0;
  for (let i = 0; i < length; i += 1) total += algebra.weightAt(offset + i) * mean[i]!;
  const all = algebra.weightOf([offset, offset + length]);
  let leftSum = 0;
  let best = { index: -1, z: 0 };
  for (let k = 0; k < length - minNights; k += 1) {
    leftSum += algebra.weightAt(offset + k) * mean[k]!;
    const split = k + 1;
    if (split < minNights) continue;
    const left: Range = [offset, offset + split];
    const right: Range = [offset + split, offset + length];
    const leftW = algebra.weightOf(left);
    const diff = (total - leftSum) / (all - leftW) - leftSum / leftW;
    const z = Math.abs(diff) / Math.sqrt(algebra.differenceVariance(left, right));
    if (z > best.z) best = { index: split, z };
  }
  return best;
}

/**
 * A short regression that was fixed again (a few nights on another level, then back) in
 * the middle of a segment: one split cannot see it (either side's mean barely moves) and
 * shuffled nights make such a split as easily (the bump's nights look like a few odd
 * ones, scattered). The best bump [a, b) against the rest of the segment is tested
 * instead, with its normal p-value times the bumps tried (Bonferroni): consecutive
 * nights on one level are what sets a bump apart from odd nights, which a shuffle
 * would throw away. Each side and the bump are at least `minNights` long, so one awful
 * night (clipped to 3 standard deviations) is never a bump.
 */
function bumpIn(
  model: NightModel,
  algebra: NightAlgebra,
  from: number,
  to: number,
  mean: Float64Array,
  settings: SegmentationSettings,
  random: Random,
): Split[] {
  const length = to - from;
  const m = settings.minNights;
  if (length < 3 * m) return [];
  // Prefix sums of w·mean.
  const wm = new Float64Array(length + 1);
  for (let i = 0; i < length; i += 1) wm[i + 1] = wm[i]! + algebra.weightAt(from + i) * mean[i]!;
  const all = algebra.weightOf([from, to]);
  let best = { a: -1, b: -1, z: 0, size: 0 };
  let tried = 0;
  for (let a = m; a <= length - 2 * m; a += 1) {
    for (let b = a + m; b <= length - m; b += 1) {
      tried += 1;
      const ranges: Range[] = [
        [from, from + a],
        [from + a, from + b],
        [from + b, to],
      ];
      const inside = algebra.weightOf(ranges[1]!);
      const outside = all - inside;
      const diff = (wm[b]! - wm[a]!) / inside - (wm[length]! - (wm[b]! - wm[a]!)) / outside;
      const variance = algebra.variance(ranges, [-1 / outside, 1 / inside, -1 / outside]);
      const z = Math.abs(diff) / Math.sqrt(variance);
      if (z > best.z) best = { a, b, z, size: Math.abs(diff) };
    }
  }
  if (best.a < 0) return [];
  if (best.size < LARGE_BUMP * medianNightDeviation(algebra, from, to)) return [];
  // Read as normal, not t: Bonferroni over every bump and 3 night SD high are strict
  // enough, and as t a short regression of a short history was no longer found.
  const pValue = Math.min(1, tried * 2 * normalUpperTail(best.z));
  if (pValue > settings.alpha) return [];
  const start = from + best.a;
  const end = from + best.b;
  return [
    ...segment(model, algebra, from, start, settings, random),
    { index: start, pValue },
    ...segment(model, algebra, start, end, settings, random),
    { index: end, pValue },
    ...segment(model, algebra, end, to, settings, random),
  ];
}

/**
 * The segment's median night standard deviation. A bump must sit LARGE_BUMP of them from
 * the rest: a drift wanders up and back by a night deviation or two, which a Bonferroni
 * bound over every bump would otherwise take for short regressions.
 */
function medianNightDeviation(algebra: NightAlgebra, from: number, to: number): number {
  const deviations = Array.from(
    { length: to - from },
    (_, i) => 1 / Math.sqrt(algebra.weightAt(from + i)),
  ).sort((x, y) => x - y);
  return deviations[deviations.length >> 1]!;
}

/** A bump must be this many night standard deviations high to be a short regression. */
const LARGE_BUMP = 3;

/**
 * The segment's night means, each at most 3 of its standard deviations from the
 * segment's median night: one awful night (a stall, a noisy neighbour) then weighs like
 * an unlucky one and cannot make a change point at an edge on its own, while a real step
 * of any size still moves every night after it.
 */
function clippedMeans(
  means: ArrayLike<number>,
  algebra: NightAlgebra,
  offset: number,
): Float64Array {
  const mean = Float64Array.from(means);
  const sorted = Float64Array.from(mean).sort();
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  for (let i = 0; i < mean.length; i += 1) {
    const limit = 3 / Math.sqrt(algebra.weightAt(offset + i));
    mean[i] = Math.min(median + limit, Math.max(median - limit, mean[i]!));
  }
  return mean;
}

/**
 * The larger of two p-values of the best split's |z|: among shuffled nights, and, when
 * the nights drift, among segments drawn from the night model. Both stop once past alpha
 * (the split is rejected whatever the other draws give: most segments hold no change, so
 * this spares most of the work); only kept splits report their p-value, and those are exact.
 */
function resampledPValue(
  model: NightModel,
  algebra: NightAlgebra,
  from: number,
  mean: Float64Array,
  observed: number,
  settings: SegmentationSettings,
  random: Random,
): number {
  const shuffled = shuffledPValue(model, from, mean, observed, settings, random);
  if (shuffled > settings.alpha || model.phi === 0 || model.tau2 === 0) return shuffled;
  return Math.max(
    shuffled,
    modelPValue(model, algebra, from, mean.length, observed, settings, random),
  );
}

/** How often shuffled nights (each with its runs and weight) give a largest |z| as large. */
function shuffledPValue(
  model: NightModel,
  from: number,
  original: Float64Array,
  observed: number,
  settings: SegmentationSettings,
  random: Random,
): number {
  const length = original.length;
  const mean = original.slice();
  const weight = model.weight.slice(from, from + length);
  const white = whiteVariances(model).slice(from, from + length);
  // Each night keeps its runner, and so its share of that runner's offset error.
  const { of, variance } = model.runners.effect;
  const runners = { of: of.slice(from, from + length), variance };
  const rebuild = !weight.every((w) => w === weight[0]) || variance.some((v) => v > 0);
  let algebra = new NightAlgebra(model, weight, white, runners);
  return exceedance(settings, () => {
    for (let i = length - 1; i > 0; i -= 1) {
      const j = Math.floor(random.next() * (i + 1));
      swap(mean, i, j);
      swap(weight, i, j);
      swap(white, i, j);
      swap(runners.of, i, j);
    }
    if (rebuild) algebra = new NightAlgebra(model, weight, white, runners);
    return bestSplit(algebra, 0, mean, settings.minNights).z >= observed;
  });
}

/** How often segments drawn from the night model give a largest |z| as large. */
function modelPValue(
  model: NightModel,
  algebra: NightAlgebra,
  from: number,
  length: number,
  observed: number,
  settings: SegmentationSettings,
  random: Random,
): number {
  const { tau2, phi } = model;
  const innovation = Math.sqrt(tau2 * (1 - phi * phi));
  // Each night's own spread (its runs'), worked out once for every draw.
  const runsSpread = whiteVariances(model)
    .slice(from, from + length)
    .map(Math.sqrt);
  const drawn = new Float64Array(length);
  return exceedance(settings, () => {
    const runnerError = drawRunnerErrors(model.runners.effect, random);
    let effect = Math.sqrt(tau2) * normal(random);
    for (let i = 0; i < length; i += 1) {
      if (i > 0) effect = phi * effect + innovation * normal(random);
      drawn[i] = effect + runsSpread[i]! * normal(random) + runnerError(from + i);
    }
    const clipped = clippedMeans(drawn, algebra, from);
    return bestSplit(algebra, from, clipped, settings.minNights).z >= observed;
  });
}

/** (1 + draws at least as extreme) / (1 + draws), stopping once past alpha. */
function exceedance(settings: SegmentationSettings, extreme: () => boolean): number {
  let atLeast = 0;
  for (let p = 0; p < settings.permutations; p += 1) {
    if (extreme()) atLeast += 1;
    if ((atLeast + 1) / (settings.permutations + 1) > settings.alpha) break;
  }
  return (atLeast + 1) / (settings.permutations + 1);
}

function swap(values: Float64Array | Int32Array, i: number, j: number): void {
  const v = values[i]!;
  values[i] = values[j]!;
  values[j] = v;
}
