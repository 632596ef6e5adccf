// Change points of one series, found from every run of every night.
//
// Each night contributes its runs, not one number; the night model (night-model.ts) says
// how far a night's mean strays from its level: its runs' own spread, and a night effect
// that may drift from night to night. Values are taken on a log scale, so steps are
// relative and a step up and down of the same ratio weigh the same.
//
// Three detectors share that model:
// - segmentation (segmentation.ts): binary segmentation, each split kept when it is
//   unlikely without a change, plus bumps (a regression fixed again a few nights later);
// - tail (newest-nights.ts): the newest 2 and 3 nights against the rest of their segment,
//   so that a fresh step is named within 2–3 nights;
// - creep (newest-nights.ts): the newest 3 nights against the first nights of their
//   segment, one-sided, so that five 1% steps add up to a finding.
//
// Pure and seeded: the same series gives the same change points.

import { isCountMetric } from '../config/metric-names.js';
import {
  fingerprintDifferences,
  runnerDifference,
  type FingerprintDifference,
} from '../environment/fingerprint.js';
import type { Environment } from '../model.js';
import { normalQuantile } from '../stats/distributions.js';
import { seededRandom } from '../stats/rng.js';
import { locateChanges, type Location, type NightShare } from './location.js';
import { creepTest, levelOf, tailTest, type NewestFinding } from './newest-nights.js';
import {
  algebraOf,
  nightModel,
  type NightAlgebra,
  type NightModel,
  type SharedDrift,
} from './night-model.js';
import { runnerChangeNear, runnerExplains } from './runner-levels.js';
import { segment } from './segmentation.js';
import type { Series } from './series.js';

export interface DetectOptions {
  /** Significance of a segmentation split (permutation p-value). */
  alpha: number;
  /** Per-night false alarm rate of the tail detector (two tests share it). */
  tailAlpha: number;
  /** Per-night false alarm rate of the creep detector (one-sided). */
  creepAlpha: number;
  /** Permutations per segmentation test. */
  permutations: number;
  /** Shortest segment, in nights. */
  minNights: number;
  /** Nights at the start of a segment that the creep detector takes as its reference. */
  creepReference: number;
  /** Confidence of the step intervals. */
  confidence: number;
}

export const DEFAULT_DETECT_OPTIONS: Readonly<DetectOptions> = Object.freeze({
  alpha: 0.005,
  tailAlpha: 0.009,
  creepAlpha: 0.002,
  permutations: 199,
  minNights: 2,
  creepReference: 10,
  confidence: 0.95,
});

/** A point of a series as a change point names it. */
export interface PointRef {
  /** Index in the series' points. */
  index: number;
  path: string;
  commit: string;
  createdAt: string;
  runId: string;
  environment: Environment;
}

export type ChangeKind = 'step' | 'creep';
export type ChangeDirection = 'regression' | 'improvement';

export interface ChangePoint {
  seriesId: string;
  /** `step`: the level moved between two nights; `creep`: it drifted over many. */
  kind: ChangeKind;
  direction: ChangeDirection;
  /** The first night on the new level (a creep: where the drift is best split). */
  firstBad: PointRef;
  /** The night before it. */
  lastGood: PointRef;
  /** Relative change of the level, after / before − 1 (0.03 = 3% higher). */
  change: number;
  /** Confidence interval of `change`. */
  interval: [number, number];
  confidence: number;
  /** Level (geometric mean of the runs) before and after, with the nights and runs behind each. */
  before: Level;
  after: Level;
  /** Segmentation: permutation p-value; tail and creep: the normal p-value of the test. */
  pValue: number;
  /** Which detector found it. */
  detector: 'segmentation' | 'tail' | 'creep';
  /** How sure the series is of the night (location.ts): a regression's series vote with it. */
  location: Location;
  /**
   * What differs between the last good and the first bad night's environment (SDK
   * upgrade), and the runner when it changed.
   */
  environmentChanges: FingerprintDifference[];
  /**
   * Set when the runner changed on the first bad night (or a night either side), to or
   * from one whose level the nights cannot yet tell, and the runners' spread explains the
   * step (runner-levels.ts): a runner change, not the code's; never a regression to act on.
   */
  runnerChange?: { from: string; to: string };
}

