// The budget favours latency_geomean (family.ts: focusScales): the geomean's level is
// FOCUS_SHARE of its benchmark's part of the budget, the other gated metrics share the
// rest by their own effective number, so that the parts still add up to the benchmark's
// (a Bonferroni split); and a geomean slowdown that the equal split leaves inconclusive
// fails with the favoured level.
import { describe, expect, it } from 'vitest';
import {
  FOCUS_METRIC,
  FOCUS_SHARE,
  familySize,
  focusScales,
  releasedScales,
  SKEWED_SHARE,
  type FamilyMember,
} from '../../src/compare/family.js';
import { skewedTowardsWorse } from '../../src/stats/interval.js';
import { compareBenchmark } from '../../src/compare/benchmark.js';
import { judgeResults, lookLevels } from '../../src/compare/judge.js';
import { lookOptions, sequentialPlan } from '../../src/compare/sequential.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

const THRESHOLDS = {
  throughput: 0.05,
  latency_p50: 0.05,
  latency_geomean: 0.05,
  latency_p95: 0.1,
  latency_p99: 0.15,
};
const BUDGET = 0.005;

/**
 * Runs whose metrics each have noise of their own, `slower` on every latency: the geomean
 * quietest, as with heavy-tailed requests (bench:accuracy: per-run CV 8% against 15–30%
 * for P95 and P99), scaled down.
 */
const CV: Record<string, number> = {
  throughput: 0.05,
  latency_p50: 0.03,
  latency_geomean: 0.03,
  latency_p95: 0.06,
  latency_p99: 0.1,
};

function side(
  runs: number,
  seed: string,
  slower = 1,
  ids = Object.keys(THRESHOLDS),
): BenchmarkResult {
  const random = seededRandom(seed);
  const metric = (id: string): Metric => {
    const higher = id === 'throughput';
    return {
      id,
      unit: higher ? 'req/s' : 'ms',
      direction: higher ? 'higher-is-better' : 'lower-is-better',
      values: Array.from(
        { length: runs },
        () => 100 * (higher ? 1 / slower : slower) * Math.exp(CV[id]! * normal(random)),
      ),
    };
  };
  return { name: 'bench', format: 'offline-benchmark', runs: [], metrics: ids.map(metric) };
}

const member = (current: BenchmarkResult, baseline: BenchmarkResult): FamilyMember => ({
  current,
  baseline,
  thresholds: THRESHOLDS,
});

