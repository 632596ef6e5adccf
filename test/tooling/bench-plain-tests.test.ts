import { describe, expect, it } from 'vitest';
import { createRng } from '../../bench/random.js';
import { lentPooledT, mannWhitneyP } from '../../bench/plain-tests.js';
import type { Metric } from '../../src/model.js';
import { changeInterval } from '../../src/stats/interval.js';

describe("bench:accuracy's Mann–Whitney reference (plain-tests.ts)", () => {
  it('gives the normal approximation of the rank sum, one-sided towards the first sample', () => {
    // U = 9 of 9, mean 4.5, variance 3 · 3 · 7 / 12 = 5.25: z = 4.5 / √5.25 ≈ 1.964.
    expect(mannWhitneyP([4, 5, 6], [1, 2, 3])).toBeCloseTo(0.02477, 4);
    expect(mannWhitneyP([1, 2, 3], [4, 5, 6])).toBeCloseTo(1 - 0.02477, 4);
  });

  it('gives ties their mid-rank and corrects the variance for them', () => {
    expect(mannWhitneyP([2, 2, 2], [2, 2, 2])).toBeNaN();
    // Ranks 1.5 1.5 | 3.5 3.5 5 6 for a = [1, 1], b = [2, 2, 3, 4]: U = 0.
    const p = mannWhitneyP([1, 1], [2, 2, 3, 4]);
    const ties = 2 * (2 ** 3 - 2);
    const variance = ((2 * 4) / 12) * (7 - ties / (6 * 5));
    expect(p).toBeCloseTo(1 - normalCdf(-4 / Math.sqrt(variance)), 3);
  });
});

describe("bench:lent-t's statistic (plain-tests.ts: lentPooledT)", () => {
  // The bench's shape: 3 current runs, a window of 5 records × 3, 15 older records × 3.
  const rng = createRng('lent-pooled-t');
  const runs = (n: number) => Array.from({ length: n }, () => 0.08 * rng.normal());
  const current = runs(3).map((v) => v + 0.05);
  const window = Array.from({ length: 5 }, () => runs(3));
  const older = Array.from({ length: 15 }, () => runs(3));
  const metric = (logs: number[], extra: Partial<Metric> = {}): Metric => ({
    id: 'latency_geomean',
    unit: 'ms',
    direction: 'lower-is-better',
    values: logs.map(Math.exp),
    ...extra,
  });

  it("is the gate's own t statistic where the older records lend their spread", () => {
    const baseline = metric(window.flat(), {
      records: window.map((r) => r.length),
      olderRecords: older.map((r) => r.map(Math.exp)),
    });
    const gate = changeInterval(metric(current), baseline, { confidence: 0.95, seed: 's' });
    // Lent: 2 + 14 of the runs' own degrees of freedom and 3 blocks of 15 runs' 14.
    expect(gate.spread?.df).toBe(58);
    const plain = lentPooledT(current, window.flat(), older, window.length);
    expect(plain.df).toBe(58);
    expect(plain.t).toBeCloseTo(Math.log1p(gate.change!) / gate.spread!.se, 9);
  });
});

/** Φ(z) by the complementary error function's series, enough for 3 decimals. */
function normalCdf(z: number): number {
  let sum = 0;
  let term = z;
  for (let n = 0; n < 60; n += 1) {
    sum += term / (2 * n + 1);
    term *= (-z * z) / 2 / (n + 1);
  }
  return 0.5 + sum / Math.sqrt(2 * Math.PI);
}