export interface Level {
  value: number;
  nights: number;
  runs: number;
}

export interface SeriesAnalysis {
  series: Series;
  /** Oldest first. */
  changePoints: ChangePoint[];
  /**
   * Run-to-run (within a night) and extra night-to-night standard deviation, relative,
   * and how alike consecutive nights' extra parts are (0: independent; 0.8: a slow drift).
   */
  noise: { run: number; night: number; nightCorrelation: number };
  /** The gate's drift the night model took its phi from (shared-drift.ts), if any. */
  sharedDrift?: SharedDrift;
}

/**
 * Change points of one series; `shared`: the drift of its gate's nights, where fitted
 * across the gate's series (analyze.ts), else the series fits its own.
 */
export function detectChangePoints(
  series: Series,
  options: Partial<DetectOptions> = {},
  shared?: SharedDrift,
): SeriesAnalysis {
  const settings = { ...DEFAULT_DETECT_OPTIONS, ...options };
  return detectBetweenLargeSteps(series, firstPassSteps(series, settings).large, settings, shared);
}

/**
 * Nights that start a step, from a first pass: the large ones, and every one it finds.
 * A step makes nights far apart differ
 * as a drift would. So the first pass fits the noise to consecutive nights only (a step
 * spoils one difference, left out as an outlier) to find the large steps, and the second
 * fits it to nights far apart too, never across those steps: a step is not taken for a
 * drift. Smaller steps the first pass finds are not trusted: a drift makes those too, and
 * leaving them out would hide the drift (a gate's shared drift leaves out every one:
 * analyze.ts).
 */
export function firstPassSteps(series: Series, settings: DetectOptions): FirstPassSteps {
  const first = nightModel(series.points, { consecutiveOnly: true });
  const found = detectWith(series, first, settings).changePoints;
  const nights = (list: ChangePoint[]) => list.map((cp) => cp.firstBad.index).sort((a, b) => a - b);
  return {
    large: nights(found.filter((cp) => stepSize(cp, first) >= LARGE_STEP)),
    clear: nights(found.filter((cp) => stepSize(cp, first) >= CLEAR_STEP)),
    all: nights(found),
    oneWay: found.length >= 2 && found.every((cp) => cp.change > 0 === found[0]!.change > 0),
  };
}

/** Nights that start a step, by how sure the first pass is of them. */
export interface FirstPassSteps {
  /** At least LARGE_STEP night standard deviations. */
  large: number[];
  /** At least CLEAR_STEP of them. */
  clear: number[];
  all: number[];
  /** Two steps or more, all the same way: a creep (a drift comes back). */
  oneWay: boolean;
}

/** The second pass: the night model fitted between the large steps, and every detector. */
export function detectBetweenLargeSteps(
  series: Series,
  changes: readonly number[],
  settings: DetectOptions,
  shared?: SharedDrift,
): SeriesAnalysis {
  const analysis = detectWith(series, nightModel(series.points, { changes, shared }), settings);
  return shared ? { ...analysis, sharedDrift: shared } : analysis;
}

/** Steps this many night standard deviations or larger are left out of the noise fit. */
const LARGE_STEP = 3;
/** A gate's drift is fitted between steps this large, or shared by its series (analyze.ts). */
const CLEAR_STEP = 2;

/** A change's size in night standard deviations of `model`. */
function stepSize(change: ChangePoint, model: NightModel): number {
  const at = change.firstBad.index;
  const nightSd = 1 / Math.sqrt(model.weight[at]!);
  const size = model.log ? Math.abs(Math.log1p(change.change)) : Math.abs(change.change);
  return size / nightSd;
}

