// The quick accuracy check's bands (bench/acceptance-band.ts): the beta-binomial
// predictive sums to 1, keeps its tails within the level, becomes the binomial band when
// the recorded rate is known exactly, widens with the record's own uncertainty; and the
// bands committed in bench/accuracy-recorded.json are the ones their figures give.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { acceptanceBand, betaBinomialPmf } from '../../bench/acceptance-band.js';
import { logGamma } from '../../src/stats/distributions.js';

function binomialPmf(n: number, p: number): number[] {
  return Array.from({ length: n + 1 }, (_, x) =>
    Math.exp(
      logGamma(n + 1) -
        logGamma(x + 1) -
        logGamma(n - x + 1) +
        x * Math.log(p) +
        (n - x) * Math.log1p(-p),
    ),
  );
}

/** P(X < low) and P(X > high). */
function tails(pmf: number[], low: number, high: number): [number, number] {
  const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);
  return [sum(pmf.slice(0, low)), sum(pmf.slice(high + 1))];
}

describe('the acceptance band of a quick count', () => {
  it('is a distribution: the predictive sums to 1', () => {
    const total = betaBinomialPmf(1200, 115.5, 23885.5).reduce((s, v) => s + v, 0);
    expect(total).toBeCloseTo(1, 10);
  });

  it('keeps each tail within half of 1 − level, and is the tightest such band', () => {
    for (const [count, total, n] of [
      [115, 24000, 1200],
      [672, 1000, 300],
      [979, 1000, 300],
      [15, 6000, 1000],
    ] as const) {
      const pmf = betaBinomialPmf(n, count + 0.5, total - count + 0.5);
      const { low, high } = acceptanceBand(count, total, n, 0.999);
      const [below, above] = tails(pmf, low, high);
      expect(below).toBeLessThanOrEqual(0.0005);
      expect(above).toBeLessThanOrEqual(0.0005);
      // One count tighter on either side would leave more than that outside.
      if (low < n) expect(below + pmf[low]!).toBeGreaterThan(0.0005);
      if (high > 0) expect(above + pmf[high]!).toBeGreaterThan(0.0005);
    }
  });

  it("is the binomial band when the recorded rate is exact, and wider with the record's uncertainty", () => {
    const n = 400;
    const exact = acceptanceBand(5_000_000, 10_000_000, n, 0.999);
    const binomial = binomialPmf(n, 0.5);
    const [below, above] = tails(binomial, exact.low, exact.high);
    expect(below).toBeLessThanOrEqual(0.0005);
    expect(above).toBeLessThanOrEqual(0.0005);
    expect(below + binomial[exact.low]!).toBeGreaterThan(0.0005);
    const rough = acceptanceBand(50, 100, n, 0.999);
    expect(rough.low).toBeLessThan(exact.low);
    expect(rough.high).toBeGreaterThan(exact.high);
  });

  it('rejects counts that are not counts', () => {
    expect(() => acceptanceBand(5, 4, 10, 0.999)).toThrow(/count ≤ total/);
    expect(() => acceptanceBand(1, 4, 0, 0.999)).toThrow(/quick trials/);
  });
});

interface RecordedFile {
  level: number;
  figures: {
    id: string;
    recorded: { rate: number; count: number; total: number };
    quick: { total: number; accept: [number, number] };
  }[];
}

describe('bench/accuracy-recorded.json', () => {
  const file = JSON.parse(
    readFileSync(new URL('../../bench/accuracy-recorded.json', import.meta.url), 'utf8'),
  ) as RecordedFile;

  it.each(file.figures.map((f) => [f.id, f] as const))(
    '%s: its band is the one its recorded count and quick size give',
    (_id, figure) => {
      const { count, total, rate } = figure.recorded;
      expect(rate).toBeCloseTo(count / total, 6);
      const { low, high } = acceptanceBand(count, total, figure.quick.total, file.level);
      expect(figure.quick.accept).toEqual([low, high]);
    },
  );
});
