// The "best possible" detection bench:accuracy prints (bench/oracle.ts): its critical value
// allows exactly ⌊α n⌋ unchanged pull requests beyond it, its detection on normal statistics
// matches the known power Φ(δ − z(1 − α)), and each statistic reads a slowdown of every
// request time as +ln(1 + s) from the files the gate parses.

import { describe, expect, it } from 'vitest';
import { parseRun } from '../../bench/gate.js';
import {
  criticalValue,
  detections,
  ORACLE_STATISTICS,
  ORACLE_VARIANTS,
  oracleStatistics,
  slowdownStatistic,
  summarizeRun,
  type RunSummary,
} from '../../bench/oracle.js';
import { createRng, type Rng } from '../../bench/random.js';
import { offlineResult } from '../../bench/synthetic.js';
import { normalQuantile } from '../../src/stats/distributions.js';

/** Φ(x), from erfc (Numerical Recipes' Chebyshev fit, |error| < 1.2e-7). */
function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t *
                              (-1.13520398 +
                                t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
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
      window: baseline,
      // Older records of a 25% faster build: a lower baseline when they are counted.
      older: slower(0.8, 0, 15),
    };
    const values = oracleStatistics(draws);
    expect(values).toHaveLength(ORACLE_VARIANTS.length);
    ORACLE_VARIANTS.forEach(({ statistic, runs, baseline: side }, i) => {
      const current = runs === 'first' ? draws.current : [...draws.current, ...draws.confirm];
      const before = side === 'window' ? draws.window : [...draws.window, ...draws.older];
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
