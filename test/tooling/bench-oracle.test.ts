// The "best possible" detection bench:accuracy prints (bench/oracle.ts): its critical value
// allows exactly ⌊α n⌋ unchanged pull requests beyond it, its detection on normal statistics
// matches the known power Φ(δ − z(1 − α)), and each statistic reads a slowdown of every
// request time as +ln(1 + s) from the files the gate parses. The learned-noise oracle's
// standard error matches a hand-computed one-way random-effects example, truncates τ² at 0,
// and leaves its t statistic unchanged when every time is scaled.

import { describe, expect, it } from 'vitest';
import { parseRun } from '../../bench/gate.js';
import {
  criticalValue,
  detections,
  LEARNED_RUNS,
  learnedNoiseStatistics,
  learnedStandardError,
  ORACLE_STATISTICS,
  ORACLE_VARIANTS,
  oracleStatistics,
  slowdownStatistic,
  summarizeRun,
  type RunSummary,
} from '../../bench/oracle.js';
import { createRng, type Rng } from '../../bench/random.js';
import { offlineResult } from '../../bench/synthetic.js';
import { normalQuantile, normalUpperTail } from '../../src/stats/distributions.js';

/** Φ(x). */
function normalCdf(x: number): number {
  return 1 - normalUpperTail(x);
}