describe('focusScales', () => {
  it('gives the geomean FOCUS_SHARE of the benchmark’s part and the others the rest', () => {
    const m = member(side(3, 'now'), side(15, 'before'));
    const scales = focusScales(m);
    const all = familySize([m]).tests;
    expect(all).toBeGreaterThan(3);
    expect(scales.get(FOCUS_METRIC)).toBeCloseTo(FOCUS_SHARE * all, 12);
    const rest = [...scales].filter(([id]) => id !== FOCUS_METRIC);
    expect(rest).toHaveLength(4);
    // Four unrelated metrics count as about four: the rest's scale times their count.
    const restTests = familySize([
      member(
        side(
          3,
          'now',
          1,
          Object.keys(THRESHOLDS).filter((id) => id !== FOCUS_METRIC),
        ),
        side(
          15,
          'before',
          1,
          Object.keys(THRESHOLDS).filter((id) => id !== FOCUS_METRIC),
        ),
      ),
    ]).tests;
    for (const [, scale] of rest) expect(scale * restTests).toBeCloseTo((1 - FOCUS_SHARE) * all, 6);
  });

  it('leaves every metric at the family level without a geomean, or with the geomean alone', () => {
    const noGeomean = Object.keys(THRESHOLDS).filter((id) => id !== FOCUS_METRIC);
    const without = focusScales(member(side(3, 'a', 1, noGeomean), side(15, 'b', 1, noGeomean)));
    expect([...without.values()].every((s) => s === 1)).toBe(true);
    const alone = focusScales(
      member(side(3, 'a', 1, [FOCUS_METRIC]), side(15, 'b', 1, [FOCUS_METRIC])),
    );
    expect(alone.get(FOCUS_METRIC)).toBe(1);
  });

  it('tests the metrics beside the geomean at SKEWED_SHARE of their level when a metric is clearly skewed', () => {
    // The P99 of heavy-tailed requests: log values with an exponential slow tail
    // (skewness 2), the other metrics' runs symmetric.
    const random = seededRandom('skewed p99');
    const tail = (runs: number) =>
      Array.from({ length: runs }, () => 100 * Math.exp(-Math.log(1 - random.next()) / 5));
    const withSkewedP99 = (result: BenchmarkResult): BenchmarkResult => ({
      ...result,
      metrics: result.metrics.map((m) =>
        m.id === 'latency_p99' ? { ...m, values: tail(m.values.length) } : m,
      ),
    });
    const p99 = (m: FamilyMember) =>
      [m.current, m.baseline!].map((r) => r.metrics.find((x) => x.id === 'latency_p99')!);
    const symmetric = member(side(3, 'now'), side(60, 'before'));
    const skewed = member(withSkewedP99(side(3, 'now')), withSkewedP99(side(60, 'before')));
    expect(skewedTowardsWorse(...(p99(skewed) as [Metric, Metric]))).toBe(true);
    expect(skewedTowardsWorse(...(p99(symmetric) as [Metric, Metric]))).toBe(false);
    // Against Holm's released scales (the whole part shared, no cut): the rest's share.
    const shareOf = (m: FamilyMember, id: string) =>
      focusScales(m).get(id)! / releasedScales(m).get(id)!;
    for (const id of ['throughput', 'latency_p50', 'latency_p95', 'latency_p99']) {
      expect(shareOf(symmetric, id)).toBeCloseTo(1 - FOCUS_SHARE, 9);
      expect(shareOf(skewed, id)).toBeCloseTo((1 - FOCUS_SHARE) * SKEWED_SHARE, 9);
      // A quarter of their part at most: at that, their false alarms over 6,000 unchanged
      // heavy-tailed pull requests fell from 13 to 5 (docs/statistics.md).
      expect(shareOf(skewed, id)).toBeLessThanOrEqual(((1 - FOCUS_SHARE) / 4) * (1 + 1e-9));
    }
    // The geomean keeps its share; what the others do not spend stays unspent.
    expect(focusScales(skewed).get(FOCUS_METRIC)).toBeCloseTo(
      FOCUS_SHARE * familySize([skewed]).tests,
      12,
    );
  });

  it('hands the levels to the metrics through lookLevels', () => {
    const m = member(side(3, 'now'), side(15, 'before'));
    const [levels] = lookLevels([m], { falseAlarmRate: BUDGET, lastLookRate: BUDGET / 2 });
    const scale = focusScales(m).get(FOCUS_METRIC)!;
    expect(levels!.metricLevels![FOCUS_METRIC]!.testLevel).toBeCloseTo(
      levels!.testLevel! * scale,
      15,
    );
    expect(levels!.metricLevels![FOCUS_METRIC]!.settleLevel).toBeCloseTo(
      levels!.settleLevel! * scale,
      15,
    );
    // The parts add up to at most the budget (Bonferroni over the metrics' levels, each
    // counted by the effective number of tests it stands for).
    expect(levels!.metricLevels![FOCUS_METRIC]!.testLevel!).toBeLessThan(BUDGET);
  });
});

describe('a slowdown of every latency (power)', () => {
  it('fails more often with the favoured geomean than with every metric at the family level', () => {
    // 200 seeded pull requests, every latency 7% slower, 3 runs against 15:
    // the gate's verdict (judgeResults, the geomean favoured) against the same runs judged
    // with every metric at the equal level of the family.
    let favoured = 0;
    let equal = 0;
    for (let seed = 0; seed < 200; seed += 1) {
      const now = side(3, `now ${seed}`, 1.07);
      const before = side(15, `before ${seed}`);
      const [report] = judgeResults([now], { benchmarks: [before] } as never, () => THRESHOLDS, {
        confidence: 0.95,
        failOnInconclusive: false,
        falseAlarmRate: BUDGET,
      });
      if (report!.verdict === 'regression') favoured += 1;
      const [levels] = lookLevels([member(now, before)], { falseAlarmRate: BUDGET });
      const plain = compareBenchmark(now, before, THRESHOLDS, {
        confidence: 0.95,
        seed: 'bench',
        testLevel: levels!.testLevel!,
      });
      if (plain.verdict === 'regression') equal += 1;
    }
    // 169 against 161 (with the budget split equally, both 161).
    expect(favoured - equal).toBeGreaterThanOrEqual(5);
  });
});

describe('a geomean that fails without levels of its own', () => {
  it('is a regression as compared, alone in its benchmark or without a budget', () => {
    const alone = [FOCUS_METRIC];
    const now = side(3, 'alone now', 1.2, alone);
    const before = side(15, 'alone before', 1, alone);
    for (const falseAlarmRate of [BUDGET, undefined]) {
      const [report] = judgeResults([now], { benchmarks: [before] } as never, () => THRESHOLDS, {
        confidence: 0.95,
        failOnInconclusive: false,
        ...(falseAlarmRate === undefined ? {} : { falseAlarmRate }),
      });
      expect(report!.verdict).toBe('regression');
      expect(report!.metrics.find((m) => m.id === FOCUS_METRIC)?.verdict).toBe('regression');
    }
  });
});

