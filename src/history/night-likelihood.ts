// The night effect fitted by maximum likelihood: tau² and phi of the AR(1) night effect
// that make a series' night means most likely, rather than read off their variogram.
//
// A night mean is y_t = level + u_t + e_t: u_t the night effect (AR(1), variance tau²,
// coefficient phi), e_t its runs' own noise (variance sigma²/runs, known from the runs).
// A Kalman filter gives the likelihood in O(n) for any (tau², phi). The level of each
// segment is not known: the restricted likelihood (REML) leaves it out instead of
// plugging in its estimate, which would make drifting nights look calmer than they are
// (a segment's mean absorbs much of a slow drift, so a plain maximum likelihood tau² is
// biased low, and a low tau² is a false change point).
//
// Robust to an odd night: an innovation beyond CLIP standard deviations counts as CLIP
// (in the likelihood and in the filter's update), so one awful night neither inflates
// tau² nor passes for a drift. (Counted linearly beyond it, as Huber's loss does, a night
// 20 deviations off still made tau² three times too large.)

/** Nights [start, end) (night-model.ts's Range, repeated: it imports this module). */
type Range = readonly [number, number];

/** What the likelihood is computed from: night means, their runs' variances, segments. */
export interface NightData {
  mean: ArrayLike<number>;
  /** Each night's runs' own variance, sigma²/runs. */
  white: ArrayLike<number>;
  /** Segments, each with its own level (nights [start, end)). */
  segments: readonly Range[];
}

/** Standardised innovations count at most this many deviations. */
const CLIP = 3;

/**
 * The restricted log-likelihood (up to a constant) of `data` under a night effect of
 * variance `tau2` and coefficient `phi`; segments are independent, each its own level.
 */
export function restrictedLogLikelihood(data: NightData, tau2: number, phi: number): number {
  let total = 0;
  for (const [start, end] of data.segments) {
    if (end - start >= 2) total += segmentLogLikelihood(data, start, end, tau2, phi);
  }
  return total;
}

function segmentLogLikelihood(
  data: NightData,
  start: number,
  end: number,
  tau2: number,
  phi: number,
): number {
  const { mean, white } = data;
  const innovation = tau2 * (1 - phi * phi);
  // First pass: the filter on y and on the level's column (1, 1, …) at once (the gains do
  // not depend on the data), whose innovations give the level's GLS estimate.
  let p = tau2;
  let ay = 0;
  let ax = 0;
  let xx = 0;
  let xy = 0;
  let logDet = 0;
  for (let t = start; t < end; t += 1) {
    const f = p + white[t]!;
    const vy = mean[t]! - ay;
    const vx = 1 - ax;
    xx += (vx * vx) / f;
    xy += (vx * vy) / f;
    logDet += Math.log(f);
    const gain = p / f;
    ay = phi * (ay + gain * vy);
    ax = phi * (ax + gain * vx);
    p = phi * phi * p * (1 - gain) + innovation;
  }
  const level = xy / xx;
  // Second pass: the same filter on y − level, each innovation clipped at CLIP deviations.
  p = tau2;
  let a = 0;
  let loss = 0;
  for (let t = start; t < end; t += 1) {
    const f = p + white[t]!;
    const sd = Math.sqrt(f);
    const z = (mean[t]! - level - a) / sd;
    const clipped = Math.max(-CLIP, Math.min(CLIP, z));
    loss += clipped * clipped;
    const gain = p / f;
    a = phi * (a + gain * clipped * sd);
    p = phi * phi * p * (1 - gain) + innovation;
  }
  return -0.5 * (logDet + loss + Math.log(xx));
}

/** The newest nights a fit leaves out: a fresh step (the tail test's) is no noise. */
export const FIT_HOLDOUT = 3;

/** End of the nights a fit of `nights` nights reads: all but the newest few, when there are 10 more. */
export function fitEnd(nights: number): number {
  return nights - FIT_HOLDOUT >= 10 ? nights - FIT_HOLDOUT : nights;
}

/** The phi values a fit tries: the profile over phi is flat enough for a grid. */
export const PHI_GRID = Array.from({ length: 20 }, (_, i) => i * 0.05);

