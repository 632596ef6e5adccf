import { describe, expect, it } from 'vitest';
import {
  cautiousCorrelation,
  effectiveTests,
  sidakLevel,
  symmetricEigenvalues,
} from '../../src/stats/multiplicity.js';
import { lookBudgets } from '../../src/compare/sequential.js';

describe('effective number of tests (Li and Ji)', () => {
  it('counts unrelated tests fully and identical ones once', () => {
    const identity = [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
    expect(effectiveTests(identity)).toBeCloseTo(3, 9);
    expect(
      effectiveTests([
        [1, 1],
        [1, 1],
      ]),
    ).toBeCloseTo(1, 9);
  });

  it('matches the hand computation for four metrics correlated 0.9', () => {
    const r = Array.from({ length: 4 }, (_, i) =>
      Array.from({ length: 4 }, (__, j) => (i === j ? 1 : 0.9)),
    );
    // Eigenvalues 1 + 3 × 0.9 = 3.7 and 0.1 three times: f = 1.7 + 3 × 0.1 = 2.0.
    const values = symmetricEigenvalues(r).sort((a, b) => a - b);
    expect(values[3]).toBeCloseTo(3.7, 9);
    expect(values[0]).toBeCloseTo(0.1, 9);
    expect(effectiveTests(r)).toBeCloseTo(2.0, 9);
  });

  it('rotates past a zero off the diagonal between equal diagonal entries', () => {
    // Two tests unrelated to each other, each as related to a third: the zero between
    // equal entries has no rotation angle (0 / 0), and is skipped.
    const r = [
      [2, 0, 1],
      [0, 2, 0],
      [1, 0, 2],
    ];
    const values = symmetricEigenvalues(r).sort((a, b) => a - b);
    expect(values[0]).toBeCloseTo(1, 12);
    expect(values[1]).toBeCloseTo(2, 12);
    expect(values[2]).toBeCloseTo(3, 12);
  });
});

describe('Šidák level', () => {
  it('keeps the chance of any false alarm among independent tests at alpha', () => {
    const level = sidakLevel(0.05, 4);
    expect(1 - (1 - level) ** 4).toBeCloseTo(0.05, 12);
    expect(level).toBeCloseTo(0.012741455098566, 12);
    expect(sidakLevel(0.01, 1)).toBe(0.01);
  });
});

describe('cautious correlation', () => {
  it('shrinks towards zero by one standard error on the Fisher z scale', () => {
    const a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const b = [2, 1, 4, 3, 6, 5, 8, 7, 10, 9];
    // Pearson r of these series is 0.9393939…; tanh(atanh(r) − 1/√7).
    const r = 0.9393939393939394;
    expect(cautiousCorrelation(a, b, 10)).toBeCloseTo(
      Math.tanh(Math.atanh(r) - 1 / Math.sqrt(7)),
      12,
    );
    expect(cautiousCorrelation(a, [...b].reverse(), 10)).toBe(0);
    expect(cautiousCorrelation(a, b, 3)).toBe(0);
  });

  it('is 0 for series that do not pair up or do not vary, and below 1 for identical ones', () => {
    const a = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(cautiousCorrelation(a, a.slice(1), 10)).toBe(0);
    expect(cautiousCorrelation(a, Array(8).fill(3), 10)).toBe(0);
    expect(cautiousCorrelation(Array(8).fill(3), a, 10)).toBe(0);
    // r is capped at 0.999999 before Fisher's z, so the one-SE shrink still bites.
    const same = cautiousCorrelation(a, a, 4);
    expect(same).toBeCloseTo(Math.tanh(Math.atanh(0.999999) - 1), 12);
    expect(same).toBeLessThan(1);
  });
});

describe('look budgets of the confirmation runs', () => {
  it('add up to the budget, the last look holding four fifths', () => {
    expect(lookBudgets(0.005, 0)).toEqual([0.005]);
    const budgets = lookBudgets(0.005, 2);
    expect(budgets[0]).toBeCloseTo(0.0005, 15);
    expect(budgets[1]).toBeCloseTo(0.0005, 15);
    expect(budgets[2]).toBeCloseTo(0.004, 15);
    expect(lookBudgets(0.01, 5).reduce((s, b) => s + b, 0)).toBeCloseTo(0.01, 15);
  });
});
