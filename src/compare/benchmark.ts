import {
  CAPACITY_FORMAT,
  type BenchmarkResult,
  type BenchmarkVerdict,
  type Comparison,
  type GateVerdict,
  type Metric,
} from '../model.js';
import { PROFILE_METRIC } from '../profile/metrics.js';
import { statedSpreads } from './stated.js';
import { wildRuns, type RunValues, type WildRuns } from '../stats/outliers.js';
import { compareMetric, worsening, type CompareOptions } from './compare.js';
import {
  alikeStarts,
  startsWorthRestarts,
  STARTS_METRIC,
  type StartsCompared,
} from './alike-starts.js';
import { compileCacheComparison } from './compile-cache.js';
import { notMeasuredRow } from './not-measured-row.js';

/** The order metrics appear in tables; others follow in the order they were measured. */
const PREFERRED_ORDER = [
  'throughput',
  'latency_p50',
  'latency_geomean',
  'latency_p95',
  'latency_p99',
  'mfu',
];

/** Metrics that are always shown, marked "not measured" when absent on both sides. */
const ALWAYS_SHOWN: Record<string, Pick<Metric, 'unit' | 'direction'>> = {
  mfu: PROFILE_METRIC,
};

export interface BenchmarkComparison {
  metrics: Comparison[];
  verdict: BenchmarkVerdict;
}

/**
 * Compares every metric of one benchmark with its baseline. Without a baseline the
 * benchmark's verdict is `no-baseline` (which passes) and each metric is `new`.
 */
export function compareBenchmark(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
  thresholds: Record<string, number>,
  options: CompareOptions & {
    notMeasuredReason?: string;
    failOnInconclusive?: boolean;
    baselineName?: string;
    /** Levels of the metrics whose own differ from `testLevel` and `settleLevel` (judge.ts: lookLevels). */
    metricLevels?: Record<string, Pick<CompareOptions, 'testLevel' | 'settleLevel' | 'held'>>;
  },
): BenchmarkComparison {
  const ids = metricIds(current.metrics, baseline?.metrics ?? []);
  const wild = wildRunsOf(current, baseline, thresholds);
  const metrics: Comparison[] = [];
  for (const id of ids) {
    const now = current.metrics.find((m) => m.id === id);
    const before = baseline?.metrics.find((m) => m.id === id);
    const stated = statedSpreads(current, baseline, now, before);
    const threshold = ownThreshold(thresholds, id);
    metrics.push(
      compileCacheComparison(id, current, baseline, threshold, options.confidence, {
        baselineName: options.baselineName ?? 'the baseline',
      }) ??
        compareStarts(now, before, threshold, {
          ...options,
          ...options.metricLevels?.[id],
          wildRuns: wild,
          ...(stated ? { stated } : {}),
        }),
    );
  }
  // A capacity is derived from other benchmarks' runs: nothing of it is ever profiled.
  const alwaysShown = current.format === CAPACITY_FORMAT ? {} : ALWAYS_SHOWN;
  for (const [id, shape] of Object.entries(alwaysShown)) {
    if (ids.includes(id)) continue;
    const reason = options.notMeasuredReason ?? 'not measured';
    metrics.push(
      notMeasuredRow(id, shape, ownThreshold(thresholds, id), options.confidence, reason),
    );
  }
  metrics.sort((a, b) => orderOf(a.id) - orderOf(b.id));
  const failing = (m: Comparison) =>
    m.verdict === 'regression' ||
    (options.failOnInconclusive === true && m.verdict === 'inconclusive');
  const verdict: BenchmarkVerdict = !baseline
    ? 'no-baseline'
    : metrics.some(failing)
      ? 'regression'
      : 'pass';
  return { metrics, verdict };
}

/** What the reason says of the starts a server_startup verdict compared (alike-starts.ts). */
const STARTS_NOTE: Record<StartsCompared, string> = {
  restarts: "the restarts compared; each gate run's first start, through a cold page cache, apart",
  'first-starts': 'the first starts compared, one a gate run',
};

