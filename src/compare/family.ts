// The gate's false-alarm budget per gate run, shared by every gated metric of every
// benchmark judged together: each metric is tested at the level that keeps the chance of
// any false alarm in the whole family at the budget, counting correlated metrics (the
// throughput and latencies of the same runs) by their effective number (Li and Ji).

import type { BenchmarkResult, Metric } from '../model.js';
import { cautiousCorrelation, effectiveTests, sidakLevel } from '../stats/multiplicity.js';
import type { WildRuns } from '../stats/outliers.js';
import { wildRunsOf } from './benchmark.js';
import { meanOf } from '../stats/mean.js';
import { RULE_JUDGED_METRICS } from './compile-cache.js';
import { skewedTowardsWorse } from '../stats/interval.js';

/** One benchmark's two sides and its thresholds, as judged. */
export interface FamilyMember {
  current: BenchmarkResult;
  baseline: BenchmarkResult | undefined;
  thresholds: Record<string, number>;
  /** Metrics whose units the sides give differently: converted (notes) or not (errors). */
  units?: { errors: string[]; notes: string[] };
}

export interface FamilyLevel {
  /** One-sided level of each metric's regression test. */
  level: number;
  /** Effective number of independent tests in the family. */
  tests: number;
  /** The gated metrics the budget is shared by. */
  metrics: number;
}

/** The per-metric test level that keeps false alarms of the whole family at `budget`. */
export function familyLevel(members: readonly FamilyMember[], budget: number): FamilyLevel {
  return levelFor(familySize(members), budget);
}

/** The family's gated metrics and their effective number of independent tests. */
export function familySize(members: readonly FamilyMember[]): Omit<FamilyLevel, 'level'> {
  let tests = 0;
  let metrics = 0;
  for (const member of members) {
    const tested = testedMetrics(member);
    metrics += tested.length;
    const wild = wildRunsOf(member.current, member.baseline, member.thresholds);
    tests += effectiveTests(correlationOf(tested, wild));
  }
  return { tests, metrics };
}

/**
 * The metric a benchmark's budget share favours when it is gated and measured: the
 * geometric mean of every request's latency, the mean of their logs, which sees a slowdown
 * of every request far sooner than any percentile of heavy-tailed requests, and as soon as
 * the median of queries that repeat. Chosen in advance, not by this comparison's runs (the
 * metric whose spread looks smallest is most often the one whose spread was underestimated).
 */
export const FOCUS_METRIC = 'latency_geomean';

/**
 * The share of its benchmark's budget the favoured metric is tested at; the benchmark's
 * other gated metrics share the rest, counted by their own effective number (Li and Ji).
 * A Bonferroni split of the benchmark's share, so it holds whatever their correlation.
 */
export const FOCUS_SHARE = 0.8;

/**
 * Each tested metric's one-sided level as a multiple of the family's per-metric level:
 * 1 for every metric, unless the benchmark's favoured metric (FOCUS_METRIC) is tested
 * beside others: then its share of the benchmark's part (its effective number of tests
 * times the per-metric level) is FOCUS_SHARE, and the others' is the rest over their own
 * effective number.
 */
export function focusScales(member: FamilyMember): Map<string, number> {
  return scalesWithRestShare(member, 1 - FOCUS_SHARE, SKEWED_SHARE);
}

/**
 * The part of their level the metrics beside the favoured one are tested at when any gated
 * metric of the benchmark has runs clearly skewed towards its worse side (interval.ts:
 * skewedTowardsWorse), the rest left unspent. Their metrics come from the same requests,
 * so a heavy tail the P99 shows is in the P95 and the throughput too, whose own skewness
 * estimate may miss it. A t test of such runs (even with the skewness correction,
 * skewness.ts) is too quick at the far-tail levels a share of the budget has (0.005–0.05%
 * one-sided): three current runs that all caught a slow request lie further out than a
 * normal tail allows. Over 6,000 unchanged heavy-tailed pull requests (bench:accuracy)
 * these metrics alone failed 13 of `compare`'s 37, twice their part of the budget; at a
 * quarter of it, 5 of 29. The favoured geomean, whose runs' mean logs are nearly
 * symmetric, carries the detection of a slowdown of every request, and once it has
 * failed the others get their whole part back (releasedScales).
 */
export const SKEWED_SHARE = 0.25;

/**
 * Holm's step, weighted: once the favoured metric has failed, its part of the budget goes
 * to the benchmark's other gated metrics, which then share the whole part. The first
 * failure is the one the split above allows, so the gate's false alarms stay where they
 * were; a slowdown the geomean found is then named on throughput and P50 too, as it was
 * before the split favoured the geomean.
 */
export function releasedScales(member: FamilyMember): Map<string, number> {
  return scalesWithRestShare(member, 1, 1);
}

