// The SLO's margin at one load, for the boundary search (boundary-search.ts) to interpolate
// on: ≥ 0 exactly when the SLO holds, and for a queue's latency a straight line in the load.
// A latency objective's margin is its headroom ratio, limit / value − 1: with latency
// T0 / (1 − λ / capacity) it falls linearly with λ. A share of requests (attainment) is
// flat at 100% until the objectives start to bite, so it is read as the latency ratio of
// the request at that share instead: with 90% required, the 90th best request's ratio to
// its limits, which is within them exactly when at least 90% of requests are. Pure.

import type { Check } from './crossing.js';

/** A margin is clamped to this, so a latency of 0 does not make the line infinite. */
const MARGIN_CAP = 1e6;

function headroom(ratio: number): number {
  return Number.isNaN(ratio) ? -1 : Math.min(MARGIN_CAP, ratio - 1);
}

/** The smallest headroom ratio of the checks: limit / value − 1 (at most), value / limit − 1 (at least). */
export function sloMargin(checks: readonly Check[]): number {
  const margins = checks.map((check) =>
    headroom(check.holds === 'at-most' ? check.limit / check.value : check.value / check.limit),
  );
  return Math.min(...margins);
}

/**
 * The margin of "at least `attainment` of requests meet their objectives", from each request's
 * worst ratio of value to limit over the per-request objectives (≤ 1: the request met them).
 * The k-th smallest ratio, k = ⌈attainment × n⌉, is ≤ 1 exactly when k requests met them.
 */
export function attainmentMargin(ratios: readonly number[], attainment: number): number {
  if (ratios.length === 0) return -1;
  const sorted = [...ratios].sort((a, b) => a - b);
  // The share's float error (0.9 × 100 = 90.00000000000001) must not ask one request more.
  const needed = Math.max(1, Math.ceil(attainment * sorted.length - 1e-9));
  return headroom(1 / sorted[needed - 1]!);
}