/** compareMetric, a server's starts compared like with like (alike-starts.ts). */
function compareStarts(
  now: Metric | undefined,
  before: Metric | undefined,
  threshold: number | null,
  options: CompareOptions,
): Comparison {
  const alike = now && before ? alikeStarts(now, before) : undefined;
  if (!alike) return compareMetric(now, before, threshold, options);
  // The wild runs are the benchmark's runs; a start is none of them.
  const compared = compareMetric(alike.current, alike.baseline, threshold, {
    ...options,
    wildRuns: undefined,
  });
  const reason = `${compared.reason} (${STARTS_NOTE[alike.compared]})`;
  let judged: Comparison = { ...compared, reason };
  if (alike.compared === 'first-starts' && withinColdStartsApart(compared, threshold)) {
    const held = `; first starts alone and no stored history of them: the threshold alone fails one only beyond ${FIRST_STARTS_APART}× it, as a cold page cache moves each by up to 30%`;
    judged = { ...compared, verdict: 'inconclusive', reason: reason + held };
  }
  const open = startsWorthRestarts(alike, judged, options.moreRuns);
  const rest: Comparison = { ...judged };
  delete rest.worthConfirming;
  return open ? { ...rest, worthConfirming: true } : rest;
}

/**
 * How far apart two first starts of an unchanged server may lie, as a multiple of the
 * threshold: each reads the model through a cold page cache, 5–30% slower than a restart
 * (bench:accuracy every-metric's model), so at the 15% threshold two of them differ by up
 * to about 25%. Without a stored history to learn that from (no interval), a first start
 * fails only beyond this; a server that lost its compile cache is several times slower.
 */
const FIRST_STARTS_APART = 2;

/** A first start the threshold alone (no interval) would fail, within FIRST_STARTS_APART× it. */
function withinColdStartsApart(compared: Comparison, threshold: number | null): boolean {
  if (compared.verdict !== 'regression' || compared.ci !== null || threshold === null) return false;
  return worsening(compared.change ?? 0, compared.direction) <= FIRST_STARTS_APART * threshold;
}

/**
 * The runs that are outliers in most gated metrics measured in every run of both sides
 * (stats/outliers.ts): a noisy neighbour's whole run, not one metric's noise.
 */
export function wildRunsOf(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
  thresholds: Record<string, number>,
): WildRuns {
  if (!baseline) return { baseline: [], current: [] };
  // The baseline's runs, then those of its older stored records (which teach the
  // day-to-day drift only): a wild run there would make its record look like a day of its own.
  const stored = (m: Metric) => [...m.values, ...(m.olderRecords ?? []).flat()];
  const currentRuns = Math.max(0, ...current.metrics.map((m) => m.values.length));
  const baselineRuns = Math.max(0, ...baseline.metrics.map((m) => stored(m).length));
  const measured: RunValues[] = [];
  for (const now of current.metrics) {
    if (ownThreshold(thresholds, now.id) === null || now.values.length !== currentRuns) continue;
    // A server's starts are not the benchmark's runs, whatever their number.
    if (now.id === STARTS_METRIC) continue;
    const before = baseline.metrics.find((m) => m.id === now.id);
    if (!before || stored(before).length !== baselineRuns) continue;
    measured.push({
      current: now.values,
      baseline: stored(before),
      worse: now.direction === 'higher-is-better' ? -1 : 1,
    });
  }
  return wildRuns(measured);
}

/**
 * The threshold of `id`, only when it is the map's own entry: a metric may be named
 * `constructor` or `toString`, which a plain lookup finds on every object's prototype.
 */
function ownThreshold(thresholds: Record<string, number>, id: string): number | null {
  return Object.hasOwn(thresholds, id) ? (thresholds[id] ?? null) : null;
}

function metricIds(current: Metric[], baseline: Metric[]): string[] {
  const ids: string[] = [];
  for (const metric of [...current, ...baseline]) {
    if (!ids.includes(metric.id)) ids.push(metric.id);
  }
  return ids;
}

function orderOf(id: string): number {
  const index = PREFERRED_ORDER.indexOf(id);
  return index === -1 ? PREFERRED_ORDER.length : index;
}

/**
 * The gate's verdict: any error wins, then any regression; `no-baseline` only when no
 * benchmark had a baseline at all.
 */
export function gateVerdict(verdicts: BenchmarkVerdict[]): GateVerdict {
  if (verdicts.includes('error')) return 'error';
  if (verdicts.includes('regression')) return 'regression';
  if (verdicts.length === 0 || verdicts.every((v) => v === 'no-baseline')) return 'no-baseline';
  return 'pass';
}
