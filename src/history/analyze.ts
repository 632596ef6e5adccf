// The whole history of a data branch, analysed: change points of every series and the
// regressions they make up. What `neuron-perf-gate history`, the nightly job and the
// dashboard all start from.

import { detectChangePoints, type DetectOptions, type SeriesAnalysis } from './changepoints.js';
import { findRegressions, type Regression, type RegressionOptions } from './regressions.js';
import type { SeriesSet } from './series.js';

export interface HistoryAnalysis {
  analyses: SeriesAnalysis[];
  regressions: Regression[];
}

export interface AnalyzeOptions {
  detect?: Partial<DetectOptions>;
  regressions?: Partial<RegressionOptions>;
}

export function analyzeHistory(set: SeriesSet, options: AnalyzeOptions = {}): HistoryAnalysis {
  const analyses = set.series.map((series) => detectChangePoints(series, options.detect));
  return { analyses, regressions: findRegressions(analyses, set.acceptances, options.regressions) };
}
