// The confidence level of the intervals: `confidence: 95%`. Written with %, like the
// thresholds, and stored as a fraction (95% → 0.95).

import { LIMITS } from './defaults.js';
import { readPercent } from './percent.js';
import type { PercentResult } from './percent.js';

const { above, below } = LIMITS.confidencePercent;

export const CONFIDENCE_ALLOWED = `allowed: a percentage above ${above}% and below ${below}%, such as 90%, 95%, 99% or 99.9%`;

const BARE_NUMBER =
  'a bare number is not read as a confidence level: write it with %, e.g. 95%; ' +
  CONFIDENCE_ALLOWED;

/** `"95%"` → 0.95. Anything else gets the reason it is not a confidence level. */
export function parseConfidence(value: unknown): PercentResult {
  const read = readPercent(value);
  if (read.kind === 'bare-number') return { ok: false, message: BARE_NUMBER };
  if (read.kind === 'other' || !(read.percent > above && read.percent < below)) {
    return { ok: false, message: CONFIDENCE_ALLOWED };
  }
  // Shifting the decimal point in the text gives the nearest double to the decimal
  // fraction: 99.9% → 0.999, where 99.9 / 100 would give 0.9990000000000001.
  return { ok: true, fraction: Number(`${read.digits}e-2`) };
}
