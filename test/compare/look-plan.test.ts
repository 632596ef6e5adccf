// The first look plans the looks of the confirmation runs (sequential.ts: planLooks): when
// no run of the current day could narrow the test enough to pay for the budget the looks
// spend (day-to-day drift), one look with the whole budget, never a stricter one.
import { describe, expect, it } from 'vitest';
import type { FamilyMember } from '../../src/compare/family.js';
import { familyMembers, judgeResults } from '../../src/compare/judge.js';
import { familyLevel } from '../../src/compare/family.js';
import {
  correlatedLooks,
  lookOptions,
  metricsNeedMoreRuns,
  planLooks,
  runsCanPayOff,
  sequentialPlan,
  type LookPlan,
} from '../../src/compare/sequential.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { studentTQuantile } from '../../src/stats/distributions.js';
import { sidakLevel } from '../../src/stats/multiplicity.js';
import type { LogSpread } from '../../src/stats/spread.js';
import { lastLookLevel } from '../../src/stats/group-sequential.js';
import { normal, seededRandom, type Random } from '../../src/stats/rng.js';

const BUDGET = 0.005;
const THRESHOLDS = { latency_p50: 0.05 };

describe('whether confirmation runs can pay off for a metric', () => {
  // A last look of 10 runs at half the budget: 0.25% against 0.5% for one look.
  const whole = 0.005;
  const last = 0.0025;

  it('they can when the current runs make most of the variance (no drift)', () => {
    // Pooled: σ² 0.0009 (3% run CV), 3 current runs against 15, 16 df.
    const spread: LogSpread = {
      se: Math.sqrt(0.0009 * (1 / 3 + 1 / 15)),
      df: 16,
      perRun: 0.0009,
      runs: 3,
    };
    // By hand: t(0.9975, 26) √(σ² (1/13 + 1/15)) against t(0.995, 16) √(σ² (1/3 + 1/15)).
    const after = studentTQuantile(1 - last, 26) * Math.sqrt(0.0009 * (1 / 13 + 1 / 15));
    const now = studentTQuantile(1 - whole, 16) * spread.se;
    expect(after).toBeLessThan(0.7 * now);
    expect(runsCanPayOff(spread, 10, whole, last)).toBe(true);
    // Two runs left gain less than the stricter level costs here.
    const two = studentTQuantile(1 - last, 18) * Math.sqrt(0.0009 * (1 / 5 + 1 / 15));
    expect(two).toBeGreaterThan(0.85 * now);
  });

  it('they cannot when the day-to-day drift makes most of it', () => {
    // τ² part 0.0005 (2.2% a day, 18 df), σ² 0.0002 within days (60 df), 3 current runs.
    const dayPart = 0.0005;
    const perRun = 0.0002;
    const runPart = perRun * (1 / 3 + 1 / 15);
    const variance = dayPart + runPart;
    const spread: LogSpread = {
      se: Math.sqrt(variance),
      df: variance ** 2 / (dayPart ** 2 / 18 + runPart ** 2 / 60),
      perRun,
      runs: 3,
      drift: true,
      dayVariance: 0.0004,
      dayDf: 18,
      dayPart,
      withinDf: 60,
    };
    // Ten more runs: the run part falls to σ² (1/13 + 1/15), Satterthwaite's df with 70
    // within-day df; the last look's test stays wider than one look's at the whole budget.
    const runPartAfter = perRun * (1 / 13 + 1 / 15);
    const varianceAfter = dayPart + runPartAfter;
    const dfAfter = varianceAfter ** 2 / (dayPart ** 2 / 18 + runPartAfter ** 2 / 70);
    const after = studentTQuantile(1 - last, dfAfter) * Math.sqrt(varianceAfter);
    const now = studentTQuantile(1 - whole, spread.df) * spread.se;
    expect(after).toBeGreaterThan(now);
    expect(runsCanPayOff(spread, 10, whole, last)).toBe(false);
    // With the same level on both, ten runs would narrow it a little: it is the level.
    expect(runsCanPayOff(spread, 10, whole, whole)).toBe(true);
  });
});

/** Runs of one day: a shared day offset, then each run's own noise (log values). */
function day(random: Random, runs: number, daySd: number, runSd: number, shift = 0): number[] {
  const offset = daySd * normal(random);
  return Array.from({ length: runs }, () => shift + offset + runSd * normal(random));
}

const p50 = (logs: number[], extra: Partial<Metric> = {}): Metric => ({
  id: 'latency_p50',
  unit: 'ms',
  direction: 'lower-is-better',
  values: logs.map((l) => 100 * Math.exp(l)),
  ...extra,
});

