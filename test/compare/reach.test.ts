// What a metric's noise allows (Comparison.reach): the chance a regression of twice the
// threshold fails the gate with the runs it may take, and the runs that would make it 95%.
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../src/compare/compare.js';
import type { BenchmarkReport, Metric } from '../../src/model.js';
import { reachLine } from '../../src/report/reach-line.js';
import { driftSpread } from '../../src/stats/day-drift.js';
import { logSpread } from '../../src/stats/spread.js';
import { normalUpperTail, studentTCdf } from '../../src/stats/distributions.js';
import { optimisticSpread, runsForPower, tTestPower } from '../../src/stats/power.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

const p50 = (logs: number[]): Metric => ({
  id: 'latency_p50',
  unit: 'ms',
  direction: 'lower-is-better',
  values: logs.map((l) => 100 * Math.exp(l)),
});

describe('the power of the t test', () => {
  it('is the normal one for many degrees of freedom: Φ(effect / se − z)', () => {
    // effect 3 SE at 2.5%: 1 − Φ(1.96 − 3) = 0.8508.
    expect(tTestPower(0.03, { se: 0.01, df: 1e6 }, 0.025)).toBeCloseTo(
      normalUpperTail(1.959963985 - 3),
      3,
    );
    // The threshold binds when it lies beyond the test's critical value.
    expect(tTestPower(0.03, { se: 0.01, df: 1e6 }, 0.025, 0.025)).toBeCloseTo(
      normalUpperTail(2.5 - 3),
      3,
    );
  });

  it("is the noncentral t's upper tail, at 2 degrees of freedom as at 60", () => {
    // numpy, 4,000,000 draws (seed 1): z = standard_normal, v = chisquare(df);
    // mean((z + δ) / sqrt(v / df) > c) — SE of each under 0.00022.
    const cases: [number, number, number, number][] = [
      [2, 6.07, 14.089, 0.17228],
      [16, 5.0, 3.25, 0.94052],
      [4, 3.0, 4.6, 0.24627],
      [60, 3.0, 2.0, 0.83951],
    ];
    for (const [df, delta, critical, numpy] of cases) {
      const level = 1 - studentTCdf(critical, df);
      expect(tTestPower(delta * 0.01, { se: 0.01, df }, level), `df ${df}`).toBeCloseTo(numpy, 2);
    }
  });

  it('matches what the rule does on simulated runs, within 3 points', () => {
    // 3 current runs against 15, run SD 5% (log), every current run 10% slower, the
    // gate's test at 0.5% and a 5% threshold, 4,000 draws with a fixed seed.
    const random = seededRandom('reach');
    const level = 0.005;
    let fails = 0;
    let stated = 0;
    const draws = 4000;
    for (let i = 0; i < draws; i += 1) {
      const current = Array.from({ length: 3 }, () => Math.log(1.1) + 0.05 * normal(random));
      const baseline = Array.from({ length: 15 }, () => 0.05 * normal(random));
      const c = compareMetric(p50(current), p50(baseline), 0.05, {
        confidence: 0.95,
        seed: 's',
        testLevel: level,
      });
      if (c.verdict === 'regression') fails += 1;
      const spread = logSpread(current, baseline)!;
      stated += tTestPower(Math.log(1.1), spread, level, Math.log(1.05));
    }
    // The power of the true spread, and the mean of what each pull request states.
    const truth = tTestPower(
      Math.log(1.1),
      { se: 0.05 * Math.sqrt(1 / 3 + 1 / 15), df: 16 },
      level,
      Math.log(1.05),
    );
    expect(Math.abs(fails / draws - truth)).toBeLessThan(0.03);
    expect(Math.abs(stated / draws - fails / draws)).toBeLessThan(0.05);
  });
});

describe("the low end of the spread's own uncertainty", () => {
  it('scales the standard error by √(df / χ²(0.9; df)), every part of the variance alike', () => {
    // scipy.stats.chi2.ppf(0.9, 16) = 23.5418: √(16 / 23.5418) = 0.82441.
    const spread = { se: 0.02, df: 16, perRun: 0.0009, runs: 3, dayPart: 0.0001 };
    const low = optimisticSpread(spread);
    expect(low.se / spread.se).toBeCloseTo(0.82441, 3);
    expect(low.perRun! / spread.perRun).toBeCloseTo(0.82441 ** 2, 3);
    expect(low.dayPart! / spread.dayPart).toBeCloseTo(0.82441 ** 2, 3);
  });

  it('keeps quiet a metric whose point estimate falls short but whose spread may well not', () => {
    // 3 runs against 15 whose power at the point estimate is between 80% and 95%, and
    // above 95% at the low end of the spread's 90% bound: no line.
    const scale = (k: number) => ({
      current: [0.04, -0.04, 0].map((v) => v * k),
      baseline: Array.from({ length: 15 }, (_, i) => (i - 7) * 0.012 * k),
    });
    const powerOf = (k: number, optimistic: boolean) => {
      const { current, baseline } = scale(k);
      const spread = logSpread(current, baseline)!;
      return tTestPower(
        Math.log(1.1),
        optimistic ? optimisticSpread(spread) : spread,
        0.005,
        Math.log(1.05),
      );
    };
    let k = 1;
    while (powerOf(k, false) < 0.9) k /= 1.02;
    expect(powerOf(k, false)).toBeLessThan(0.95);
    expect(powerOf(k, true)).toBeGreaterThan(0.95);
    const { current, baseline } = scale(k);
    const c = compareMetric(p50(current), p50(baseline), 0.05, {
      confidence: 0.95,
      seed: 's',
      testLevel: 0.005,
    });
    expect(c.reach).toBeUndefined();
  });
});