/**
 * focusScales with the metrics other than the favoured one sharing `restShare` of the
 * part, or `skewedShare` of that share when the benchmark's runs are clearly skewed.
 */
function scalesWithRestShare(
  member: FamilyMember,
  restShare: number,
  skewedShare: number,
): Map<string, number> {
  const tested = testedMetrics(member);
  const scales = new Map(tested.map((m) => [m.current.id, 1]));
  const focused = tested.findIndex((m) => m.current.id === FOCUS_METRIC);
  if (focused < 0 || tested.length < 2) return scales;
  const wild = wildRunsOf(member.current, member.baseline, member.thresholds);
  const all = effectiveTests(correlationOf(tested, wild));
  const rest = tested.filter((_, i) => i !== focused);
  const restTests = Math.max(1, effectiveTests(correlationOf(rest, wild)));
  const skewed = skewedShare < 1 && tested.some((m) => skewedTowardsWorse(m.current, m.baseline));
  for (const m of rest) {
    scales.set(m.current.id, ((restShare * all) / restTests) * (skewed ? skewedShare : 1));
  }
  scales.set(FOCUS_METRIC, FOCUS_SHARE * all);
  return scales;
}

/** familyLevel for a family already counted (familySize): several budgets, one count. */
export function levelFor(size: Omit<FamilyLevel, 'level'>, budget: number): FamilyLevel {
  return { level: sidakLevel(budget, Math.max(1, size.tests)), ...size };
}

export interface TestedMetric {
  current: Metric;
  baseline: Metric;
}

/** Gated metrics measured on both sides with enough data for an interval. */
export function testedMetrics(member: FamilyMember): TestedMetric[] {
  if (!member.baseline) return [];
  const tested: TestedMetric[] = [];
  for (const current of member.current.metrics) {
    if (!Object.hasOwn(member.thresholds, current.id)) continue;
    // A count judged by rule (compile-cache.ts) raises no false alarm to budget for.
    if (RULE_JUDGED_METRICS.includes(current.id)) continue;
    const baseline = member.baseline.metrics.find((m) => m.id === current.id);
    if (!baseline) continue;
    if (hasInterval(current, baseline)) tested.push({ current, baseline });
  }
  return tested;
}

/** Whether the two sides give a metric an interval: two runs on a side, or one run of requests each. */
export function hasInterval(current: Metric, baseline: Metric): boolean {
  const runs = Math.max(current.values.length, baseline.values.length);
  const samples = current.samples?.length === 1 && baseline.samples?.length === 1;
  return runs >= 2 || samples;
}

/**
 * Correlation of the metrics' run-to-run noise, oriented so that "worse" is the same sign
 * for all: each side's log values minus that side's mean, runs of both sides together.
 * Metrics not measured in every run cannot be lined up and count as unrelated.
 *
 * The wild runs (stats/outliers.ts) are left out. One run 30% off in every metric at once
 * (a noisy neighbour) outweighs the others' noise and makes metrics whose noise is
 * unrelated look as one: four of them counted as two tests, each tested at twice the level.
 * The tests that can raise an alarm beside a wild run are the second opinions without it
 * (on all the runs, its spread hides changes), and their noise is that of the other runs.
 */
function correlationOf(tested: TestedMetric[], wild: WildRuns): number[][] {
  const residuals = tested.map((metric) => worseResiduals(metric, wild));
  return tested.map((_, i) =>
    tested.map((__, j) => {
      if (i === j) return 1;
      const a = residuals[i];
      const b = residuals[j];
      if (!a || !b || a.values.length !== b.values.length || a.sides !== b.sides) return 0;
      return cautiousCorrelation(a.values, b.values, a.values.length - 2);
    }),
  );
}

function worseResiduals(
  metric: TestedMetric,
  wild: WildRuns,
): { values: number[]; sides: string } | undefined {
  const sign = metric.current.direction === 'higher-is-better' ? -1 : 1;
  const side = (values: number[], leftOut: readonly number[]) => {
    const kept = values.filter((_, i) => !leftOut.includes(i));
    if (kept.length === 0 || !kept.every((v) => Number.isFinite(v) && v > 0)) return undefined;
    const logs = kept.map((v) => sign * Math.log(v));
    const mean = meanOf(logs);
    return logs.map((v) => v - mean);
  };
  const current = side(metric.current.values, wild.current);
  const baseline = side(metric.baseline.values, wild.baseline);
  if (!current || !baseline) return undefined;
  // Lined up by the runs as measured: the same runs are left out of metrics of equal length.
  return {
    values: [...current, ...baseline],
    sides: `${metric.current.values.length}/${metric.baseline.values.length}`,
  };
}
