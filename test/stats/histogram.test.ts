import { describe, expect, it } from 'vitest';
import {
  HISTOGRAM_BUCKETS,
  histogramCdf,
  histogramOf,
  histogramPercentile,
} from '../../src/stats/histogram.js';
import { latencyHistogramsOf } from '../../src/stats/latency-histograms.js';
import { percentile } from '../../src/stats/percentile.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import type { LatencyHistogram } from '../../src/model.js';

/** Lognormal latencies in ms around `medianMs`, seeded. */
function lognormal(count: number, medianMs: number, sigma: number, seed: number): Float64Array {
  const random = seededRandom(`lognormal-${seed}`);
  const values = new Float64Array(count);
  for (let i = 0; i < count; i += 1) values[i] = medianMs * Math.exp(sigma * normal(random));
  return values;
}

/** The width of the bucket holding `value`. */
function bucketAround(histogram: LatencyHistogram, value: number): [number, number] {
  const { edges } = histogram;
  for (let i = 0; i < edges.length - 1; i += 1) {
    if (value >= edges[i]! && (value < edges[i + 1]! || i === edges.length - 2)) {
      return [edges[i]!, edges[i + 1]!];
    }
  }
  throw new Error(`${value} outside the histogram`);
}

describe('histogramOf', () => {
  it('keeps 1M requests in at most 64 buckets and a few kilobytes', () => {
    const samples = lognormal(1_000_000, 120, 0.8, 7);
    const histogram = histogramOf([samples])!;
    expect(histogram.count).toBe(1_000_000);
    expect(histogram.counts.length).toBeLessThanOrEqual(HISTOGRAM_BUCKETS);
    expect(histogram.edges.length).toBe(histogram.counts.length + 1);
    expect(histogram.counts.reduce((a, b) => a + b, 0)).toBe(1_000_000);
    expect(JSON.stringify(histogram).length).toBeLessThan(2_000);
    expect(histogram.min).toBe(samples.reduce((a, b) => Math.min(a, b), Infinity));
    expect(histogram.edges[0]).toBe(histogram.min);
    expect(histogram.edges.at(-1)).toBe(histogram.max);
  });

  it('reads percentiles within the bucket of the exact value, or the one beside it', () => {
    const samples = lognormal(20_000, 95, 1.1, 3);
    const histogram = histogramOf([samples.subarray(0, 5_000), samples.subarray(5_000)])!;
    const sorted = Float64Array.from(samples).sort();
    for (const p of [1, 10, 25, 50, 75, 90, 95, 99, 99.9]) {
      const exact = percentile(sorted, p);
      const estimate = histogramPercentile(histogram, p);
      const [low, high] = bucketAround(histogram, exact);
      const width = high - low;
      expect(Math.abs(estimate - exact), `P${p}: ${estimate} vs ${exact}`).toBeLessThanOrEqual(
        width * 1.15,
      );
    }
    expect(histogramPercentile(histogram, 0)).toBe(sorted[0]);
    expect(histogramPercentile(histogram, 100)).toBe(sorted.at(-1));
  });

  it('buckets are log-spaced: about the same ratio at both ends', () => {
    const histogram = histogramOf([lognormal(5_000, 50, 1, 11)])!;
    const { edges } = histogram;
    const first = edges[2]! / edges[1]!;
    const last = edges.at(-2)! / edges.at(-3)!;
    expect(last / first).toBeGreaterThan(0.98);
    expect(last / first).toBeLessThan(1.02);
  });

  it('puts zeros in a first bucket up to the smallest positive value', () => {
    const histogram = histogramOf([[0, 0, 0, 1, 2, 4, 8, 16]])!;
    expect(histogram.edges.slice(0, 2)).toEqual([0, 1]);
    expect(histogram.counts[0]).toBe(3);
    expect(histogram.count).toBe(8);
    expect(histogramCdf(histogram).at(-1)).toEqual({ value: 16, share: 1 });
  });

  it('is one bucket for one value, and undefined for none', () => {
    expect(histogramOf([[5, 5, 5]])).toEqual({
      count: 3,
      min: 5,
      max: 5,
      edges: [5, 5],
      counts: [3],
    });
    expect(histogramOf([[], []])).toBeUndefined();
  });

  it('its CDF rises from 0 to 1 over the edges', () => {
    const histogram = histogramOf([lognormal(1_000, 30, 0.5, 5)])!;
    const cdf = histogramCdf(histogram);
    expect(cdf[0]!.share).toBe(0);
    expect(cdf.at(-1)!.share).toBe(1);
    for (let i = 1; i < cdf.length; i += 1) {
      expect(cdf[i]!.value).toBeGreaterThan(cdf[i - 1]!.value);
      expect(cdf[i]!.share).toBeGreaterThanOrEqual(cdf[i - 1]!.share);
    }
  });
});

describe('latencyHistogramsOf', () => {
  it('takes TTFT, ITL and E2E latency from the metrics with samples', () => {
    const histograms = latencyHistogramsOf([
      { id: 'throughput', unit: 'requests/s', samples: undefined },
      { id: 'ttft_p50', unit: 'ms', samples: [[10, 20], [30]] },
      { id: 'itl_p99', unit: 'ms', samples: [[1, 2, 3]] },
      { id: 'latency_p50', unit: 'ms', samples: [[100, 200]] },
    ])!;
    expect(histograms.ttft?.count).toBe(3);
    expect(histograms.itl?.count).toBe(3);
    expect(histograms.e2el?.max).toBe(200);
  });

  it('is undefined when no metric has samples', () => {
    expect(latencyHistogramsOf([{ id: 'ttft_p50', unit: 'ms' }])).toBeUndefined();
  });
});