const result = (metrics: Metric[]): BenchmarkResult => ({
  name: 'b',
  format: 'offline-benchmark',
  runs: [],
  metrics,
});

/** A baseline of 5 records of 3 runs, and 15 older records for the drift only. */
function storedBaseline(random: Random, daySd: number, runSd: number): Metric {
  const window = Array.from({ length: 5 }, () => day(random, 3, daySd, runSd));
  const older = Array.from({ length: 15 }, () => day(random, 3, daySd, runSd));
  return p50(window.flat(), {
    records: window.map((r) => r.length),
    olderRecords: older.map((r) => r.map((l) => 100 * Math.exp(l))),
  });
}

const member = (current: Metric[], baseline: Metric[]): FamilyMember => ({
  current: result(current),
  baseline: result(baseline),
  thresholds: { ...THRESHOLDS, mfu: 0.1 },
});

describe('what each look judges with', () => {
  it("is its own part of the budget, the runs still to come, and the last look's part", () => {
    // The looks before the last hold the tail metrics beside the favoured one (holdTailMetrics).
    const plan: LookPlan = { schedule: [0, 2, 5, 10], budgets: [0.001, 0.001, 0.001, 0.003] };
    expect(lookOptions(plan, 0)).toEqual({
      falseAlarmRate: 0.001,
      moreRuns: 10,
      lastLookRate: 0.003,
      holdTailMetrics: true,
    });
    expect(lookOptions(plan, 2)).toEqual({
      falseAlarmRate: 0.001,
      moreRuns: 5,
      lastLookRate: 0.003,
      holdTailMetrics: true,
    });
    expect(lookOptions(plan, 3)).toEqual({
      falseAlarmRate: 0.003,
      moreRuns: 0,
      lastLookRate: 0.003,
    });
  });
});

describe('the plan of the looks', () => {
  it('is one look at the whole budget when the records drift by more than the runs can average away', () => {
    const random = seededRandom('plan drift');
    const baseline = storedBaseline(random, 0.02, 0.015);
    const current = day(random, 3, 0.02, 0.015);
    const plan = planLooks([member([p50(current)], [baseline])], BUDGET, 10);
    expect(plan).toEqual({ schedule: [0], budgets: [BUDGET] });
  });

  it('is the sequential looks when the records agree (no drift: runs settle it)', () => {
    const random = seededRandom('plan steady');
    const baseline = storedBaseline(random, 0, 0.03);
    const current = day(random, 3, 0, 0.03);
    const plan = planLooks([member([p50(current)], [baseline])], BUDGET, 10);
    const bonferroni = sequentialPlan(BUDGET, 10);
    expect(plan.schedule).toEqual([0, 2, 5, 10]);
    expect(plan.budgets.slice(0, 3)).toEqual(bonferroni.budgets.slice(0, 3));
    // The last look gets what the looks' correlation leaves: one metric (Šidák's level is
    // the budget), 3 runs then 5, 8 and 13 against a shared 15: 0.92 of the budget
    // (scipy's multivariate normal: 0.92280), not Bonferroni's 0.8.
    expect(plan.budgets[3]! / BUDGET).toBeCloseTo(0.9228, 3);
    const information = [3, 5, 8, 13].map((n) => 1 / (1 / n + 1 / 15));
    expect(plan.budgets[3]).toBeCloseTo(
      lastLookLevel(information, bonferroni.budgets.slice(0, 3), BUDGET)!,
      12,
    );
    expect(planLooks([member([p50(current)], [baseline])], BUDGET, 0)).toEqual({
      schedule: [0],
      budgets: [BUDGET],
    });
  });

  it('depends on the spreads alone, never on the change seen', () => {
    const random = seededRandom('plan shift');
    let single = 0;
    for (let i = 0; i < 40; i += 1) {
      // Drift smaller than the runs' noise (0.6% a day, 1.5% a run): some pull requests
      // plan one look, most plan four.
      const baseline = storedBaseline(random, 0.006, 0.015);
      const current = day(random, 3, 0.006, 0.015);
      const planOf = (shift: number) =>
        planLooks([member([p50(current.map((l) => l + shift))], [baseline])], BUDGET, 10);
      const plan = planOf(0);
      if (plan.schedule.length === 1) single += 1;
      for (const shift of [-0.1, -0.03, 0.03, 0.1, 0.3]) {
        const shifted = planOf(shift);
        expect(shifted.schedule).toEqual(plan.schedule);
        // The last look's part is computed from the spreads: equal but for rounding.
        shifted.budgets.forEach((b, k) => expect(b / plan.budgets[k]!).toBeCloseTo(1, 10));
      }
    }
    expect(single).toBeGreaterThan(0);
    expect(single).toBeLessThan(40);
  });

  it('judges whether runs pay off for a last look at half the budget: taken just inside, not just outside', () => {
    // Pins PAY_OFF_SHARE: the plan flips where a last look at half the budget ties one look now.
    // One confirmation run (two looks), no drift: pooled t tests, σ cancels. By hand in
    // scipy (stats.t.isf): 3 runs against 15, t(0.995, 16) √(1/3 + 1/15) = 2.9208 × 0.6325
    // = 1.8473 now; the last look, 4 against 15 at 0.25%, t(0.9975, 17) √(1/4 + 1/15) =
    // 1.8134, 1.8% narrower: the looks pay (at 0.2%, 1.8716: 1.3% wider, one look).
    // 4 runs against 15: 1.6309 now, 1.6507 at 0.25% with 5 runs, 1.2% wider: one look (at
    // 0.3%, 1.6078: 1.4% narrower, the looks).
    const logs = (n: number) =>
      Array.from({ length: n }, (_, i) => ((i - (n - 1) / 2) * 0.02) / Math.sqrt(n));
    const planFor = (runs: number) =>
      planLooks([member([p50(logs(runs))], [p50(logs(15))])], BUDGET, 1);
    expect(planFor(3).schedule).toEqual([0, 1]);
    expect(planFor(4)).toEqual({ schedule: [0], budgets: [BUDGET] });
  });

  it('leaves out MFU, which no confirmation run measures', () => {
    const random = seededRandom('plan mfu');
    const baseline = storedBaseline(random, 0.02, 0.015);
    const current = day(random, 3, 0.02, 0.015);
    // One profiled run against 15: more clean runs would seem to narrow its interval.
    const mfu = (values: number[]): Metric => ({
      id: 'mfu',
      unit: '%',
      direction: 'higher-is-better',
      values,
    });
    const mfus = Array.from({ length: 15 }, () => 40 * Math.exp(0.03 * normal(random)));
    const plan = planLooks([member([p50(current), mfu([39])], [baseline, mfu(mfus)])], BUDGET, 10);
    expect(plan.schedule).toEqual([0]);
  });
});