describe('the runs that would reach 95%', () => {
  const spread = logSpread(
    [0.04, -0.04, 0],
    Array.from({ length: 15 }, (_, i) => (i - 7) * 0.012),
  )!;

  it('is the fewest current runs whose projected test finds twice the threshold 95% of the time', () => {
    const effect = Math.log(1.1);
    const runs = runsForPower(effect, spread, 0.001, 0.95)!;
    expect(runs).toBeGreaterThan(3);
    const at = (total: number) =>
      tTestPower(
        effect,
        {
          se: Math.sqrt(spread.perRun! * (1 / total + 1 / 15)),
          df: 16 + (total - 3),
        },
        0.001,
      );
    expect(at(runs)).toBeGreaterThanOrEqual(0.95);
    expect(at(runs - 1)).toBeLessThan(0.95);
  });

  it('is out of reach when the days drift more than any run of one day can average away', () => {
    const records = [0, 0.08, -0.08, 0.1, -0.06].map((day) => [day - 0.01, day, day + 0.01]);
    const drift = driftSpread([0.02, 0.03, 0.01], records)!;
    expect(drift.drift).toBe(true);
    expect(runsForPower(Math.log(1.1), drift, 0.001, 0.95)).toBeUndefined();
  });
});

describe('a metric whose noise hides twice its threshold', () => {
  // Run SD about 5.5% (log) on both sides: 3 runs against 15.
  const noisy = {
    current: [0.08, -0.06, 0.01],
    baseline: [
      0.05, -0.07, 0.02, -0.03, 0.06, -0.01, 0.09, -0.08, 0.0, 0.04, -0.05, 0.03, -0.02, 0.07,
      -0.06,
    ],
  };

  it('says how often it is caught and how many runs would catch it 95% of the time', () => {
    const c = compareMetric(p50(noisy.current), p50(noisy.baseline), 0.05, {
      confidence: 0.95,
      seed: 's',
      testLevel: 0.001,
      moreRuns: 2,
    });
    expect(c.reach).toBeDefined();
    expect(c.reach!.runs).toBe(5);
    expect(c.reach!.power).toBeLessThan(0.95);
    expect(c.reach!.runsFor95).toBeGreaterThan(5);
    const quiet = compareMetric(
      p50(noisy.current.map((v) => v / 20)),
      p50(noisy.baseline.map((v) => v / 20)),
      0.05,
      { confidence: 0.95, seed: 's', testLevel: 0.001, moreRuns: 2 },
    );
    expect(quiet.reach).toBeUndefined();
    // Against 6 baseline runs their own noise alone keeps twice the threshold under 95%.
    const few = compareMetric(p50(noisy.current), p50(noisy.baseline.slice(0, 6)), 0.05, {
      confidence: 0.95,
      seed: 's',
      testLevel: 0.001,
    });
    expect(few.reach?.runsFor95).toBeNull();
  });

  it('puts a line in the comment per metric, naming it, the chance and the runs', () => {
    const c = compareMetric(p50(noisy.current), p50(noisy.baseline), 0.05, {
      confidence: 0.95,
      seed: 's',
      testLevel: 0.001,
    });
    const report = { name: 'b', metrics: [c] } as unknown as BenchmarkReport;
    const line = reachLine(report)!;
    const { power, runsFor95 } = c.reach!;
    expect(line).toContain(
      `- \`latency_p50\` (threshold 5%): a 10% regression would fail the gate about ` +
        `${Math.round(power * 100)}% of the time with 3 runs; ${runsFor95} would reach 95%`,
    );
    expect(line).not.toContain('baseline’s own noise');
    // Out of reach: said once, with what would help.
    const outOfReach = { ...c, reach: { ...c.reach!, runsFor95: null } };
    const twice = reachLine({ ...report, metrics: [outOfReach, { ...outOfReach, id: 'x' }] })!;
    expect(twice.match(/no number of current runs would reach 95%/g)).toHaveLength(2);
    expect(twice.match(/baseline’s own noise/g)).toHaveLength(1);
    expect(reachLine({ ...report, metrics: [{ ...c, reach: undefined }] })).toBeUndefined();
  });
});
