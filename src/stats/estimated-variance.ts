// A z score whose variance is itself estimated is a t statistic: treated as normal, it
// crosses a threshold more often than the threshold promises, most where the estimate
// rests on few independent values (a few dozen drifting nights).

import { normalQuantile, studentTUpperTail } from './distributions.js';

/**
 * The normal score with the same tail probability as `z` read as a t statistic with `df`
 * degrees of freedom: every threshold made for normal z scores then keeps its rate.
 */
export function normalEquivalent(z: number, df: number): number {
  if (!(df < 1e6)) return z;
  const tail = studentTUpperTail(Math.abs(z), Math.max(1, df));
  if (!(tail > 0)) return z;
  const equivalent = Math.min(Math.abs(z), -normalQuantile(tail));
  return z < 0 ? -equivalent : equivalent;
}

/**
 * Satterthwaite's degrees of freedom of a variance `known + estimated`, where only the
 * second part is uncertain, with standard error `error`.
 */
export function satterthwaiteDf(known: number, estimated: number, error: number): number {
  if (!(error > 0)) return Number.POSITIVE_INFINITY;
  return (2 * (known + estimated) ** 2) / error ** 2;
}
