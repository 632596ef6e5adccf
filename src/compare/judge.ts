import type { Baseline } from '../baseline/types.js';
import type { BenchmarkReport, BenchmarkResult, Comparison } from '../model.js';
import { percentileOfId, thresholdOf } from '../config/default-thresholds.js';
import { compareBenchmark } from './benchmark.js';
import {
  familySize,
  FOCUS_METRIC,
  focusScales,
  levelFor,
  releasedScales,
  type FamilyMember,
} from './family.js';
import { alignCustomIds } from './custom-ids.js';
import { settingsDifferWarning } from './settings-differ.js';
import { reconcileUnits } from './units.js';
import { PROFILE_METRIC_IDS } from '../profile/metrics.js';
import { notMeasuredRow } from './not-measured-row.js';
import { loadAdjusted } from './host-load.js';
import { STARTS_METRIC } from './alike-starts.js';

/**
 * Judges measured results against a baseline, benchmark by benchmark, matching by name.
 * `thresholdsFor` gives the thresholds of the configured benchmark a result came from.
 */
export interface JudgeOptions {
  /** Confidence level of the intervals as a fraction (0.95). */
  confidence: number;
  /** Count an inconclusive metric as failing the benchmark. */
  failOnInconclusive: boolean;
  /**
   * The chance of a false alarm these results together may raise (one-sided), shared by
   * all their gated metrics (family.ts). Without it each metric is tested on its own.
   */
  falseAlarmRate?: number;
  /** Clean runs the action could still add to settle an open metric (compare.ts). */
  moreRuns?: number;
  /** The false-alarm rate of the last look (sequential.ts): how far the runs left could settle a metric. */
  lastLookRate?: number;
  /**
   * The rate the metrics released by the favoured metric's failure are tested at (Holm's
   * step; sequential.ts: LookPlan.released); the look's falseAlarmRate without it.
   */
  releasedRate?: number;
  /**
   * A look of the confirmation runs before the last (sequential.ts): the tail metrics beside
   * the favoured one (isTailMetric) are held, never failing the benchmark first, and tested
   * at the last look with all the runs (or at this one once the favoured metric has failed,
   * Holm's step). Their t tests are too quick at an early look's far-tail level when the
   * first few runs are heavy-tailed: over 24,000 unchanged heavy-tailed pull requests the
   * throughput and P99 of the first 3 runs alone failed 6 at the first look, four times
   * their part there. The geomean, whose runs' mean logs are nearly symmetric, stops a
   * clear slowdown early as before.
   */
  holdTailMetrics?: boolean;
  /** What the reasons call the baseline (`the base` in A/B); `the baseline` by default. */
  baselineName?: string;
}

