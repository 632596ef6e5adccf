// The newest nights against the rest of their segment, so that a fresh step is named
// within 2–3 nights rather than when the segmentation has enough nights to see it:
// - tail: the newest 2 and 3 nights against the rest of their segment, at a per-night
//   false alarm rate of about `tailAlpha`. Each newest night counts at most 3 of its
//   standard deviations, so a single awful night is not a change;
// - creep: the newest 3 nights against the first nights of their segment, one-sided in
//   the regressing direction, so five 1% steps add up to a finding even though no single
//   step is big enough to be one.
// Every variance comes from the night model: drifting nights make neighbours alike, so
// the newest nights stray further from a long reference than independent nights would.

import type { Direction } from '../model.js';
import { normalQuantile, normalUpperTail } from '../stats/distributions.js';
import { normalEquivalent } from '../stats/estimated-variance.js';
import { maxOfTwoTail, maxOfTwoThreshold } from '../stats/max-of-two.js';
import type { Random } from '../stats/rng.js';
import { NightAlgebra, whiteVariances, type NightModel, type Range } from './night-model.js';
import { refittedDrawsPValue } from './refitted-draws.js';
import { bestSplit } from './segmentation.js';

export interface NewestNightsSettings {
  tailAlpha: number;
  /** Draws from the night model that decide the tail test on drifting nights. */
  permutations: number;
  creepAlpha: number;
  minNights: number;
  creepReference: number;
}

export interface NewestFinding {
  index: number;
  pValue: number;
  detector: 'tail' | 'creep';
  /** Creep: the reference and current windows compared, instead of the adjacent segments. */
  windows?: { before: [number, number]; after: [number, number] };
}

/** The windows of newest nights the tail test looks at (the first is the shorter). */
const TAIL_WINDOWS = [2, 3] as const;

/**
 * A newest night counts at most this many of its standard deviations away from the
 * reference level: one awful night among them is then not a change on its own, while a
 * step of 2–3 night deviations (a 3% step at 20 runs) loses little.
 */
const TAIL_CLIP = 3;

/**
 * The night effect's least share of the tail comparison's variance for the refitted
 * draws to decide it: where tau² is fitted low on drifting nights, the share is small
 * too, and those are the nights the t reading at the full rate raises false alarms on.
 */
const DRAWN_SHARE = 0.2;

/**
 * The draws decide only where the series shows its night effect: tau² at least this many
 * of its standard errors above 0. On independent nights the likelihood fits tau² above 0
 * on about half of the series by chance, and the draws, more cautious than the t reading,
 * then cost steps (a gate fits a drift on a fifth of its nights without any).
 */
const DRAWN_EVIDENCE = 1;

/** The creep test's clip: a creep moves every night a little, never one night a lot. */
const CREEP_CLIP = 2.5;

/**
 * The newest 2 and 3 nights against the rest of their segment, in both directions. Both
 * windows are looked at every night, so their threshold is that of the larger of two
 * correlated z scores (they share the newest 2 nights): each direction then has a false
 * alarm rate of `tailAlpha` a night, not 2 × tailAlpha.
 */
export function tailTest(
  model: NightModel,
  algebra: NightAlgebra,
  from: number,
  to: number,
  settings: NewestNightsSettings,
  random?: Random,
): NewestFinding | undefined {
  const windows = TAIL_WINDOWS.map((newest) => to - newest);
  if (windows.some((split) => split - from < Math.max(settings.minNights, 5))) return undefined;
  const rho = tailCorrelation(algebra, from, to);
  const threshold = maxOfTwoThreshold(settings.tailAlpha, rho);
  if (random && showsNightEffect(model) && driftShare(model, algebra, from, to) >= DRAWN_SHARE) {
    return drawnTailTest(model, algebra, from, to, threshold, settings, random);
  }
  let best: NewestFinding | undefined;
  for (const split of windows) {
    const z = Math.abs(zBetween(model, algebra, [from, split], [split, to], TAIL_CLIP));
    if (z < threshold) continue;
    // The chance of a z this large in either window, either direction.
    const pValue = Math.min(1, 2 * maxOfTwoTail(z, rho));
    if (!best || pValue < best.pValue) best = { index: split, pValue, detector: 'tail' };
  }
  return best;
}

/**
 * The tail test on drifting nights: the larger |z| of the two windows (not read as t)
 * against the same among nights drawn from the model, each draw's tau² refitted
 * (refitted-draws.ts), in both directions at once (2 × tailAlpha). Only a |z| past the
 * normal threshold is tried: the draws only ever ask for more.
 */
function drawnTailTest(
  model: NightModel,
  algebra: NightAlgebra,
  from: number,
  to: number,
  threshold: number,
  settings: NewestNightsSettings,
  random: Random,
): NewestFinding | undefined {
  const largest = (m: NightModel, a: NightAlgebra, start: number, end: number) => {
    let best = { index: -1, z: 0 };
    for (const newest of TAIL_WINDOWS) {
      const split = end - newest;
      const z = Math.abs(rawZBetween(m, a, [start, split], [split, end], TAIL_CLIP));
      if (z > best.z) best = { index: split, z };
    }
    return best;
  };
  const observed = largest(model, algebra, from, to);
  if (observed.z < threshold) return undefined;
  const alpha = settings.tailAlpha;
  const pValue = refittedDrawsPValue(
    model,
    from,
    to,
    observed.z,
    alpha,
    settings.permutations,
    random,
    (drawn, drawnAlgebra) => largest(drawn, drawnAlgebra, 0, to - from).z,
  );
  return pValue <= alpha ? { index: observed.index, pValue, detector: 'tail' } : undefined;
}

