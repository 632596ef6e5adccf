// Skewed runs. A Student-t interval of the difference of mean logs assumes the per-run log
// values are symmetric. The P99 of 50 heavy-tailed requests (nearly their maximum) or a
// throughput that is the mean of a Pareto tail are not: their logs are skewed towards the
// slow side (skewness about 2 in bench:accuracy's heavy-tails). The mean of 3 current runs
// then has a long tail of its own, which the run-to-run variance pooled mostly from 15
// baseline runs does not follow, and the t test of a slowdown at the gate's far-tail level
// (about 0.15% one-sided) fails 2–3 times as often as it says. The second-order
// (Edgeworth / Cornish–Fisher) expansion of the studentized difference gives the shift of
// its quantiles from the skewness of the runs, which the runs themselves estimate.

/** Sample skewness of log values and its standard error under normal runs. */
export interface Skewness {
  /** k3 / k2^(3/2), from residuals within groups. */
  gamma: number;
  /** √(6 / Σ w), w = (m − 1)(m − 2) / m per group of m. */
  se: number;
}

/**
 * The skewness of runs that share one shape but not one mean (each group its own: the
 * current runs, the baseline's runs, older stored records): the third cumulant is the
 * unbiased k3 of each group, m Σe³ / ((m − 1)(m − 2)), weighted by (m − 1)(m − 2) / m (the
 * inverse of its variance under normal runs), over the pooled variance to the power 3/2.
 * Groups of fewer than 3 values say nothing of the skewness. Undefined without any group
 * of 3, or when all the runs of every group agree.
 */
export function pooledSkewness(groups: readonly (readonly number[])[]): Skewness | undefined {
  let squares = 0;
  let squaresDf = 0;
  let cubes = 0;
  let cubesWeight = 0;
  for (const group of groups) {
    const m = group.length;
    if (m < 2) continue;
    const mean = group.reduce((s, v) => s + v, 0) / m;
    for (const v of group) {
      squares += (v - mean) ** 2;
      if (m >= 3) cubes += (v - mean) ** 3;
    }
    squaresDf += m - 1;
    if (m >= 3) cubesWeight += ((m - 1) * (m - 2)) / m;
  }
  if (cubesWeight === 0 || squares === 0) return undefined;
  const variance = squares / squaresDf;
  return { gamma: cubes / cubesWeight / variance ** 1.5, se: Math.sqrt(6 / cubesWeight) };
}

/**
 * The skewness the interval allows for: none unless the runs are clearly skewed either way
 * (beyond CLEAR_SKEW_Z standard errors), and then the estimate shrunk towards zero by one
 * standard error. Symmetric runs show a skewness of ±0.5 by chance (18 runs), which would
 * widen intervals for nothing (about 4 points of detection at 50% in a simulation of
 * normal runs; shrunk, under 1); the heavy-tailed runs' 1.5–2 stays. Beyond one standard
 * error alone, the nearly symmetric mean logs of 50 heavy-tailed requests (skewness 0.04)
 * counted as skewed in about a third of pull requests, and each time lost the older
 * records' lent spread (interval.ts) for a wider t: 3 points of detection (bench:accuracy).
 */
export function cautiousSkewness(skewness: Skewness | undefined): number {
  if (!skewness || !clearlySkewed(skewness, skewness.gamma < 0 ? -1 : 1)) return 0;
  return Math.sign(skewness.gamma) * (Math.abs(skewness.gamma) - skewness.se);
}

/** Standard errors beyond which runs are clearly skewed: normal runs reach it 2.3% of the time. */
export const CLEAR_SKEW_Z = 2;

/**
 * Whether the skewness points to `sign` (+1 a long upper tail of the logs, −1 a long lower
 * one) by more than CLEAR_SKEW_Z standard errors (a one-sided test of normal runs).
 */
export function clearlySkewed(skewness: Skewness | undefined, sign: 1 | -1): boolean {
  return skewness !== undefined && sign * skewness.gamma > CLEAR_SKEW_Z * skewness.se;
}

/** One side of the difference as the spread treats it. */
export interface SkewSide {
  runs: number;
  /** Its run-to-run standard deviation (of log values) in the spread's model. */
  sd: number;
  /** The weight of its sample variance in the squared standard error (0 when it has none). */
  weight: number;
}

/**
 * Standardized terms of the expansion of T = (D − Δ) / Ŝ, D = mean(current) − mean(baseline):
 * `third` = κ3(D) / S³, and `covariance` = Cov(D, Ŝ²) / (2 S³), both for runs of skewness
 * `gamma` (μ3 = gamma sd³ on each side). Then E[T] ≈ −covariance and κ3(T) ≈ third −
 * 6 covariance (the one-sample case gives the textbook −γ/(2√n) and −2γ/√n).
 */
export interface SkewTerms {
  third: number;
  covariance: number;
}

export function skewTerms(gamma: number, current: SkewSide, baseline: SkewSide): SkewTerms {
  const mu3 = (side: SkewSide) => gamma * side.sd ** 3;
  const s2 = current.sd ** 2 / current.runs + baseline.sd ** 2 / baseline.runs;
  if (gamma === 0 || !(s2 > 0)) return { third: 0, covariance: 0 };
  const s3 = s2 ** 1.5;
  // Cov(mean, sample variance) = μ3 / m for one group of m values.
  return {
    third: (mu3(current) / current.runs ** 2 - mu3(baseline) / baseline.runs ** 2) / s3,
    covariance:
      ((current.weight * mu3(current)) / current.runs -
        (baseline.weight * mu3(baseline)) / baseline.runs) /
      (2 * s3),
  };
}

/**
 * Cornish–Fisher: how far T's quantiles lie from a symmetric distribution's at the normal
 * quantile z, the same for both tails: E[T] + κ3(T) (z² − 1) / 6. Positive: both quantiles
 * lie higher (a long upper tail), so the change's interval reaches further down.
 */
export function quantileShift(terms: SkewTerms, z: number): number {
  return -terms.covariance + ((terms.third - 6 * terms.covariance) * (z * z - 1)) / 6;
}