export function judgeResults(
  results: BenchmarkResult[],
  baseline: Baseline | undefined,
  thresholdsFor: (result: BenchmarkResult) => Record<string, number>,
  options: JudgeOptions,
): BenchmarkReport[] {
  const members = familyMembers(results, baseline, thresholdsFor);
  const levels = lookLevels(members, options);
  // Needed only where the favoured metric fails: counted then, once for all benchmarks.
  let released: MemberLevels[] | undefined;
  const releasedAt = (index: number) =>
    (released ??=
      options.releasedRate === undefined
        ? levels
        : lookLevels(members, { ...options, falseAlarmRate: options.releasedRate }))[index]!;
  return members.map((member, index) => {
    const { current: result, thresholds, units } = member;
    const loaded = loadAdjusted(result, member.baseline);
    const before = loaded.baseline;
    const errors = units?.errors ?? [];
    const notMeasured = notMeasuredText(result.profile?.note ?? 'no profiled run');
    const compare = (memberLevels: MemberLevels | undefined) =>
      compareBenchmark(result, before, thresholds, {
        confidence: options.confidence,
        failOnInconclusive: options.failOnInconclusive,
        ...memberLevels,
        ...(options.moreRuns === undefined ? {} : { moreRuns: options.moreRuns }),
        // Seeded by name: the same results always give the same intervals.
        seed: result.name,
        notMeasuredReason: notMeasured,
        ...(options.baselineName ? { baselineName: options.baselineName } : {}),
      });
    let judged = compare(levels[index]);
    if (focusFailed(judged.metrics, levels[index])) {
      judged = compare(releasedLevels(levels[index]!, releasedAt(index), member));
    }
    const { metrics: compared, verdict } = judged;
    const metrics = withLoadNotes(
      withNotMeasured(compared, result, thresholds, options.confidence),
      loaded.notes,
    );
    return {
      name: result.name,
      ...(result.source ? { source: result.source } : {}),
      ...(result.sweep ? { sweep: result.sweep } : {}),
      format: result.format,
      verdict: errors.length > 0 ? 'error' : verdict,
      ...(errors.length > 0 ? { error: errors.join('\n') } : {}),
      metrics,
      result,
      ...(result.profile ? { profile: result.profile } : {}),
      warnings: [
        ...notMeasuredWarnings(result),
        ...noGatedMetric(metrics),
        ...vanishedWarnings(metrics, result),
        ...settingsDifferWarning(result, before),
        ...(units?.notes ?? []),
        ...loaded.warnings,
      ],
    };
  });
}

/** Each adjusted metric's reason says how the host's load moved its baseline (host-load.ts). */
function withLoadNotes(metrics: Comparison[], notes: Map<string, string>): Comparison[] {
  if (notes.size === 0) return metrics;
  return metrics.map((m) => {
    const note = notes.get(m.id);
    return note === undefined ? m : { ...m, reason: `${m.reason}; ${note}` };
  });
}

/** One benchmark's one-sided levels at a look (compare.ts: CompareOptions). */
export interface MemberLevels {
  testLevel?: number;
  settleLevel?: number;
  /** Each metric's levels where they differ from the benchmark's (family.ts: focusScales). */
  metricLevels?: Record<string, { testLevel?: number; settleLevel?: number; held?: boolean }>;
}

/**
 * Each benchmark's one-sided levels at this look for the family's budget parts: its
 * metrics' test's and the last look's (whether the runs left could settle a metric), the
 * favoured metric's apart (focusScales). None without a budget.
 */
export function lookLevels(
  members: readonly FamilyMember[],
  options: Pick<JudgeOptions, 'falseAlarmRate' | 'lastLookRate' | 'holdTailMetrics'>,
): MemberLevels[] {
  // The family's correlations are counted once for both budgets.
  let size: ReturnType<typeof familySize> | undefined;
  const levelOf = (rate: number | undefined) => {
    if (rate === undefined) return undefined;
    size ??= familySize(members);
    return levelFor(size, rate).level;
  };
  const testLevel = levelOf(options.falseAlarmRate);
  const settleLevel = levelOf(options.lastLookRate);
  return members.map((member) => {
    const levels: MemberLevels = {
      ...(testLevel === undefined ? {} : { testLevel }),
      ...(settleLevel === undefined ? {} : { settleLevel }),
    };
    if (testLevel === undefined) return levels;
    const scales = focusScales(member);
    const scaled = scaledLevels(levels, scales);
    return options.holdTailMetrics ? withTailsHeld(scaled, scales) : scaled;
  });
}

/** The levels with the tail metrics beside the favoured one held (JudgeOptions.holdTailMetrics). */
function withTailsHeld(levels: MemberLevels, scales: Map<string, number>): MemberLevels {
  // Only a benchmark whose favoured metric is tested beside others has it scaled apart.
  if (levels.metricLevels?.[FOCUS_METRIC] === undefined) return levels;
  const metricLevels = { ...levels.metricLevels };
  for (const id of scales.keys()) {
    if (isTailMetric(id)) metricLevels[id] = { ...metricLevels[id], held: true };
  }
  return { ...levels, metricLevels };
}

