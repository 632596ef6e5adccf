import { describe, expect, it } from 'vitest';
import { confidencePercent } from '../../src/text/percent.js';

describe('confidencePercent', () => {
  it('never rounds a confidence short of 1 up to 100%', () => {
    expect(confidencePercent(0.99998)).toBe('99.998%');
    expect(confidencePercent(0.99998, 2)).toBe('99.998%');
    expect(confidencePercent(0.9995)).toBe('99.95%');
    expect(confidencePercent(0.999999999)).toBe('> 99.9999%');
  });

  it('never rounds a chance above 0 down to 0%', () => {
    expect(confidencePercent(0.00004)).toBe('0.004%');
    expect(confidencePercent(1e-9)).toBe('< 0.0001%');
  });

  it('keeps plain figures plain', () => {
    expect(confidencePercent(0.95)).toBe('95%');
    expect(confidencePercent(0.9)).toBe('90%');
    expect(confidencePercent(0.9973, 1)).toBe('99.7%');
    expect(confidencePercent(1)).toBe('100%');
    expect(confidencePercent(0)).toBe('0%');
  });
});
