// The drift of a gate's nights, fitted across its series.
//
// One series of a few dozen nights cannot tell a slow drift from independent nights: its
// variogram is too noisy, so its own fit says "independent" and every slow wander looks
// like a step. The series of one gate run on the same machine, nights apart alike, so
// they share how their nights drift: phi is fitted to all their variograms at once
// (each series keeps its own tau², its own size of night effect), and only when their
// blocks of nights, taken together, show a drift.

import {
  DRIFT_EVIDENCE,
  driftPValue,
  fitAtPhi,
  leastErrorPhi,
  type NightVariogram,
  type SharedDrift,
} from './night-model.js';
import { bestSharedPhi } from './night-likelihood.js';

/**
 * The phi shared by series of one gate and environment, or undefined where each series
 * should fit its own: fewer than two series with a variogram of two lags or more, or no
 * drift shown by them together.
 */
export function sharedDrift(variograms: readonly NightVariogram[]): SharedDrift | undefined {
  const usable = variograms.filter((v) => v.excess.length > 1);
  if (usable.length < 2) return undefined;
  if (process.env.NOISE_FIT !== 'variogram') {
    if (process.env.FTEST === '1' && driftPValue(usable.map((v) => v.blocks)) >= DRIFT_EVIDENCE)
      return undefined;
    return { phi: process.env.PHI_FIX ? Number(process.env.PHI_FIX) : bestSharedPhi(usable.map((v) => v.data)) };
  }
  if (driftPValue(usable.map((v) => v.blocks)) >= DRIFT_EVIDENCE) return undefined;
  const phi = leastErrorPhi((candidate) =>
    usable.reduce((sum, v) => sum + fitAtPhi(v.excess, candidate).error / scaleOf(v) ** 2, 0),
  );
  return { phi };
}

/**
 * A series' night variance as its far lags see it: errors are taken relative to it, so
 * a series with a large spread does not decide phi for the others.
 */
function scaleOf(variogram: NightVariogram): number {
  const far = variogram.excess[variogram.excess.length - 1]!;
  return Math.max(variogram.runsPart + Math.max(0, far), 1e-12);
}
