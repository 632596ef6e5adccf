// The drift of a gate's nights, fitted across its series.
//
// One series of a few dozen nights cannot tell a slow drift from independent nights: its
// variogram is too noisy, so its own fit says "independent" and every slow wander looks
// like a step. The series of one gate run on the same machine, nights apart alike, so
// they share how their nights drift: phi is the one that makes all their nights most
// likely (night-likelihood.ts; each series with its own tau², its own size of night
// effect), and only when their blocks of nights, taken together, show a drift.

import {
  DRIFT_EVIDENCE,
  driftPValue,
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
  if (driftPValue(usable.map((v) => v.blocks)) >= DRIFT_EVIDENCE) return undefined;
  return { phi: bestSharedPhi(usable.map((v) => v.data)) };
}
