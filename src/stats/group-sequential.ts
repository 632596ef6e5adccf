// Looks at accumulating evidence (the confirmation runs, compare/sequential.ts) are tested
// on nested data: each look's current runs include the earlier looks', and every look
// shares the baseline. Their test statistics are then strongly correlated, and the chance
// that any look raises a false alarm is well below the sum of their levels (Bonferroni's
// bound, which holds whatever the correlation). This computes that chance for the normal
// limit of the statistics, so that the last look may spend what Bonferroni's bound leaves
// unused.
//
// Model (the canonical one of group-sequential tests, Jennison and Turnbull, 2000, ch. 3):
// look k estimates the change with variance V_k, its information is t_k = 1 / V_k, and its
// statistic is Z_k = S(t_k) / √t_k for one standard Brownian motion S. Then
// corr(Z_j, Z_k) = √(t_j / t_k) = √(V_k / V_j): for more current runs n against a shared
// baseline of M runs, √((1/n_k + 1/M) / (1/n_j + 1/M)), at least the √(n_j / n_k) of the
// current runs alone. The chance that any Z_k exceeds its bound is integrated numerically
// (Armitage, McPherson and Rowe's recursion over the density of S below the bounds).

import { normalQuantile, normalUpperTail } from './distributions.js';

/** Grid steps per standard deviation of the smallest increment between two looks. */
const STEPS_PER_SD = 6;
/** More grid points than this: looks so alike the recursion is not worth it (undefined). */
const MAX_POINTS = 4000;
/** Where the density of S(t) is cut below: 8.5 standard deviations (mass < 1e-17). */
const LOW_SDS = 8.5;

/** One look's sub-density of S(t) below its bound, on an even number of Simpson steps. */
interface Density {
  low: number;
  step: number;
  values: Float64Array;
}

/**
 * P(Z_k > z(1 − levels[k]) for some k) for looks of increasing `information` (1 / the
 * variance of each look's estimate, any common scale), one-sided levels for each. Undefined
 * when two looks carry almost the same information (correlation near 1: the grid would be
 * too fine); the sum of the levels still bounds it then.
 */
export function crossingProbability(
  information: readonly number[],
  levels: readonly number[],
): number | undefined {
  if (information.length !== levels.length) {
    throw new RangeError('crossingProbability needs a level for every look');
  }
  if (levels.length === 1) return levels[0];
  const recursion = crossings(information, levels.slice(0, -1));
  if (!recursion) return undefined;
  return recursion.early + lastCrossing(recursion, normalQuantile(1 - levels[levels.length - 1]!));
}

/**
 * The largest one-sided level of the last look that keeps the chance of any false alarm
 * across the looks at `total`, the earlier looks at `earlyLevels` (whose sum is below
 * `total`). At least total − Σ earlyLevels (Bonferroni), at most `total`. Undefined where
 * crossingProbability is.
 */
export function lastLookLevel(
  information: readonly number[],
  earlyLevels: readonly number[],
  total: number,
): number | undefined {
  if (information.length !== earlyLevels.length + 1) {
    throw new RangeError('lastLookLevel needs one more look than early levels');
  }
  const bonferroni = total - earlyLevels.reduce((s, l) => s + l, 0);
  if (!(bonferroni > 0)) throw new RangeError('the early looks spend the whole level');
  if (earlyLevels.length === 0) return total;
  const recursion = crossings(information, earlyLevels);
  if (!recursion) return undefined;
  // The last look's crossing falls as its bound rises: bisect the bound between the one
  // of `total` (too loose: it alone spends it) and Bonferroni's (safe).
  let loose = normalQuantile(1 - total);
  let safe = normalQuantile(1 - bonferroni);
  for (let i = 0; i < 60; i += 1) {
    const middle = (loose + safe) / 2;
    if (recursion.early + lastCrossing(recursion, middle) > total) loose = middle;
    else safe = middle;
  }
  return Math.max(bonferroni, normalUpperTail(safe));
}

interface Recursion {
  /** P(some look before the last crosses). */
  early: number;
  /** Density of S at the look before the last, below its bound, for the last look's crossing. */
  density: Density;
  /** Information of the look before the last and of the last. */
  before: number;
  last: number;
}

/** The crossings of the looks before the last (bounds from `levels`), and the density that leads to the last. */
function crossings(
  information: readonly number[],
  levels: readonly number[],
): Recursion | undefined {
  const times = information.map((t) => t / information[0]!);
  for (let k = 1; k < times.length; k += 1) {
    if (!(times[k]! > times[k - 1]!)) return undefined;
  }
  const increments = times.slice(1).map((t, k) => t - times[k]!);
  const step = Math.sqrt(Math.min(1, ...increments)) / STEPS_PER_SD;
  const low = -LOW_SDS * Math.sqrt(times[times.length - 1]!);
  const bounds = levels.map((level, k) => normalQuantile(1 - level) * Math.sqrt(times[k]!));
  if (bounds.some((b) => (b - low) / step > MAX_POINTS)) return undefined;
  let early = levels.length > 0 ? levels[0]! : 0;
  // S(t_1) ~ N(0, t_1 = 1): its density below the first bound.
  let density = gridBelow(low, bounds[0]!, step, (s) => normalDensity(s, 1));
  for (let k = 1; k < levels.length; k += 1) {
    const increment = times[k]! - times[k - 1]!;
    early += integrate(density, (u) => normalUpperTail((bounds[k]! - u) / Math.sqrt(increment)));
    const from = density;
    // The kernel is nil (below e^-40 of its peak) beyond 9 of its standard deviations.
    const reach = 9 * Math.sqrt(increment);
    density = gridBelow(low, bounds[k]!, step, (s) =>
      integrate(from, (u) => normalDensity(s - u, increment), s - reach, s + reach),
    );
  }
  return { early, density, before: times[levels.length - 1]!, last: times[times.length - 1]! };
}

/** P(the last look crosses with the bound z and no earlier look did). */
function lastCrossing(recursion: Recursion, z: number): number {
  const bound = z * Math.sqrt(recursion.last);
  const sd = Math.sqrt(recursion.last - recursion.before);
  return integrate(recursion.density, (u) => normalUpperTail((bound - u) / sd));
}

/** `f` on an even number of equal steps from `low` to exactly `high` (about `step` long). */
function gridBelow(low: number, high: number, step: number, f: (s: number) => number): Density {
  const steps = Math.max(2, 2 * Math.ceil((high - low) / step / 2));
  const h = (high - low) / steps;
  const values = new Float64Array(steps + 1);
  for (let i = 0; i <= steps; i += 1) values[i] = f(low + i * h);
  return { low, step: h, values };
}

/**
 * Simpson's rule of density × g over the density's grid, the terms outside [from, to]
 * left out (where g is nil: each term keeps its own weight).
 */
function integrate(
  density: Density,
  g: (u: number) => number,
  from = -Infinity,
  to = Infinity,
): number {
  const { low, step, values } = density;
  const last = values.length - 1;
  const first = Math.max(0, Math.ceil((from - low) / step));
  const end = Math.min(last, Math.floor((to - low) / step));
  let sum = 0;
  for (let i = first; i <= end; i += 1) {
    const weight = i === 0 || i === last ? 1 : i % 2 === 1 ? 4 : 2;
    sum += weight * values[i]! * g(low + i * step);
  }
  return (sum * step) / 3;
}

function normalDensity(x: number, variance: number): number {
  return Math.exp((-x * x) / (2 * variance)) / Math.sqrt(2 * Math.PI * variance);
}
