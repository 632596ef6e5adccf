// Day-to-day drift learnt from a longer history of stored records than the baseline's
// window (Metric.olderRecords): reference values worked with numpy/scipy, τ² recovered
// from fixed-seed simulations, and a window of agreeing records whose history drifts.
import { describe, expect, it } from 'vitest';
import { withOlderRecords } from '../../src/baseline/older-records.js';
import { mergeByName } from '../../src/baseline/result-files.js';
import type { Metric } from '../../src/model.js';
import { driftSpread } from '../../src/stats/day-drift.js';
import { changeInterval } from '../../src/stats/interval.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import { recordResult } from './record-result.js';

// Five records whose days agree (their F test alone: p 0.59), fifteen older ones on days
// ±3%, and a pull request's three runs; logs, runs ±1.5% (numpy default_rng(14)).
const WINDOW = [
  [0.0104, -0.0147, -0.0236],
  [-0.0439, -0.0053, 0.0187],
  [0.0005, 0.0077, 0.0153],
  [-0.0132, 0.0398, -0.0132],
  [0.0056, 0.0411, -0.0017],
];
const OLDER = [
  [0.0152, 0.0031, -0.0115],
  [-0.0164, -0.0305, -0.0002],
  [0.0096, 0.0228, -0.0067],
  [-0.0395, -0.0683, -0.0433],
  [-0.0066, -0.0359, -0.0146],
  [0.0427, 0.057, 0.0723],
  [0.0167, 0.0224, -0.0112],
  [-0.0042, -0.0018, 0.0091],
  [0.0019, 0.0197, 0.0176],
  [-0.0104, -0.0032, 0.0191],
  [-0.0131, -0.0138, 0.018],
  [0.0216, 0.0138, 0.0189],
  [-0.0559, -0.0578, -0.0567],
  [0.0235, 0.0376, 0.0107],
  [-0.0212, -0.0235, -0.0391],
];
const CURRENT = [0.0838, 0.093, 0.0673];

function metric(logs: number[], extra: Partial<Metric> = {}): Metric {
  return {
    id: 'latency_p50',
    unit: 'ms',
    direction: 'lower-is-better',
    values: logs.map(Math.exp),
    ...extra,
  };
}

const baselineOf = (window: number[][], older?: number[][]) =>
  metric(window.flat(), {
    records: window.map((r) => r.length),
    ...(older ? { olderRecords: older.map((r) => r.map(Math.exp)) } : {}),
  });

describe('the drift spread with older records (numpy/scipy reference)', () => {
  it('finds the drift the window hides, with about 19 degrees of freedom', () => {
    // The window alone: F p 0.59, no drift.
    expect(driftSpread(CURRENT, WINDOW)).toBeUndefined();
    const spread = driftSpread(CURRENT, WINDOW, OLDER)!;
    // scipy: F(19, 63) p 6.4e-8; MSW 2.686e-4; τ² 5.4947e-4 on 18.7 df.
    expect(spread.drift).toBe(true);
    expect(spread.perRun).toBeCloseTo(0.00026859857142857145, 15);
    expect(spread.dayVariance).toBeCloseTo(0.0005494740551378447, 13);
    expect(spread.se).toBeCloseTo(0.027691303594031866, 12);
    expect(spread.df).toBeCloseTo(18.668414510607104, 8);
  });

  it('centres on the window alone: the older records never move the baseline figure', () => {
    const withHistory = changeInterval(metric(CURRENT), baselineOf(WINDOW, OLDER), {
      confidence: 0.95,
      seed: 's',
    });
    const without = changeInterval(metric(CURRENT), baselineOf(WINDOW), {
      confidence: 0.95,
      seed: 's',
    });
    expect(withHistory.change).toBeCloseTo(without.change!, 12);
  });

  it('gives a window of agreeing records whose history drifts a wider interval', () => {
    const options = { confidence: 0.95, seed: 's' };
    const without = changeInterval(metric(CURRENT), baselineOf(WINDOW), options);
    const withHistory = changeInterval(metric(CURRENT), baselineOf(WINDOW, OLDER), options);
    expect(without.drift).toBeUndefined();
    expect(withHistory.drift).toBe(true);
    const width = (ci: [number, number] | null) => ci![1] - ci![0];
    // Pooled over the window: ±2.7%; with the history's day-to-day spread: ±5.6%.
    expect(width(withHistory.ci)).toBeGreaterThan(1.8 * width(without.ci));
    // A change of 8.3% is no longer clear of the 5% threshold...
    expect(withHistory.ci![0]).toBeLessThan(0.05);
    // ...nor is it the drift-free one, which the window alone would call clear of zero.
    expect(without.ci![0]).toBeGreaterThan(0.05);
  });

  it('leaves a history that agrees with its runs to the pooled spread', () => {
    const calm = OLDER.map((record) => record.map((v, i) => 0.01 * (i - 1) + v * 0));
    expect(driftSpread(CURRENT, WINDOW, calm)).toBeUndefined();
  });

  it('learns from older records even when the window is one record', () => {
    const spread = driftSpread(CURRENT, [WINDOW[0]!], OLDER)!;
    expect(spread.drift).toBe(true);
    // One record of 3 runs: its day's drift enters in full, once more for the current day.
    expect(spread.se ** 2).toBeCloseTo(
      2 * spread.dayVariance! + spread.perRun! * (1 / 3 + 1 / 3),
      12,
    );
  });
});