function detectWith(series: Series, model: NightModel, settings: DetectOptions): SeriesAnalysis {
  const noise = {
    run: model.log ? Math.sqrt(model.sigma2) : 0,
    night: model.log ? Math.sqrt(model.tau2) : 0,
    nightCorrelation: model.phi,
  };
  const n = series.points.length;
  const none = { series, changePoints: [], noise };
  if (n < 2 * settings.minNights || !hasSpread(model) || isCountMetric(series.metric)) return none;
  const algebra = algebraOf(model);
  const random = seededRandom(series.id);
  const splits = segment(model, algebra, 0, n, settings, random).sort((a, b) => a.index - b.index);
  const found: Found[] = splits.map((s) => ({ ...s, detector: 'segmentation' as const }));

  const lastStart = found.length > 0 ? found[found.length - 1]!.index : 0;
  const tail = tailTest(model, algebra, lastStart, n, settings, random);
  if (tail) found.push(tail);
  const creep = tail
    ? undefined
    : creepTest(model, algebra, lastStart, n, series.direction, settings);
  if (creep) found.push(creep);

  // The detectors say whether a segment holds a change; its likelihood says on which night.
  const located = locateChanges(algebra, model.mean, found, settings.minNights);
  const bounds = [0, ...located.map((f) => f.index), n];
  const changePoints = located
    .map((f, i) => describe(series, model, algebra, f, bounds[i]!, bounds[i + 2]!, settings))
    .filter((cp) => cp.change !== 0 && cp.interval[1] > cp.interval[0]);
  return { series, changePoints, noise };
}

/**
 * Whether the nights vary at all, within or between them. A series without spread (a
 * value repeated night after night) has no noise to weigh a step against: any difference
 * would be infinitely sure, and a repeated value a "step" of zero.
 */
function hasSpread(model: NightModel): boolean {
  return model.sigma2 > 0 || model.tau2 > 0;
}

type Found =
  NewestFinding | { index: number; pValue: number; detector: 'segmentation'; windows?: undefined };

// ── describing a change point ────────────────────────────────────────────────────────

function describe(
  series: Series,
  nights: NightModel,
  algebra: NightAlgebra,
  found: Found & { shares: NightShare[] },
  segmentStart: number,
  segmentEnd: number,
  settings: DetectOptions,
): ChangePoint {
  const [b0, b1] = found.windows?.before ?? [segmentStart, found.index];
  const [a0, a1] = found.windows?.after ?? [found.index, segmentEnd];
  const before = levelOf(nights, b0, b1);
  const after = levelOf(nights, a0, a1);
  const diff = after - before;
  const half =
    normalQuantile(1 - (1 - settings.confidence) / 2) *
    Math.sqrt(algebra.differenceVariance([b0, b1], [a0, a1]));
  const ratio = (d: number) => (nights.log ? Math.exp(d) - 1 : d / Math.abs(before || 1));
  const change = ratio(diff);
  const up = change > 0;
  const regressing = (series.direction === 'higher-is-better') !== up;
  const level = (mean: number, from: number, to: number): Level => ({
    value: nights.log ? Math.exp(mean) : mean * nights.scale,
    nights: to - from,
    runs: sumRuns(nights, from, to),
  });
  const firstBad = refOf(series, found.index);
  const lastGood = refOf(series, found.index - 1);
  const runner = runnerDifference(lastGood.environment, firstBad.environment);
  const swap = runnerChangeNear(
    series.points.map((p) => p.environment.runner),
    found.index,
  );
  const logStep = nights.log ? diff : Math.log1p(change);
  return {
    seriesId: series.id,
    kind: found.detector === 'creep' ? 'creep' : 'step',
    direction: regressing ? 'regression' : 'improvement',
    firstBad,
    lastGood,
    change,
    interval: [ratio(diff - half), ratio(diff + half)],
    confidence: settings.confidence,
    before: level(before, b0, b1),
    after: level(after, a0, a1),
    pValue: found.pValue,
    detector: found.detector,
    location: {
      share: found.shares.find((night) => night.index === found.index)?.share ?? 0,
      nights: found.shares.map(({ index, share }) => {
        const { runId, commit } = series.points[index]!;
        return { index, runId, commit, share };
      }),
    },
    environmentChanges: [
      ...fingerprintDifferences(lastGood.environment, firstBad.environment),
      ...(runner ? [runner] : []),
    ],
    ...(swap && runnerExplains(nights.runners, swap.before, swap.after, logStep, series.threshold)
      ? { runnerChange: { from: swap.before, to: swap.after } }
      : {}),
  };
}

function sumRuns(nights: NightModel, from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i += 1) total += nights.runs[i]!;
  return total;
}

export function refOf(series: Series, index: number): PointRef {
  const point = series.points[index]!;
  return {
    index,
    path: point.path,
    commit: point.commit,
    createdAt: point.createdAt,
    runId: point.runId,
    environment: point.environment,
  };
}