describe("the last look's part of the budget", () => {
  const plan = sequentialPlan(BUDGET, 10);
  const early = plan.budgets.slice(0, 3);
  // Pooled, 3 current runs against 15; and Welch's with a quiet baseline (its share 1%):
  // the looks of the second are less alike, so less is left for its last look.
  const pooled: LogSpread = {
    se: Math.sqrt(0.0025 * (1 / 3 + 1 / 15)),
    df: 16,
    perRun: 0.0025,
    runs: 3,
  };
  const quietBaseline: LogSpread = {
    se: Math.sqrt(0.0025 / 3 + 0.0000025),
    df: 2.1,
    perRun: 0.0025,
    runs: 3,
  };
  const informationOf = (baselineShare: number) =>
    [3, 5, 8, 13].map((n) => 1 / (0.0025 / n + baselineShare));

  it("is Bonferroni's at least, and the least any metric's looks leave", () => {
    const one = correlatedLooks(plan, [pooled], 1);
    expect(one.schedule).toEqual(plan.schedule);
    expect(one.budgets.slice(0, 3)).toEqual(early);
    expect(one.budgets[3]).toBeCloseTo(
      lastLookLevel(informationOf(0.0025 / 15), early, BUDGET)!,
      12,
    );
    const quiet = lastLookLevel(informationOf(0.0000025), early, BUDGET)!;
    expect(quiet).toBeLessThan(one.budgets[3]!);
    expect(quiet).toBeGreaterThan(plan.budgets[3]!);
    for (const order of [
      [pooled, quietBaseline],
      [quietBaseline, pooled],
    ]) {
      expect(correlatedLooks(plan, order, 1).budgets[3]).toBeCloseTo(quiet, 12);
    }
    // A request bootstrap (no spread to project) keeps Bonferroni's split.
    expect(correlatedLooks(plan, [pooled, undefined], 1)).toEqual(plan);
    // So do no spread at all, and one that more runs would not narrow (no run-to-run part:
    // every look alike, their correlation 1, where the recursion has no answer).
    expect(correlatedLooks(plan, [], 1)).toEqual(plan);
    expect(correlatedLooks(plan, [{ se: 0.01, df: 10 }], 1)).toEqual(plan);
    expect(correlatedLooks(plan, [pooled, { se: 0.01, df: 10 }], 1)).toEqual(plan);
  });

  it("is the family's part for the per-metric level the looks' correlation allows (Šidák's, inverted)", () => {
    // Three effective tests: each metric at the Šidák level of each look's part.
    const three = correlatedLooks(plan, [pooled], 3);
    const perMetric = lastLookLevel(
      informationOf(0.0025 / 15),
      early.map((b) => sidakLevel(b, 3)),
      sidakLevel(BUDGET, 3),
    )!;
    expect(sidakLevel(three.budgets[3]!, 3) / perMetric).toBeCloseTo(1, 9);
    expect(three.budgets[3]).toBeGreaterThan(plan.budgets[3]!);
    expect(three.budgets[3]).toBeLessThan(BUDGET);
  });
});