/**
 * A metric one slow request moves: a percentile of the slowest 1% (the slowest or second
 * slowest of 50 requests), or any metric that is not a percentile, such as a rate or a
 * mean, which adds up every request's time. Lower percentiles stand further in and are
 * not held: with day-to-day drift and 5 stored records a P50 or P95 that failed at the
 * first look was often inconclusive at the last, whose 13 runs showed the drift
 * (bench:accuracy day-drift-window: holding every metric beside the geomean lost 12 of
 * 400 slowed pull requests, 9 on the P50, 3 on the P95).
 */
function isTailMetric(id: string): boolean {
  // A server's start-up is one value a start, which no request moves: held, a clearly
  // slower start would wait for the last look's restarts (compare/confirmation-looks.ts).
  if (id === FOCUS_METRIC || id === STARTS_METRIC) return false;
  const percentile = percentileOfId(id);
  return percentile === undefined || percentile >= TAIL_PERCENTILE;
}

/** The lowest percentile isTailMetric holds. */
const TAIL_PERCENTILE = 99;

/**
 * The levels once the favoured metric has failed: the others share the benchmark's whole
 * part of the released rate (releasedScales), the favoured metric keeps the level it
 * failed at, so its verdict and the benchmark's stay what the look's split decided.
 */
function releasedLevels(
  levels: MemberLevels,
  released: MemberLevels,
  member: FamilyMember,
): MemberLevels {
  const scaled = scaledLevels({ ...released, metricLevels: {} }, releasedScales(member));
  // focusFailed found the favoured metric's own levels.
  const focus = levels.metricLevels![FOCUS_METRIC]!;
  return { ...scaled, metricLevels: { ...scaled.metricLevels, [FOCUS_METRIC]: focus } };
}

/** The benchmark's levels with each metric's scaled (family.ts: focusScales). */
function scaledLevels(levels: MemberLevels, scales: Map<string, number>): MemberLevels {
  const { testLevel, settleLevel } = levels;
  if (testLevel === undefined) return levels;
  const metricLevels: NonNullable<MemberLevels['metricLevels']> = {};
  for (const [id, scale] of scales) {
    if (scale === 1) continue;
    metricLevels[id] = {
      testLevel: testLevel * scale,
      ...(settleLevel === undefined ? {} : { settleLevel: settleLevel * scale }),
    };
  }
  return Object.keys(metricLevels).length > 0 ? { ...levels, metricLevels } : levels;
}

/** Whether the favoured metric, tested at its own level, failed (Holm's step may follow). */
function focusFailed(
  metrics: readonly { id: string; verdict?: string }[],
  levels: MemberLevels | undefined,
): boolean {
  if (levels?.metricLevels?.[FOCUS_METRIC] === undefined) return false;
  return metrics.some((m) => m.id === FOCUS_METRIC && m.verdict === 'regression');
}

/**
 * The results with their baselines and the thresholds that gate them: the family that
 * shares one budget. The built-in thresholds count as much as configured ones (a config
 * without `thresholds` gates every metric by them, and each is a chance of a false alarm).
 */
export function familyMembers(
  results: readonly BenchmarkResult[],
  baseline: Baseline | undefined,
  thresholdsFor: (result: BenchmarkResult) => Record<string, number>,
): FamilyMember[] {
  return results.map((measured) => {
    const stored = baseline?.benchmarks.find((b) => b.name === measured.name);
    const aligned = alignCustomIds(measured, stored);
    const result = aligned.current;
    const { baseline: before, errors, notes } = reconcileUnits(result, aligned.baseline);
    return {
      current: result,
      baseline: before,
      thresholds: resolvedThresholds(thresholdsFor(result), result, before),
      ...(errors.length > 0 || notes.length > 0 ? { units: { errors, notes } } : {}),
    };
  });
}

/**
 * The threshold of every metric either side has, or the files say is not measured (and of
 * mfu, always shown): the config's, else the built-in one, so a "not measured" row still
 * shows what would apply. Metrics switched off are left out, which means not gated.
 */