describe("Holm's step after the favoured metric fails", () => {
  const judge = (now: BenchmarkResult, before: BenchmarkResult) =>
    judgeResults([now], { benchmarks: [before] } as never, () => THRESHOLDS, {
      confidence: 0.95,
      failOnInconclusive: false,
      falseAlarmRate: BUDGET,
    })[0]!;

  it('gives the whole part to the other metrics, the geomean keeping its own', () => {
    const m = member(side(3, 'now'), side(15, 'before'));
    const focused = focusScales(m);
    const released = releasedScales(m);
    expect(released.get(FOCUS_METRIC)).toBe(focused.get(FOCUS_METRIC));
    for (const [id, scale] of released) {
      if (id !== FOCUS_METRIC) expect(scale).toBeCloseTo(focused.get(id)! / (1 - FOCUS_SHARE), 9);
    }
  });

  it('names the slowdown on the other metrics once the geomean has failed', () => {
    // Every latency 10% slower, throughput 10% lower: a metric the split left inconclusive
    // is named once the geomean's failure has released its part of the budget.
    let named = 0;
    let namedWithoutStep = 0;
    for (let seed = 0; seed < 100; seed += 1) {
      const now = side(3, `slow ${seed}`, 1.1);
      const before = side(15, `base ${seed}`);
      const report = judge(now, before);
      const geomean = report.metrics.find((m) => m.id === FOCUS_METRIC)!;
      if (geomean.verdict !== 'regression') continue;
      const p50 = report.metrics.find((m) => m.id === 'latency_p50')!;
      if (p50.verdict === 'regression') named += 1;
      const [levels] = lookLevels([member(now, before)], { falseAlarmRate: BUDGET });
      const split = compareBenchmark(now, before, THRESHOLDS, {
        confidence: 0.95,
        seed: 'bench',
        ...levels,
      });
      if (split.metrics.find((m) => m.id === 'latency_p50')!.verdict === 'regression') {
        namedWithoutStep += 1;
      }
    }
    expect(named).toBeGreaterThan(namedWithoutStep);
  });

  it("tests the released metrics at an early look at their own split, the geomean at the look's", () => {
    // The first of four looks: the geomean at a fifth of the budget over three looks, the
    // metrics it releases at half of it over three (RELEASED_LAST_SHARE).
    const look = lookOptions(sequentialPlan(BUDGET, 10), 0);
    expect(look.falseAlarmRate).toBeCloseTo((BUDGET * 0.2) / 3, 15);
    expect(look.releasedRate).toBeCloseTo((BUDGET * 0.5) / 3, 15);
    const judgeAt = (now: BenchmarkResult, before: BenchmarkResult, options: typeof look) =>
      judgeResults([now], { benchmarks: [before] } as never, () => THRESHOLDS, {
        confidence: 0.95,
        failOnInconclusive: false,
        ...options,
      })[0]!;
    const lookAlone = { ...look, releasedRate: undefined };
    let named = 0;
    let namedAtLookPart = 0;
    for (let seed = 0; seed < 100; seed += 1) {
      const now = side(3, `early ${seed}`, 1.1);
      const before = side(15, `early base ${seed}`);
      const withOwn = judgeAt(now, before, look);
      const atLook = judgeAt(now, before, lookAlone);
      const verdictOf = (report: typeof withOwn, id: string) =>
        report.metrics.find((m) => m.id === id)!.verdict;
      // The geomean and the gate decide as the look's split says.
      expect(withOwn.verdict).toBe(atLook.verdict);
      expect(verdictOf(withOwn, FOCUS_METRIC)).toBe(verdictOf(atLook, FOCUS_METRIC));
      if (verdictOf(withOwn, 'latency_p50') === 'regression') named += 1;
      if (verdictOf(atLook, 'latency_p50') === 'regression') namedAtLookPart += 1;
    }
    expect(named).toBeGreaterThan(namedAtLookPart);
  });

  it('leaves the gate verdict of unchanged runs as the split gave it', () => {
    // The step follows a failure only: whether a benchmark fails at all is unchanged.
    for (let seed = 0; seed < 300; seed += 1) {
      const now = side(3, `same ${seed}`);
      const before = side(15, `again ${seed}`);
      const [levels] = lookLevels([member(now, before)], { falseAlarmRate: BUDGET });
      const split = compareBenchmark(now, before, THRESHOLDS, {
        confidence: 0.95,
        seed: 'bench',
        ...levels,
      });
      expect(judge(now, before).verdict === 'regression').toBe(split.verdict === 'regression');
    }
  });
});