/** Whether the likelihood fit (at a gate's drift) shows a night effect, not only allows one. */
function showsNightEffect(model: NightModel): boolean {
  return model.fittedBy === 'likelihood' && model.tau2 >= DRAWN_EVIDENCE * model.tau2Error;
}

/**
 * The night effect's share of the variance of the newest 2 nights against the rest: where
 * it is a fair part of it, the tail test leans on tau² and is decided by refitted draws;
 * where it is little (nights that barely drift), the t reading serves, at the full rate.
 */
function driftShare(model: NightModel, algebra: NightAlgebra, from: number, to: number): number {
  if (!(model.phi > 0 && model.tau2 > 0)) return 0;
  const white = whiteVariances(model);
  const runsOnly = new NightAlgebra({ tau2: 0, phi: model.phi }, model.weight, white);
  const split = to - 2;
  const total = algebra.differenceVariance([from, split], [split, to]);
  return 1 - runsOnly.differenceVariance([from, split], [split, to]) / total;
}

/** Correlation of the z scores of the newest 2 and newest 3 nights against the rest. */
function tailCorrelation(algebra: NightAlgebra, from: number, to: number): number {
  const ranges: Range[] = [
    [from, to - 3],
    [to - 3, to - 2],
    [to - 2, to],
  ];
  const rest2 = algebra.weightOf([from, to - 2]);
  const rest3 = algebra.weightOf(ranges[0]!);
  const newest2 = algebra.weightOf(ranges[2]!);
  const newest3 = algebra.weightOf([to - 3, to]);
  const two = [-1 / rest2, -1 / rest2, 1 / newest2];
  const three = [-1 / rest3, 1 / newest3, 1 / newest3];
  const covariance = algebra.covariance(ranges, two, three);
  return covariance / Math.sqrt(algebra.variance(ranges, two) * algebra.variance(ranges, three));
}

/** The newest 3 nights against the first nights of their segment, one-sided. */
export function creepTest(
  model: NightModel,
  algebra: NightAlgebra,
  from: number,
  to: number,
  direction: Direction,
  settings: NewestNightsSettings,
): NewestFinding | undefined {
  const newest = 3;
  const reference = Math.min(settings.creepReference, to - newest - from - newest);
  if (reference < 5) return undefined;
  const before: [number, number] = [from, from + reference];
  const after: [number, number] = [to - newest, to];
  const z = zBetween(model, algebra, before, after, CREEP_CLIP);
  // Regressing: lower is worse for higher-is-better metrics.
  const worse = direction === 'higher-is-better' ? -z : z;
  if (worse < normalQuantile(1 - settings.creepAlpha)) return undefined;
  // Where the drift is best split, between the reference and the newest nights.
  const offset = from + reference;
  const split = bestSplit(algebra, offset, model.mean.subarray(offset, to), 1);
  const index = split.index > 0 ? offset + split.index : to - newest;
  return {
    index,
    pValue: normalUpperTail(worse),
    detector: 'creep',
    windows: { before, after },
  };
}

/**
 * z of the level of nights `b` against nights `a`, as the normal score of its tail (its
 * variance leans on an estimated tau²). With `clip`, each night of `b` counts
 * at most `clip` of its own standard deviations away from `a`'s level: one bad night
 * among the newest is not a change (it takes more like it), however bad it is.
 */
function zBetween(
  model: NightModel,
  algebra: NightAlgebra,
  a: Range,
  b: Range,
  clip: number,
): number {
  return normalEquivalent(rawZBetween(model, algebra, a, b, clip), algebra.differenceDf(a, b));
}

/** That z, as the normal score it would be were tau² known. */
function rawZBetween(
  model: NightModel,
  algebra: NightAlgebra,
  a: Range,
  b: Range,
  clip: number,
): number {
  const reference = levelOf(model, a[0], a[1]);
  let w = 0;
  let wm = 0;
  for (let i = b[0]; i < b[1]; i += 1) {
    const weight = model.weight[i]!;
    const limit = clip / Math.sqrt(weight);
    const mean = Math.min(reference + limit, Math.max(reference - limit, model.mean[i]!));
    w += weight;
    wm += weight * mean;
  }
  return (wm / w - reference) / Math.sqrt(algebra.differenceVariance(a, b));
}

/** Weighted mean of nights [from, to). */
export function levelOf(model: NightModel, from: number, to: number): number {
  let w = 0;
  let wm = 0;
  for (let i = from; i < to; i += 1) {
    w += model.weight[i]!;
    wm += model.weight[i]! * model.mean[i]!;
  }
  return wm / w;
}
