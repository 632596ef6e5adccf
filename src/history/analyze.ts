// The whole history of a data branch, analysed: change points of every series and the
// regressions they make up. What `neuron-perf-gate history`, the nightly job and the
// dashboard all start from.

import {
  DEFAULT_DETECT_OPTIONS,
  detectBetweenLargeSteps,
  firstPassSteps,
  type DetectOptions,
  type FirstPassSteps,
  type SeriesAnalysis,
} from './changepoints.js';
import { nightVariogram, type NightVariogram } from './night-model.js';
import { findRegressions, type Regression, type RegressionOptions } from './regressions.js';
import type { Series, SeriesSet } from './series.js';
import { sharedDrift } from './shared-drift.js';

export interface HistoryAnalysis {
  analyses: SeriesAnalysis[];
  regressions: Regression[];
}

export interface AnalyzeOptions {
  detect?: Partial<DetectOptions>;
  regressions?: Partial<RegressionOptions>;
}

export function analyzeHistory(set: SeriesSet, options: AnalyzeOptions = {}): HistoryAnalysis {
  const analyses = detectEverySeries(set.series, options.detect);
  return { analyses, regressions: findRegressions(analyses, set.acceptances, options.regressions) };
}

/**
 * Change points of every series, each night model taking its phi from the drift its
 * gate's series (on one environment) show together, where they show one.
 */
export function detectEverySeries(
  series: readonly Series[],
  detect: Partial<DetectOptions> = {},
): SeriesAnalysis[] {
  const settings = { ...DEFAULT_DETECT_OPTIONS, ...detect };
  const steps = series.map((s) => firstPassSteps(s, settings));
  // The gate's drift is fitted between every step the first pass finds, large or not: a
  // step many series share (one slow commit) would otherwise look like a shared drift
  // and hide itself; the small steps a drift makes differ from series to series.
  const cuts = gateSteps(steps);
  const variograms = series.map((s, i) => nightVariogram(s.points, { changes: cuts[i]! }));
  const machineOf = (s: Series) => `${s.gateKey}\u0000${s.environmentKey}`;
  const byMachine = new Map<string, NightVariogram[]>();
  series.forEach((s, i) => {
    const members = byMachine.get(machineOf(s)) ?? [];
    members.push(variograms[i]!);
    byMachine.set(machineOf(s), members);
  });
  const drifts = new Map([...byMachine].map(([key, members]) => [key, sharedDrift(members)]));
  return series.map((s, i) =>
    detectBetweenLargeSteps(s, steps[i]!.large, settings, drifts.get(machineOf(s))),
  );
}

/**
 * The steps a gate's drift is fitted between, per series: its large ones, and those that
 * another series of the gate shows too (within a night). A slowdown every series shares
 * (one slow commit) must not pass for a drift; the small steps a drift makes fall on
 * different nights in different series, and cutting at them would leave the drift's
 * largest wanders out of the fit (phi and tau² too small: false change points).
 */
function gateSteps(steps: readonly FirstPassSteps[]): number[][] {
  return steps.map((own, i) =>
    own.oneWay
      ? own.all
      : own.all.filter(
          (night) =>
            own.clear.includes(night) ||
            steps.some((other, j) => j !== i && other.all.some((n) => Math.abs(n - night) <= 1)),
        ),
  );
}
