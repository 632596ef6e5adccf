import { describe, expect, it } from 'vitest';
import { compareMetric, type CompareOptions } from '../../src/compare/compare.js';
import type { Metric } from '../../src/model.js';

const OPTIONS: CompareOptions = { confidence: 0.95, seed: 'rules' };

function throughput(...values: number[]): Metric {
  return { id: 'throughput', unit: 'queries/s', direction: 'higher-is-better', values };
}

describe('verdicts with intervals', () => {
  it('calls a consistent 9% drop over 3 runs a regression, with the interval beside it', () => {
    const c = compareMetric(
      throughput(2.9, 2.91, 2.89),
      throughput(3.2, 3.21, 3.19),
      0.05,
      OPTIONS,
    );
    expect(c.method).toBe('student-t');
    expect(c.verdict).toBe('regression');
    expect(c.ci).not.toBeNull();
    const [low, high] = c.ci!;
    expect(high).toBeLessThan(0);
    expect(low).toBeLessThan(c.change!);
    expect(high).toBeGreaterThan(c.change!);
    expect(c.reason).toMatch(
      /^9\.4% lower \(95% CI \d+\.\d% to \d+\.\d%\), beyond the 5% threshold$/,
    );
  });

  it('is inconclusive when the drop is beyond the threshold but the runs scatter across no change', () => {
    const c = compareMetric(throughput(2.6, 3.3, 3.0), throughput(3.2, 3.25, 3.15), 0.05, OPTIONS);
    expect(c.change!).toBeLessThan(-0.05);
    expect(c.ci![0]).toBeLessThan(0);
    expect(c.ci![1]).toBeGreaterThan(0);
    expect(c.verdict).toBe('inconclusive');
    expect(c.reason).toContain('the interval includes no change: inconclusive');
  });

  it('does not warn about an improvement that might be noise', () => {
    const c = compareMetric(throughput(3.4, 4.1, 3.6), throughput(3.2, 3.25, 3.15), 0.05, OPTIONS);
    expect(c.change!).toBeGreaterThan(0.05);
    expect(c.ci![0]).toBeLessThan(0);
    expect(c.verdict).toBe('unchanged');
  });

  it('calls a clear improvement an improvement', () => {
    const c = compareMetric(
      throughput(3.6, 3.61, 3.59),
      throughput(3.2, 3.21, 3.19),
      0.05,
      OPTIONS,
    );
    expect(c.verdict).toBe('improvement');
    expect(c.reason).toMatch(/^12\.5% higher \(95% CI/);
  });

  it('falls back to the threshold with one run and no samples a side, and says low confidence', () => {
    const c = compareMetric(throughput(2.9), throughput(3.2), 0.05, OPTIONS);
    expect(c.method).toBe('none');
    expect(c.ci).toBeNull();
    expect(c.verdict).toBe('regression');
    expect(c.reason).toContain('low confidence');
  });

  it('borrows the spread of the side with several runs when the other has one', () => {
    const c = compareMetric(throughput(2.9, 2.91, 2.89), throughput(3.2), 0.05, OPTIONS);
    expect(c.method).toBe('student-t');
    expect(c.verdict).toBe('regression');
  });

  it('widens the interval with the confidence level', () => {
    const current = throughput(2.9, 2.95, 2.85);
    const baseline = throughput(3.2, 3.22, 3.18);
    const narrow = compareMetric(current, baseline, 0.05, { ...OPTIONS, confidence: 0.8 });
    const wide = compareMetric(current, baseline, 0.05, { ...OPTIONS, confidence: 0.99 });
    expect(wide.ci![0]).toBeLessThan(narrow.ci![0]);
    expect(wide.ci![1]).toBeGreaterThan(narrow.ci![1]);
    expect(wide.reason).toContain('99% CI');
  });
});

describe('request bootstrap (one run a side with per-request samples)', () => {
  /** Deterministic right-skewed latencies around 300 ms: quantiles of a Rayleigh-like shape. */
  function latencies(count: number, scale: number): number[] {
    return Array.from({ length: count }, (_, i) => {
      const u = (i + 0.5) / count;
      return scale * 300 * Math.exp(0.15 * Math.sqrt(-2 * Math.log(1 - u)) - 0.15);
    });
  }
  function p95(samples: number[], value: number): Metric {
    return {
      id: 'latency_p95',
      unit: 'ms',
      direction: 'lower-is-better',
      values: [value],
      samples: [samples],
      percentile: 95,
    };
  }

  it('finds no change between equal request sets and a change between scaled ones', () => {
    const base = latencies(2000, 1);
    const same = compareMetric(p95(base, 1), p95(base, 1), 0.1, OPTIONS);
    expect(same.method).toBe('request-bootstrap');
    expect(same.ci![0]).toBeLessThan(0);
    expect(same.ci![1]).toBeGreaterThan(0);
    const slower = compareMetric(p95(latencies(2000, 1.2), 1.2), p95(base, 1), 0.1, OPTIONS);
    expect(slower.change).toBeCloseTo(0.2, 6);
    expect(slower.ci![0]).toBeGreaterThan(0.1);
    expect(slower.ci![1]).toBeLessThan(0.3);
    expect(slower.verdict).toBe('regression');
  });

  it('gives the same interval for the same inputs and seed', () => {
    const a = compareMetric(p95(latencies(500, 1.05), 1), p95(latencies(500, 1), 1), 0.1, OPTIONS);
    const b = compareMetric(p95(latencies(500, 1.05), 1), p95(latencies(500, 1), 1), 0.1, OPTIONS);
    expect(a.ci).toEqual(b.ci);
    const other = compareMetric(p95(latencies(500, 1.05), 1), p95(latencies(500, 1), 1), 0.1, {
      ...OPTIONS,
      seed: 'another',
    });
    expect(other.ci).not.toEqual(a.ci);
  });
});
