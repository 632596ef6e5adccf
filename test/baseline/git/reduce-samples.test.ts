import { describe, expect, it } from 'vitest';
import { MAX_STORED_SAMPLES, reduceSamples } from '../../../src/baseline/reduce-samples.js';
import { percentile } from '../../../src/stats/percentile.js';
import { rng } from './support.js';

/** Lognormal request latencies (ms) with a heavier tail in a few percent of requests. */
function latencies(n: number, seed: number, median = 307): number[] {
  const random = rng(seed);
  return Array.from({ length: n }, () => {
    const u = Math.max(random(), 1e-12);
    const v = random();
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    const tail = random() < 0.03 ? 1.6 : 1;
    return median * Math.exp(0.156 * normal) * tail;
  });
}

/** Relative tolerance of reduced vs original P50/P95/P99: 0.05%. */
const TOLERANCE = 0.0005;

function change(reduced: number[], original: number[], p: number): number {
  return Math.abs(percentile(reduced, p) / percentile(original, p) - 1);
}

describe('reduceSamples', () => {
  it('keeps P50/P95/P99 of 100,000 samples within 0.05% with 2,000 kept, min and max included', () => {
    const one = latencies(100_000, 7);
    const [reduced] = reduceSamples([one]);
    expect(reduced).toHaveLength(MAX_STORED_SAMPLES);
    for (const p of [50, 95, 99]) expect(change(reduced!, one, p)).toBeLessThan(TOLERANCE);
    expect(reduced![0]).toBe(one.reduce((a, b) => Math.min(a, b)));
    expect(reduced!.at(-1)).toBe(one.reduce((a, b) => Math.max(a, b)));
    expect([...reduced!].sort((a, b) => a - b)).toEqual(reduced);
  });

  it('keeps the pooled percentiles of 3 runs of 100,000 samples, splitting by run size', () => {
    for (const seed of [1, 11, 21]) {
      const runs = [
        latencies(100_000, seed),
        latencies(100_000, seed + 1, 315),
        latencies(50_000, seed + 2, 300),
      ];
      const reduced = reduceSamples(runs);
      const sizes = reduced.map((run) => run.length);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(MAX_STORED_SAMPLES);
      // About 800 / 800 / 400: each kept value stands for the same number of requests.
      sizes.forEach((size, index) => {
        expect(Math.abs(size / ((runs[index]!.length / 250_000) * 2000) - 1)).toBeLessThan(0.1);
      });
      for (const p of [50, 95, 99]) {
        expect(change(reduced.flat(), runs.flat(), p)).toBeLessThan(TOLERANCE);
      }
      // A run's own kept values are a thinning of it in which every request had the same
      // chance: its median holds like that of a sample of that size. (Per-run figures are
      // stored exactly in the metric's values.)
      runs.forEach((run, index) => expect(change(reduced[index]!, run, 50)).toBeLessThan(0.03));
      const all = runs.flat();
      expect(Math.min(...reduced.flat())).toBe(all.reduce((a, b) => Math.min(a, b)));
      expect(Math.max(...reduced.flat())).toBe(all.reduce((a, b) => Math.max(a, b)));
    }
  });

  it('keeps a value of every run, even a tiny one among large ones', () => {
    const reduced = reduceSamples([latencies(100_000, 1), [1_000_000], latencies(100_000, 2)], 100);
    expect(reduced[1]).toEqual([1_000_000]);
    expect(reduced.flat()).toHaveLength(100);
  });

  it('leaves small sets whole (sorted), empty runs empty, and the input unchanged', () => {
    const input = [[3, 1, 2], []];
    expect(reduceSamples(input)).toEqual([[1, 2, 3], []]);
    expect(input).toEqual([[3, 1, 2], []]);
    expect(reduceSamples([[5, 1, 9, 3]], 2)).toEqual([[1, 9]]);
    expect(
      reduceSamples(
        [
          [5, 1],
          [9, 3],
        ],
        2,
      ),
    ).toEqual([[1], [9]]);
    expect(reduceSamples([[5, 1, 9]], 0)).toEqual([[]]);
    expect(() => reduceSamples([[1]], -1)).toThrow(/budget/);
  });
});