describe('early looks hold the tail metrics beside the favoured one', () => {
  const plan = sequentialPlan(BUDGET, 10);
  const judgeAt = (
    now: BenchmarkResult,
    before: BenchmarkResult,
    look: number,
    holdTailMetrics = true,
  ) =>
    judgeResults([now], { benchmarks: [before] } as never, () => THRESHOLDS, {
      confidence: 0.95,
      failOnInconclusive: false,
      ...lookOptions(plan, look),
      ...(holdTailMetrics ? {} : { holdTailMetrics: false }),
    })[0]!;
  /** The current runs with metric `id` alone `factor` slower. */
  const slowerOne = (id: string) => (result: BenchmarkResult, factor: number) => ({
    ...result,
    metrics: result.metrics.map((m) =>
      m.id === id ? { ...m, values: m.values!.map((v) => v * factor) } : m,
    ),
  });
  /** A slowdown of the slowest requests alone. */
  const slowerP99 = slowerOne('latency_p99');
  const p99Of = (report: ReturnType<typeof judgeAt>) =>
    report.metrics.find((m) => m.id === 'latency_p99')!;

  it('marks only the looks before the last holdTailMetrics', () => {
    expect(plan.schedule).toEqual([0, 2, 5, 10]);
    expect(plan.schedule.map((_, look) => lookOptions(plan, look).holdTailMetrics)).toEqual([
      true,
      true,
      true,
      undefined,
    ]);
    expect(lookOptions(sequentialPlan(BUDGET, 0), 0).holdTailMetrics).toBeUndefined();
  });

  it('keeps a clear P99 slowdown open at an early look, for the last look to fail', () => {
    const now = slowerP99(side(3, 'p99 now'), 1.6);
    const before = side(15, 'p99 before');
    const early = judgeAt(now, before, 0);
    expect(p99Of(early).verdict).toBe('inconclusive');
    expect(p99Of(early).worthConfirming).toBe(true);
    expect(p99Of(early).reason).toContain('held for the confirmation runs');
    expect(early.verdict).not.toBe('regression');
    // The same look without the hold, and the last look, fail it.
    expect(p99Of(judgeAt(now, before, 0, false)).verdict).toBe('regression');
    expect(judgeAt(now, before, 3).verdict).toBe('regression');
    // A rate, which adds up every request's time, likewise.
    const slowerRate = slowerOne('throughput')(side(3, 'rate now'), 1 / 1.6);
    const rate = judgeAt(slowerRate, before, 0).metrics.find((m) => m.id === 'throughput')!;
    expect(rate.verdict).toBe('inconclusive');
    expect(rate.worthConfirming).toBe(true);
  });

  it('holds the slowest-request metrics only: a clear P50 or P95 slowdown fails at the first look', () => {
    // They stand further in than one slow request reaches (isTailMetric).
    for (const id of ['latency_p50', 'latency_p95']) {
      const now = slowerOne(id)(side(3, `${id} now`), 1.3);
      const before = side(15, `${id} before`);
      const early = judgeAt(now, before, 0);
      expect(early.metrics.find((m) => m.id === FOCUS_METRIC)!.verdict).not.toBe('regression');
      expect(early.metrics.find((m) => m.id === id)!.verdict).toBe('regression');
      expect(early.verdict).toBe('regression');
    }
  });

  it('releases the held metrics at an early look once the geomean has failed', () => {
    const now = slowerP99(side(3, 'all now', 1.3), 1.3);
    const before = side(15, 'all before');
    const early = judgeAt(now, before, 0);
    expect(early.metrics.find((m) => m.id === FOCUS_METRIC)!.verdict).toBe('regression');
    expect(p99Of(early).verdict).toBe('regression');
  });
});