function resolvedThresholds(
  configured: Record<string, number>,
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
): Record<string, number> {
  const resolved: Record<string, number> = {};
  const notMeasured = Object.keys(current.notMeasured ?? {}).map((id) => ({ id }));
  for (const { id } of [
    ...current.metrics,
    ...(baseline?.metrics ?? []),
    ...notMeasured,
    { id: 'mfu' },
  ]) {
    const threshold = thresholdOf(configured, id, current.format);
    if (threshold !== null) resolved[id] = threshold;
  }
  return resolved;
}

/**
 * A gated metric the baseline has and this run's files do not, with no note saying why
 * (a custom entry renamed or dropped): it was not judged, and a regression in it would pass.
 */
function vanishedWarnings(metrics: Comparison[], result: BenchmarkResult): string[] {
  return metrics
    .filter(
      (m) =>
        m.current === null &&
        m.baseline !== null &&
        m.threshold !== null &&
        result.notMeasured?.[m.id] === undefined &&
        !PROFILE_METRIC_IDS.includes(m.id),
    )
    .map(
      (m) =>
        `${m.id} is in the baseline but not in this run's results, so it was not judged: ` +
        'was it renamed or removed? A renamed metric starts a new baseline',
    );
}

/** How the warning of a benchmark that cannot fail begins. */
export const NO_GATED_METRIC = 'no metric of this benchmark is gated';

/** A benchmark whose every measured metric is switched off can never fail: say so. */
function noGatedMetric(metrics: Comparison[]): string[] {
  const measured = metrics.filter((m) => m.current !== null || m.baseline !== null);
  if (measured.length === 0 || measured.some((m) => m.threshold !== null)) return [];
  return [
    `${NO_GATED_METRIC} (${measured.map((m) => m.id).join(', ')} all have ` +
      'their threshold off), so it cannot fail; give at least one a threshold, or thresholds: { default: 10% }',
  ];
}

/**
 * Metrics the result files have as NaN, Infinity or null: "not measured" with the reason,
 * whether or not the baseline has them. They never fail the benchmark.
 */
function withNotMeasured(
  metrics: Comparison[],
  result: BenchmarkResult,
  thresholds: Record<string, number>,
  confidence: number,
): Comparison[] {
  const notes = result.notMeasured ?? {};
  const profileNote = result.profile?.note;
  const marked = metrics.map((m) => {
    if (m.current !== null) return m;
    if (notes[m.id] !== undefined) {
      return { ...m, verdict: 'missing' as const, reason: `not measured: ${notes[m.id]!.reason}` };
    }
    // MFU and MBU the baseline has but this run's profile does not: the profile says why.
    if (profileNote !== undefined && PROFILE_METRIC_IDS.includes(m.id)) {
      return { ...m, verdict: 'missing' as const, reason: notMeasuredText(profileNote) };
    }
    return m;
  });
  for (const [id, note] of Object.entries(notes)) {
    if (marked.some((m) => m.id === id)) continue;
    // Shown as the format would have measured it: its unit and direction come with the note.
    const threshold = Object.hasOwn(thresholds, id) ? (thresholds[id] ?? null) : null;
    marked.push(notMeasuredRow(id, note, threshold, confidence, `not measured: ${note.reason}`));
  }
  return marked;
}

/** "not measured: …", the reason a verdict row gives (its readers look for the prefix). */
function notMeasuredText(note: string): string {
  return note.startsWith('not measured') ? note : `not measured: ${note}`;
}

/** One line per metric the files give no value for, unless a run measured it after all. */
function notMeasuredWarnings(result: BenchmarkResult): string[] {
  return Object.entries(result.notMeasured ?? {})
    .filter(([id]) => !result.metrics.some((m) => m.id === id))
    .map(([id, note]) => `${id} not measured: ${note.reason}`);
}