describe('the family that shares the budget', () => {
  it('counts the metrics the built-in thresholds gate when the config sets none', () => {
    const random = seededRandom('family');
    const runs = (n: number) => Array.from({ length: n }, () => 0.02 * normal(random));
    const metric = (id: string, logs: number[]): Metric => ({ ...p50(logs), id });
    const side = (n: number) =>
      result(['latency_p50', 'latency_p95', 'latency_p99'].map((id) => metric(id, runs(n))));
    const baseline = { source: 'b.json', benchmarks: [side(15)] };
    const [member] = familyMembers([side(3)], baseline, () => ({}));
    expect(member!.thresholds).toMatchObject({ latency_p50: 0.05, latency_p95: 0.1 });
    // Three unrelated metrics: about three tests, each stricter than the whole budget.
    const family = familyLevel([member!], BUDGET);
    expect(family.metrics).toBe(3);
    expect(family.level).toBeLessThan(BUDGET / 2);
  });
});

describe('with day-to-day drift the action detects as much as one look does', () => {
  /**
   * Seeded pull requests: 20 stored records on their days (±2%), runs ±1.5%, the pull
   * request on its own day, every run `slowdown` slower. The action's looks as
   * src/pipeline.ts takes them, with the plan given; `compare`: one look, whole budget.
   */
  function detections(plan: (m: FamilyMember[]) => LookPlan, pairs: number, slowdown: number) {
    const random = seededRandom(`drift pairs ${slowdown}`);
    let compare = 0;
    let action = 0;
    let extraRuns = 0;
    for (let i = 0; i < pairs; i += 1) {
      const baseline = {
        source: 'stored',
        benchmarks: [result([storedBaseline(random, 0.02, 0.015)])],
      };
      const runs = day(random, 13, 0.02, 0.015, Math.log1p(slowdown));
      const judge = (count: number, falseAlarmRate: number, moreRuns: number) =>
        judgeResults([result([p50(runs.slice(0, count))])], baseline, () => THRESHOLDS, {
          confidence: 0.95,
          failOnInconclusive: false,
          falseAlarmRate,
          moreRuns,
        })[0]!;
      if (judge(3, BUDGET, 0).verdict === 'regression') compare += 1;
      const members = [
        {
          current: result([p50(runs.slice(0, 3))]),
          baseline: baseline.benchmarks[0],
          thresholds: THRESHOLDS,
        },
      ];
      const { schedule, budgets } = plan(members);
      const lastExtra = schedule[schedule.length - 1]!;
      let look = judge(3, budgets[0]!, lastExtra);
      for (let k = 1; k < schedule.length && metricsNeedMoreRuns(look.metrics); k += 1) {
        extraRuns += schedule[k]! - schedule[k - 1]!;
        look = judge(3 + schedule[k]!, budgets[k]!, lastExtra - schedule[k]!);
      }
      if (look.verdict === 'regression') action += 1;
    }
    return { compare, action, extraRuns };
  }

  it('fails at least as many 10% slowdowns as compare, where the looks spent on runs that cannot help missed some', () => {
    const planned = detections((m) => planLooks(m, BUDGET, 10), 150, 0.1);
    // Not a formality: 10% is about 4 standard errors of the change here, so some pull
    // requests are not caught at all.
    expect(planned.compare).toBeGreaterThan(60);
    expect(planned.compare).toBeLessThan(150);
    expect(planned.action).toBeGreaterThanOrEqual(planned.compare);
    expect(planned.extraRuns).toBe(0);
    // Every look planned as before: stricter first looks, and runs that cannot make up for it.
    const always = detections(() => sequentialPlan(BUDGET, 10), 150, 0.1);
    expect(always.compare).toBe(planned.compare);
    expect(always.action).toBeLessThan(planned.compare - 5);
  });
});