describe('the oracle critical value', () => {
  it('lets exactly ⌊α n⌋ of the unchanged values lie beyond it', () => {
    // Shuffled, so that a missing sort shows too.
    const rng = createRng('oracle-test/shuffle');
    const values = Array.from({ length: 4000 }, (_, i) => i + 1).sort(() => rng.next() - 0.5);
    for (const [alpha, beyond] of [
      [0.01, 40],
      [0.005, 20],
      [0.05, 200],
      [0.0001, 0],
    ] as const) {
      const critical = criticalValue(values, alpha);
      expect(detections(values, critical)).toBe(beyond);
    }
    expect(criticalValue([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.1)).toBe(9);
  });

  it('refuses an empty A/A sample and a level outside (0, 1)', () => {
    expect(() => criticalValue([], 0.01)).toThrow(/unchanged pull requests/);
    expect(() => criticalValue([1, 2], 0)).toThrow(/α must be in \(0, 1\)/);
    expect(() => criticalValue([1, 2], 1)).toThrow(/α must be in \(0, 1\)/);
  });

  // Statistics N(0, 1) when nothing changed and N(δ, 1) with a shift of δ standard
  // errors: the most powerful test at level α detects Φ(δ − z(1 − α)). With 20,000 A/A
  // values the 99% quantile is known to ±0.03 SE and the detection of 20,000 shifted
  // ones to ±0.4 points (1 SE); 2 points of tolerance leave room for both (fixed seeds).
  it.each([
    [1.5, 0.01],
    [3, 0.01],
    [4, 0.01],
    [3, 0.005],
    [4.25, 0.005],
  ])('detects Φ(δ − z(1 − α)) of shifts of δ = %s SE at α = %s', (delta, alpha) => {
    const draw = (rng: Rng, shift: number) =>
      Array.from({ length: 20_000 }, () => shift + rng.normal());
    const unchanged = draw(createRng(`oracle-test/aa/${delta}/${alpha}`), 0);
    const shifted = draw(createRng(`oracle-test/shifted/${delta}/${alpha}`), delta);
    const detected = detections(shifted, criticalValue(unchanged, alpha)) / shifted.length;
    const expected = normalCdf(delta - normalQuantile(1 - alpha));
    expect(Math.abs(detected - expected)).toBeLessThan(0.02);
    // And the false alarms it learnt from stay at α.
    expect(detections(unchanged, criticalValue(unchanged, alpha)) / unchanged.length).toBe(alpha);
  });
});

/** One run's file as offline_benchmark.py writes it, parsed by the gate. */
function run(times: number[]): RunSummary {
  return summarizeRun(parseRun(JSON.stringify(offlineResult(times))));
}

/** Runs in records (days) of 3, as the gate stores them. */
function records<T>(runs: T[]): T[][] {
  return Array.from({ length: Math.ceil(runs.length / 3) }, (_, i) => runs.slice(3 * i, 3 * i + 3));
}

/** Heavy-tailed request times in seconds: lognormal σ 0.5, some 3× slower. */
function drawTimes(rng: Rng, requests: number): number[] {
  return Array.from(
    { length: requests },
    () => 0.3 * Math.exp(0.5 * rng.normal()) * (rng.next() < 0.1 ? 3 : 1),
  );
}

describe('the oracle statistics', () => {
  const rng = createRng('oracle-test/runs');
  const times = Array.from({ length: 15 }, (_, i) => drawTimes(rng, i % 2 === 0 ? 20 : 21));
  const baseline = times.map(run);

  it.each([0.1, -0.05])(
    'read every request time scaled by 1 + %s as a slowdown of ln(1 + s)',
    (slowdown) => {
      const current = times.map((t) => run(t.map((x) => x * (1 + slowdown))));
      for (const statistic of ORACLE_STATISTICS) {
        expect(slowdownStatistic(statistic, current, baseline), statistic).toBeCloseTo(
          Math.log1p(slowdown),
          9,
        );
      }
    },
  );

  it('see the first look or every run, the window or every stored record, as named', () => {
    const slower = (factor: number, from: number, to: number) =>
      times.slice(from, to).map((t) => run(t.map((x) => x * factor)));
    const draws = {
      current: slower(1.1, 0, 3),
      confirm: slower(1.1, 3, 13),
      window: records(baseline),
      // Older records of a 25% faster build: a lower baseline when they are counted.
      older: records(slower(0.8, 0, 15)),
    };
    const values = oracleStatistics(draws);
    expect(values).toHaveLength(ORACLE_VARIANTS.length);
    ORACLE_VARIANTS.forEach(({ statistic, runs, baseline: side }, i) => {
      const current = runs === 'first' ? draws.current : [...draws.current, ...draws.confirm];
      const before = (side === 'window' ? draws.window : [...draws.window, ...draws.older]).flat();
      expect(values[i], `${statistic} ${runs} ${side}`).toBeCloseTo(
        slowdownStatistic(statistic, current, before),
        12,
      );
      if (side === 'stored') {
        expect(values[i]!).toBeGreaterThan(values[i - 1]! + 0.05);
      }
    });
    // All 13 current runs are the baseline's first 13 runs, 10% slower.
    const all = ORACLE_VARIANTS.findIndex(
      (v) => v.statistic === 'p50 mean log' && v.runs === 'all' && v.baseline === 'window',
    );
    const expected =
      Math.log(1.1) +
      baseline.slice(0, 13).reduce((s, r) => s + r.logP50, 0) / 13 -
      baseline.reduce((s, r) => s + r.logP50, 0) / 15;
    expect(values[all]).toBeCloseTo(expected, 12);
  });

  it('take the middle of an even number of values for the medians', () => {
    // One request a run: its P50 is that request; the medians fall between 1 s and 4 s.
    const current = [run([1]), run([4])];
    const before = [run([1])];
    expect(slowdownStatistic('p50 median log', current, before)).toBeCloseTo(Math.log(2), 12);
    expect(slowdownStatistic('requests median log', current, before)).toBeCloseTo(Math.log(2), 12);
  });

  it('names the file when a run lacks the request times it needs', () => {
    const text = JSON.stringify({ ...offlineResult([0.3, 0.31]), raw_times: undefined });
    expect(() => summarizeRun(parseRun(text))).toThrow(/synthetic\.json: the oracle needs/);
  });
});

/** A run whose log P50 is `logP50` (the learned-noise statistic reads nothing else). */
function p50Run(logP50: number): RunSummary {
  return { logP50, logThroughput: -logP50, logTimes: [logP50] };
}

describe('the learned-noise oracle', () => {
  it('learns SE² = τ² (1 + 1 / window records) + σ² (1 / n + 1 / M), by hand', () => {
    // Window records (days) 1 2 3 | 4 5 6, one older record 7 8 9, current runs 10 12.
    // σ²: squares within every record and the current runs, 2 + 2 + 2 + 2 = 8 over
    // 2 + 2 + 2 + 1 = 7 df. Record means 2, 5, 8 around 5: MSB = 3 (9 + 0 + 9) / 2 = 27;
    // n₀ = (9 − 27 / 9) / 2 = 3; τ² = (27 − 8/7) / 3 = 181/21. Two window records of 3
    // of M = 6 runs: SE² = 181/21 · (1 + 1/2) + 8/7 · (1/2 + 1/6) = 575/42.
    const window = [
      [1, 2, 3],
      [4, 5, 6],
    ];
    const older = [[7, 8, 9]];
    expect(learnedStandardError([10, 12], window, older)).toBeCloseTo(Math.sqrt(575 / 42), 12);
    // The statistic: (11 − 3.5) / SE, whichever current runs it sees.
    const draws = {
      current: [p50Run(10)],
      confirm: [p50Run(12)],
      window: window.map((record) => record.map(p50Run)),
      older: older.map((record) => record.map(p50Run)),
    };
    const [first, all] = LEARNED_RUNS.map((_, i) => learnedNoiseStatistics(draws)[i]!);
    expect(all).toBeCloseTo(7.5 / Math.sqrt(575 / 42), 12);
    // The first look alone: one current run, no σ² from it (squares 6 over 6 df, MSW 1).
    const firstSe = Math.sqrt(((27 - 1) / 3) * 1.5 + 1 * (1 + 1 / 6));
    expect(first).toBeCloseTo((10 - 3.5) / firstSe, 12);
  });

  it('truncates τ² at 0 when the records agree better than their runs', () => {
    // Record means 10 and 11: MSB = 3 (0.25 + 0.25) = 1.5 below MSW = (200 + 200 + 50) / 5
    // = 90, so τ² = 0 (untruncated it would be −29.5 and the error √15.75):
    // SE² = 90 (1/2 + 1/6) = 60.
    const se = learnedStandardError(
      [5, 15],
      [
        [0, 10, 20],
        [1, 11, 21],
      ],
    );
    expect(se).toBeCloseTo(Math.sqrt(60), 12);
  });

  it('is scale-free: every time multiplied by one constant leaves the statistic as it is', () => {
    const rng = createRng('oracle-test/learned-scale');
    // Days ±2% apart, so that τ² is not 0.
    const days = Array.from({ length: 11 }, () => Math.exp(0.02 * rng.normal()));
    const times = (day: number, runs: number) =>
      Array.from({ length: runs }, () => drawTimes(rng, 20).map((t) => t * days[day]!));
    const world = {
      window: Array.from({ length: 5 }, (_, d) => times(d, 3)),
      older: Array.from({ length: 5 }, (_, d) => times(5 + d, 3)),
      current: times(10, 3),
      confirm: times(10, 10),
    };
    const drawsAt = (scale: number) => {
      const runs = (list: number[][]) => list.map((t) => run(t.map((x) => x * scale)));
      return {
        current: runs(world.current),
        confirm: runs(world.confirm),
        window: world.window.map(runs),
        older: world.older.map(runs),
      };
    };
    const values = learnedNoiseStatistics(drawsAt(1));
    expect(values.every(Number.isFinite)).toBe(true);
    const scaled = learnedNoiseStatistics(drawsAt(37.5));
    values.forEach((v, i) => expect(scaled[i], LEARNED_RUNS[i]).toBeCloseTo(v, 9));
  });

  it('refuses a single record or no current run', () => {
    expect(() => learnedStandardError([1], [[1, 2, 3]])).toThrow(/two records/);
    expect(() => learnedStandardError([], [[1, 2], [3]])).toThrow(/current runs/);
  });
});
