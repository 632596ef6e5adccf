// The drift of a gate's nights, fitted across its series.
//
// One series of a few dozen nights cannot tell a slow drift from independent nights: its
// variogram is too noisy, so its own fit says "independent" and every slow wander looks
// like a step. The series of one gate run on the same machine, nights apart alike, so
// they share how their nights drift: phi is the one that makes all their nights most
// likely (night-likelihood.ts; each series with its own tau², its own size of night
// effect), and only when their blocks of nights, taken together, show a drift.
//
// Their night effect fitted together at that phi is each series' floor (night-model.ts):
// at a slow drift one series' few dozen nights are two or three independent ones, and
// its own tau² often comes out a fraction of the truth, or 0. A series whose own nights
// reject it (a quiet one beside noisy ones) is floored only to what they allow.

import {
  DRIFT_EVIDENCE,
  driftPValue,
  type NightVariogram,
  type SharedDrift,
} from './night-model.js';
import { bestSharedPhi, bestTau2, type NightData } from './night-likelihood.js';

/**
 * The drift shared by series of one gate and environment, or undefined where each series
 * should fit its own: fewer than two series with a variogram of two lags or more, or no
 * drift shown by them together.
 */
export function sharedDrift(variograms: readonly NightVariogram[]): SharedDrift | undefined {
  const usable = variograms.filter((v) => v.excess.length > 1);
  if (usable.length < 2) return undefined;
  if (driftPValue(usable.map((v) => v.blocks)) >= DRIFT_EVIDENCE) return undefined;
  const data = usable.map((v) => v.data);
  const phi = bestSharedPhi(data);
  return { phi, tau2: bestTau2(sideBySide(data), phi).tau2 };
}

/**
 * Series side by side as one: each segment keeps its own level and the segments are
 * independent, so its likelihood is the sum of theirs (one tau² for them all).
 */
export function sideBySide(series: readonly NightData[]): NightData {
  const mean: number[] = [];
  const white: number[] = [];
  const segments: (readonly [number, number])[] = [];
  for (const data of series) {
    const offset = mean.length;
    for (let i = 0; i < data.mean.length; i += 1) {
      mean.push(data.mean[i]!);
      white.push(data.white[i]!);
    }
    for (const [start, end] of data.segments) segments.push([offset + start, offset + end]);
  }
  return { mean, white, segments };
}
