// The band a quick run's count must fall in, given a rate recorded on a large run
// (accuracy-check.ts, accuracy-recorded.json).
//
// The recorded rate is itself an estimate: `count` of `total`. Its uncertainty is carried
// by Jeffreys' posterior, p ~ Beta(count + ½, total − count + ½); a quick run of n trials
// of an unchanged rule then counts X ~ BetaBinomial(n, count + ½, total − count + ½) (the
// predictive distribution: a binomial of n whose p is as uncertain as the record leaves
// it). The band is that distribution's equal-tailed `level` range: the largest `low` with
// P(X < low) ≤ (1 − level) / 2 and the smallest `high` with P(X > high) ≤ (1 − level) / 2,
// so a fresh sample of an unchanged rule falls outside with probability ≤ 1 − level.

import { logGamma } from '../src/stats/distributions.js';

/** ln B(a, b). */
function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/** P(X = x) for x = 0 … n, X ~ BetaBinomial(n, a, b). */
export function betaBinomialPmf(n: number, a: number, b: number): number[] {
  const base = logBeta(a, b);
  const logChoose = (k: number) => logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
  return Array.from({ length: n + 1 }, (_, x) =>
    Math.exp(logChoose(x) + logBeta(x + a, n - x + b) - base),
  );
}

export interface Band {
  low: number;
  high: number;
}

/**
 * The counts of `n` trials an unchanged rule gives with probability ≥ `level`, from a
 * recorded `count` of `total` (equal tails; see the top of the file).
 */
export function acceptanceBand(count: number, total: number, n: number, level: number): Band {
  if (!(Number.isInteger(count) && Number.isInteger(total) && count >= 0 && count <= total)) {
    throw new Error(`recorded count ${count} of ${total}: whole numbers, count ≤ total`);
  }
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`quick trials ${n}: a whole number ≥ 1`);
  const tail = (1 - level) / 2;
  const pmf = betaBinomialPmf(n, count + 0.5, total - count + 0.5);
  let low = 0;
  let below = 0; // P(X < low)
  while (low < n && below + pmf[low]! <= tail) below += pmf[low++]!;
  let high = n;
  let above = 0; // P(X > high)
  while (high > 0 && above + pmf[high]! <= tail) above += pmf[high--]!;
  return { low, high };
}
