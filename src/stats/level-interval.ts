// The interval of a level (not of a change): where the typical value of a metric's runs
// lies, a Student-t interval on the runs' logs around their geometric mean, as the gate's
// change intervals treat runs (interval.ts). For a figure shown beside its peers (each
// server setting's capacity), not for a verdict.

import { studentTQuantile } from './distributions.js';
import { meanOf } from './mean.js';
import { sampleVariance } from './spread.js';

/** The interval at `confidence`; null with fewer than two runs or a value that is not > 0. */
export function levelInterval(
  values: readonly number[],
  confidence: number,
): [number, number] | null {
  if (values.length < 2 || !values.every((v) => v > 0 && Number.isFinite(v))) return null;
  const logs = values.map(Math.log);
  const variance = sampleVariance(logs);
  if (variance === undefined) return null;
  const t = studentTQuantile(1 - (1 - confidence) / 2, logs.length - 1);
  const center = meanOf(logs);
  const half = t * Math.sqrt(variance / logs.length);
  return [Math.exp(center - half), Math.exp(center + half)];
}
