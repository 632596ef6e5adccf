// The spread a github-action-benchmark entry states in its `range`, as a relative SD of
// its value. The action writes it per tool (src/extract.ts of benchmark-action/
// github-action-benchmark): cargo's "± 316" or "+/- 1,234" (libtest's deviation, max −
// min of the iterations, in the value's unit), benchmark.js's "±1.23%" (a relative margin
// of error), pytest's "stddev: 0.00012" (in seconds, beside a value in iter/sec), Catch2's
// and Google Benchmark's "± 12.3". Within one run, it is no measure of the noise between
// runs: on 45 real histories cargo's range was about the commit-to-commit noise (median
// ratio 0.92), benchmark.js's 9 times and pytest's 2.5 times smaller.

import { unitScale } from './units.js';

/** A number as the tools print it: "1,234.5", "316". */
const NUMBER = '([0-9][0-9,]*(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)';
const PLUS_MINUS = new RegExp(`^(?:±|\\+/-|\\+-)\\s*${NUMBER}\\s*(%?)$`);
const STDDEV = new RegExp(`^stddev:\\s*${NUMBER}$`, 'i');

/**
 * The largest relative SD taken as stated: beyond it a range is more likely in another
 * unit than its value (Catch2 prints a mean in µs beside an SD in ns, and the action drops
 * the SD's unit) than noise anyone would gate on.
 */
export const MAX_STATED_SPREAD = 0.5;

/** The relative SD `range` states for `value`; undefined for a form it does not know. */
export function statedSpread(range: unknown, value: number, unit: string): number | undefined {
  if (typeof range !== 'string' || !(value > 0)) return undefined;
  const text = range.trim();
  const plusMinus = PLUS_MINUS.exec(text);
  if (plusMinus) {
    const amount = Number(plusMinus[1]!.replace(/,/g, ''));
    return positive(plusMinus[2] === '%' ? amount / 100 : amount / value);
  }
  const stddev = STDDEV.exec(text);
  if (!stddev) return undefined;
  const seconds = Number(stddev[1]!.replace(/,/g, ''));
  const scale = unitScale(unit);
  // A rate per time (iter/sec): the SD of the time of one iteration over its mean, 1/rate.
  if (scale?.kind.startsWith('count:') && scale.kind.endsWith('/time')) {
    return positive(seconds * value * scale.size);
  }
  if (scale?.kind === 'time') return positive(seconds / (value * scale.size));
  return undefined;
}

function positive(spread: number): number | undefined {
  return Number.isFinite(spread) && spread > 0 && spread <= MAX_STATED_SPREAD ? spread : undefined;
}