describe('τ² recovered from fixed-seed simulations', () => {
  /** Records of 3 runs on days ±τ, runs ±σ; the pull request on a day of its own. */
  function simulate(records: number, trials: number, tau: number, sigma: number, seed: string) {
    const random = seededRandom(seed);
    const record = () => {
      const day = tau * normal(random);
      return Array.from({ length: 3 }, () => day + sigma * normal(random));
    };
    const estimates: (number | undefined)[] = [];
    for (let i = 0; i < trials; i += 1) {
      const window = Array.from({ length: 5 }, record);
      const older = Array.from({ length: records - 5 }, record);
      estimates.push(driftSpread(record(), window, older)?.dayVariance);
    }
    return estimates;
  }
  const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;

  const missedShare = (estimates: (number | undefined)[]) =>
    estimates.filter((e) => e === undefined).length / estimates.length;
  const found = (estimates: (number | undefined)[]) =>
    estimates.filter((e): e is number => e !== undefined);
  /** Root mean square error relative to the true τ². */
  const relativeError = (values: number[], truth: number) =>
    Math.sqrt(mean(values.map((e) => (e - truth) ** 2))) / truth;

  it('is recovered within 10% from 20 records, and the drift is nearly always seen', () => {
    // τ 2%, σ 1.5% (bench:accuracy's day-drift): τ² = 4e-4. With this seed: 3 of 400
    // missed, mean 4.08e-4, relative error 0.39 (about √(2 / 19) and σ²'s share).
    const estimates = simulate(20, 400, 0.02, 0.015, 'tau 20');
    expect(missedShare(estimates)).toBeLessThan(0.02);
    expect(mean(found(estimates))).toBeGreaterThan(4e-4 * 0.9);
    expect(mean(found(estimates))).toBeLessThan(4e-4 * 1.1);
    expect(relativeError(found(estimates), 4e-4)).toBeLessThan(0.5);
  });

  it('is often missed, and far off, from the window alone', () => {
    // The 5% F test on 4 degrees of freedom misses the drift of the baselines whose days
    // happen to agree (122 of 400 with this seed), and the rest are inflated by it
    // (mean 5.3e-4, relative error 0.89).
    const estimates = simulate(5, 400, 0.02, 0.015, 'tau 5');
    expect(missedShare(estimates)).toBeGreaterThan(0.2);
    expect(relativeError(found(estimates), 4e-4)).toBeGreaterThan(0.7);
  });

  it('stays silent, mostly, where nothing drifts', () => {
    const estimates = simulate(20, 400, 0, 0.015, 'tau 0');
    const seen = estimates.filter((e) => e !== undefined).length / estimates.length;
    // The F test's 1% level with 10 or more records (driftTestLevel), binomial sd 0.5% at
    // 400 trials; 5 of 400 with this seed (at 5%, 4.9% of them: a wide interval each).
    expect(seen).toBeGreaterThan(0.0025);
    expect(seen).toBeLessThan(0.025);
    // The window's 5 records alone see little, so the test stays at 5% with them.
    const window = simulate(5, 400, 0, 0.015, 'tau 0 window');
    const seenByWindow = window.filter((e) => e !== undefined).length / window.length;
    expect(seenByWindow).toBeGreaterThan(0.025);
    expect(seenByWindow).toBeLessThan(0.085);
  });
});

describe('withOlderRecords', () => {
  it('puts each older record’s values on the metric they measured, newest first, and nothing else', () => {
    const [merged] = mergeByName([
      recordResult({ latency_p50: [1, 2, 3], throughput: [4, 5, 6] }),
      recordResult({ latency_p50: [7, 8, 9], throughput: [1, 2, 3] }),
    ]);
    const older = [
      recordResult({ latency_p50: [10, 11] }),
      recordResult({ latency_p50: [], throughput: [12] }),
    ];
    const baseline = withOlderRecords(merged!, older);
    const p50 = baseline.metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.values).toEqual([1, 2, 3, 7, 8, 9]);
    expect(p50.records).toEqual([3, 3]);
    expect(p50.olderRecords).toEqual([[10, 11]]);
    expect(baseline.metrics.find((m) => m.id === 'throughput')!.olderRecords).toEqual([[12]]);
    // Copies: the older record's arrays stay its own.
    p50.olderRecords![0]!.push(99);
    expect(older[0]!.metrics[0]!.values).toEqual([10, 11]);
  });
});
