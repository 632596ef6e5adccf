import { describe, expect, it } from 'vitest';
import { normalQuantile, studentTCdf, studentTQuantile } from '../../src/stats/distributions.js';

describe('studentTQuantile', () => {
  it('matches the closed forms for 1 and 2 degrees of freedom', () => {
    for (const p of [0.6, 0.9, 0.975, 0.995]) {
      expect(studentTQuantile(p, 1)).toBeCloseTo(Math.tan(Math.PI * (p - 0.5)), 8);
      expect(studentTQuantile(p, 2)).toBeCloseTo((2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 8);
    }
  });

  it('matches published table values', () => {
    expect(studentTQuantile(0.975, 5)).toBeCloseTo(2.570582, 5);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228139, 5);
    expect(studentTQuantile(0.975, 30)).toBeCloseTo(2.042272, 5);
    expect(studentTQuantile(0.995, 4)).toBeCloseTo(4.604095, 5);
  });

  it('inverts the CDF for fractional degrees of freedom (Welch)', () => {
    for (const df of [1.3, 2.6, 7.25]) {
      for (const p of [0.025, 0.5, 0.9, 0.975]) {
        expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 9);
      }
    }
  });

  it('approaches the normal quantile for many degrees of freedom', () => {
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(normalQuantile(0.975), 4);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 6);
  });
});
