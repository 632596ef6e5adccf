// The F test that decides between Welch's interval and the pooled one (src/stats/spread.ts):
// two-sided, each variance with its own degrees of freedom, never on too few calm runs.
import { describe, expect, it } from 'vitest';
import { fTestDiffers, variancesDiffer } from '../../src/stats/spread.js';

describe('fTestDiffers', () => {
  // F(10, 10): 3.72 is its 97.5% point, 2.98 its 95% point.
  it('tests the ratio of the larger variance to the smaller against both tails', () => {
    expect(fTestDiffers(7.6, 10, 2, 10, 0.05)).toBe(true); // ratio 3.8
    expect(fTestDiffers(2, 10, 7.6, 10, 0.05)).toBe(true);
    expect(fTestDiffers(7.2, 10, 2, 10, 0.05)).toBe(false); // ratio 3.6
    // Ratio 3.2 lies beyond the 95% point but within the 97.5% one: a one-sided 5% test
    // would call it, the two-sided one does not.
    expect(fTestDiffers(6.4, 10, 2, 10, 0.05)).toBe(false);
    expect(fTestDiffers(6.4, 10, 2, 10, 0.1)).toBe(true);
  });

  it('gives each variance its own degrees of freedom', () => {
    // Ratio 4: within F(30, 5)'s 97.5% point (6.23), beyond F(5, 30)'s (3.03).
    expect(fTestDiffers(4, 30, 1, 5, 0.05)).toBe(false);
    expect(fTestDiffers(1, 5, 4, 30, 0.05)).toBe(false);
    expect(fTestDiffers(4, 5, 1, 30, 0.05)).toBe(true);
    expect(fTestDiffers(1, 30, 4, 5, 0.05)).toBe(true);
  });

  it('calls equal variances alike and a zero beside a spread different', () => {
    expect(fTestDiffers(3, 10, 3, 10, 0.05)).toBe(false);
    expect(fTestDiffers(0, 10, 0, 10, 0.05)).toBe(false);
    expect(fTestDiffers(1, 5, 0, 5, 0.05)).toBe(true);
  });
});

describe('variancesDiffer', () => {
  it('needs six runs on the calmer side before it trusts a difference (at 1%, two-sided)', () => {
    expect(variancesDiffer(100, 10, 1, 5)).toBe(false);
    expect(variancesDiffer(100, 10, 1, 6)).toBe(true);
    expect(variancesDiffer(1, 5, 100, 10)).toBe(false);
    expect(variancesDiffer(1, 6, 100, 10)).toBe(true);
    // F(9, 9) beyond 6.4 has 0.54%, beyond 6.7 0.46%: the 1% level (0.5% a tail) lies
    // between, and moved by a fifth either way it would not.
    expect(variancesDiffer(6.4, 10, 1, 10)).toBe(false);
    expect(variancesDiffer(6.7, 10, 1, 10)).toBe(true);
  });
});
