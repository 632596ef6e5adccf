// The larger of two correlated standard normal z scores: its tail, and the threshold that
// keeps it at a given false alarm rate (two looks at overlapping data, one alarm budget).

import { normalQuantile, normalUpperTail } from './distributions.js';

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
    const density = Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
    const f = density * (1 - normalUpperTail((c - rho * x) / spread));
    total += f * (i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2);
  }
  return Math.max(0, 1 - (total * h) / 3);
}