/** tau² that maximises the restricted likelihood at `phi`, and that likelihood. */
export function bestTau2(data: NightData, phi: number): { tau2: number; logLikelihood: number } {
  const at = (tau2: number) => restrictedLogLikelihood(data, tau2, phi);
  // Golden-section search on log tau² from a thousandth of the smaller to a hundred times
  // the larger of the runs' variance and the nights' own spread (a series of one run a
  // night knows only the latter); then tau² = 0 where that is more likely still.
  const white = typicalWhite(data);
  const nights = nightsSpread(data);
  let lo = Math.log(Math.max(1e-12, Math.min(white, nights || white)) * 1e-3);
  let hi = Math.log(Math.max(1e-12, white, nights) * 100);
  const ratio = (Math.sqrt(5) - 1) / 2;
  let x1 = hi - ratio * (hi - lo);
  let x2 = lo + ratio * (hi - lo);
  let f1 = at(Math.exp(x1));
  let f2 = at(Math.exp(x2));
  while (hi - lo > 0.02) {
    if (f1 >= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - ratio * (hi - lo);
      f1 = at(Math.exp(x1));
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + ratio * (hi - lo);
      f2 = at(Math.exp(x2));
    }
  }
  const best =
    f1 >= f2
      ? { tau2: Math.exp(x1), logLikelihood: f1 }
      : { tau2: Math.exp(x2), logLikelihood: f2 };
  const none = at(0);
  return none >= best.logLikelihood ? { tau2: 0, logLikelihood: none } : best;
}

/**
 * 2 × the log-likelihood a tau² may lose against the best one and still be kept: the
 * one-sided 95% bound (χ²₁'s 90% point, 2.71).
 */
const CEILING_DROP = 2.706;

/**
 * The largest tau² at most `most` that the series' nights do not reject at `phi` (one-sided
 * 95%, by the drop of the restricted likelihood from its best at `least`, the series'
 * own): `most` itself when they do not reject it. A gate's night effect floors each
 * series' tau² only up to this, so a series shown quieter than its gate keeps its own.
 */
export function tau2Ceiling(data: NightData, phi: number, least: number, most: number): number {
  const best = restrictedLogLikelihood(data, least, phi);
  const rejected = (tau2: number) =>
    2 * (best - restrictedLogLikelihood(data, tau2, phi)) > CEILING_DROP;
  if (!(most > least) || !rejected(most)) return most;
  // Bisection on log tau² (from a thousandth of `most` where the series' own is 0).
  let lo = Math.log(Math.max(least, most * 1e-3));
  let hi = Math.log(most);
  if (rejected(Math.exp(lo))) return Math.max(least, Math.exp(lo));
  while (hi - lo > 0.02) {
    const mid = (lo + hi) / 2;
    if (rejected(Math.exp(mid))) hi = mid;
    else lo = mid;
  }
  return Math.exp(lo);
}

/** A series' own tau² and phi, fitted together. */
export function fitNightEffectByLikelihood(data: NightData): { tau2: number; phi: number } {
  return effectAtPhiByLikelihood(data, bestSharedPhi([data]));
}

/** tau² by likelihood at a given phi (a gate's); no night effect at all, phi 0 too. */
export function effectAtPhiByLikelihood(
  data: NightData,
  phi: number,
): { tau2: number; phi: number } {
  const { tau2 } = bestTau2(data, phi);
  return tau2 > 0 ? { tau2, phi } : { tau2: 0, phi: 0 };
}

/**
 * The phi most likely for several series at once (a gate's series on one machine), each
 * with its own tau²: the sum of their profile likelihoods, maximised over PHI_GRID.
 */
export function bestSharedPhi(series: readonly NightData[]): number {
  let best = { phi: 0, logLikelihood: Number.NEGATIVE_INFINITY };
  for (const phi of PHI_GRID) {
    const total = series.reduce((sum, data) => sum + bestTau2(data, phi).logLikelihood, 0);
    if (total > best.logLikelihood + 1e-9) best = { phi, logLikelihood: total };
  }
  return best.phi;
}

/**
 * Half the mean squared difference of consecutive nights within a segment: the nights'
 * spread, runs and night effect together (0 with fewer than two nights in a segment).
 */
function nightsSpread(data: NightData): number {
  let sum = 0;
  let count = 0;
  for (const [start, end] of data.segments) {
    for (let t = start + 1; t < end; t += 1) {
      sum += (data.mean[t]! - data.mean[t - 1]!) ** 2 / 2;
      count += 1;
    }
  }
  return count > 0 ? sum / count : 0;
}

function typicalWhite(data: NightData): number {
  let sum = 0;
  for (let i = 0; i < data.white.length; i += 1) sum += data.white[i]!;
  return Math.max(1e-12, sum / Math.max(1, data.white.length));
}

/**
 * Standard error of tau² at `phi`, from the curvature of the restricted likelihood
 * (observed information) at `tau2`, or just above 0 where the fit is at 0: it counts
 * the runs' noise as well as the night effect, so a tau² fitted at or near 0 from a few
 * nights is not taken as known.
 */
export function tau2StandardError(data: NightData, tau2: number, phi: number): number {
  const step = Math.max(tau2 * 0.1, typicalWhite(data) * 0.02);
  const at = Math.max(tau2, step);
  const curvature =
    (restrictedLogLikelihood(data, at + step, phi) -
      2 * restrictedLogLikelihood(data, at, phi) +
      restrictedLogLikelihood(data, at - step, phi)) /
    (step * step);
  return curvature < 0 ? 1 / Math.sqrt(-curvature) : Number.POSITIVE_INFINITY;
}
