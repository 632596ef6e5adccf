// Changes between groups of runs of one benchmark whose run-to-run spread is pooled: runs
// of different builds on the same machine vary alike (a run is a run, whichever build made
// it), so every group lends its runs to the spread and a group of two runs can be judged.

import { studentTQuantile } from './distributions.js';
import { meanOf } from './mean.js';

export interface PooledNoise {
  /** Pooled variance of ln(value) within groups. */
  variance: number;
  /** Its degrees of freedom: runs − groups. */
  df: number;
}

/** The logs of the positive finite values. */
export function logsOf(values: readonly number[]): number[] {
  return values.filter((v) => Number.isFinite(v) && v > 0).map(Math.log);
}

/** The within-group variance of several groups of log values, pooled. */
export function pooledNoise(groups: readonly (readonly number[])[]): PooledNoise {
  let squares = 0;
  let df = 0;
  for (const group of groups) {
    if (group.length === 0) continue;
    const mean = meanOf(group);
    squares += group.reduce((sum, v) => sum + (v - mean) ** 2, 0);
    df += group.length - 1;
  }
  return { variance: df > 0 ? squares / df : Number.NaN, df };
}

/**
 * exp(mean ln a − mean ln b) − 1 with its Student-t interval under the pooled noise;
 * `ci` is null when the noise has no degrees of freedom.
 */
export function pooledChange(
  a: readonly number[],
  b: readonly number[],
  noise: PooledNoise,
  confidence: number,
): { change: number; ci: [number, number] | null } {
  const center = meanOf(a) - meanOf(b);
  if (noise.df < 1) return { change: Math.expm1(center), ci: null };
  const half =
    studentTQuantile(1 - (1 - confidence) / 2, noise.df) *
    Math.sqrt(noise.variance * (1 / a.length + 1 / b.length));
  return { change: Math.expm1(center), ci: [Math.expm1(center - half), Math.expm1(center + half)] };
}