describe("the favoured geomean's share of its benchmark's part", () => {
  // Four metrics whose run-to-run noise is unrelated by construction, so that the family
  // counts exactly four tests (Li and Ji): log residuals of the 15 baseline runs
  // sin(2π f (i + ½) / 15) for f = 1 … 4 (orthogonal, mean 0, skewness 0), and of the 3
  // current runs patterns whose dot products are 0 or negative.
  const S = 0.03;
  const patterns: Record<string, { now: number[]; f: number }> = {
    latency_geomean: { now: [-1, 0, 1], f: 1 },
    latency_p50: { now: [1, 0, -1], f: 2 },
    latency_p95: { now: [-0.5, 1, -0.5], f: 3 },
    // Throughput's worse side is down: its worse residuals are those of the log negated.
    throughput: { now: [0.5, -1, 0.5], f: 4 },
  };
  const FOUR = { latency_geomean: 0.02, latency_p50: 0.05, latency_p95: 0.1, throughput: 0.05 };
  /** The current runs with the geomean's mean log `shift` above the baseline's. */
  function family(shift: number): FamilyMember {
    const metric = (id: string, logs: number[]): Metric => {
      const higher = id === 'throughput';
      return {
        id,
        unit: higher ? 'req/s' : 'ms',
        direction: higher ? 'higher-is-better' : 'lower-is-better',
        values: logs.map((l) => 100 * Math.exp(higher ? -l : l)),
      };
    };
    const sideOf = (logsOf: (id: string) => number[]): BenchmarkResult => ({
      name: 'bench',
      format: 'offline-benchmark',
      runs: [],
      metrics: Object.keys(patterns).map((id) => metric(id, logsOf(id))),
    });
    const current = sideOf((id) =>
      patterns[id]!.now.map((r) => S * r + (id === FOCUS_METRIC ? shift : 0)),
    );
    const baseline = sideOf((id) =>
      Array.from(
        { length: 15 },
        (_, i) => S * Math.sin((2 * Math.PI * patterns[id]!.f * (i + 0.5)) / 15),
      ),
    );
    return { current, baseline, thresholds: FOUR };
  }
  // Šidák's per-metric level for four tests, by hand: 1 − (1 − 0.005)^(1/4) = 0.00125235.
  const perMetric = 1 - (1 - BUDGET) ** (1 / 4);

  it('tests the geomean at 80% of the four tests’ part and the other three at 20% over three', () => {
    // Pins FOCUS_SHARE: the geomean at 0.8 × 4 Šidák levels, the others at 0.2 × 4 / 3 of one.
    const m = family(0);
    expect(familySize([m])).toEqual({ tests: 4, metrics: 4 });
    const [levels] = lookLevels([m], { falseAlarmRate: BUDGET });
    const levelOf = (id: string) => levels!.metricLevels![id]!.testLevel!;
    // 0.8 × 4 × 0.00125235 = 0.0040075; 0.2 × 4 / 3 × 0.00125235 = 0.00033396.
    expect(levelOf(FOCUS_METRIC)).toBeCloseTo(0.0040075, 7);
    for (const id of ['latency_p50', 'latency_p95', 'throughput']) {
      expect(levelOf(id)).toBeCloseTo(0.00033396, 8);
    }
    // A Bonferroni split of the four tests' part (4 × 0.00125235 = 0.0050094, Šidák's
    // levels summed): the levels add up to it, whatever the share.
    const sum = Object.keys(patterns).reduce((s, id) => s + levelOf(id), 0);
    expect(sum).toBeCloseTo(4 * perMetric, 12);
  });

  it('fails a geomean slowdown at one-sided p 0.36%, not at 0.44%: its level is 0.40%', () => {
    // Pins FOCUS_SHARE by the verdict: the geomean fails below 0.8 × 4 Šidák levels (0.401%).
    // Pooled t on the logs, 16 df: s² = (2 S² + 7.5 S²) / 16 (Σ sin² over the period is
    // 7.5), se = s √(1/3 + 1/15). scipy.stats.t.isf(0.0036, 16) = 3.07828 and
    // t.isf(0.0044, 16) = 2.98221; the geomean's level 0.40075% needs t > 3.02699, at a
    // 0.64 share (0.3206%) t > 3.13360, at 0.96 (0.4809%) t > 2.93951.
    const se = Math.sqrt(((9.5 * S * S) / 16) * (1 / 3 + 1 / 15));
    const verdictAt = (t: number) => {
      const m = family(t * se);
      const [report] = judgeResults(
        [m.current],
        { benchmarks: [m.baseline] } as never,
        () => FOUR,
        {
          confidence: 0.95,
          failOnInconclusive: false,
          falseAlarmRate: BUDGET,
        },
      );
      const geomean = report!.metrics.find((c) => c.id === FOCUS_METRIC)!;
      // Beyond the 2% threshold either way: the test alone decides.
      expect(geomean.change!).toBeGreaterThan(0.04);
      return geomean.verdict;
    };
    expect(verdictAt(3.07828)).toBe('regression');
    expect(verdictAt(2.98221)).toBe('inconclusive');
  });
});
