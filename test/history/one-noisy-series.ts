// A gate whose 19 benchmarks all slow down 12% on night 30, one of them noisy (6% run CV)
// and reading most of the step a night early: its series alone puts the first bad night on
// night 29, a commit that changed nothing, and is not quite sure of it.
import { buildSeries, withRecordPaths, type SeriesSet } from '../../src/history/series.js';
import { allNights, type NightsOptions } from './night-records.js';

export const NOISY = 'bench-07';
export const STEP_NIGHT = 30;

export const outvotedNights: NightsOptions = {
  benchmarks: Array.from({ length: 19 }, (_, i) => `bench-${String(i).padStart(2, '0')}`),
  nights: 40,
  runCvOf: (benchmark) => (benchmark === NOISY ? 0.06 : undefined),
  slowdown: (benchmark, night) =>
    night >= STEP_NIGHT ? 1.12 : benchmark === NOISY && night === STEP_NIGHT - 1 ? 1.09 : 1,
  seed: 'noisy-6',
};

export const outvotedRecords = () => allNights(outvotedNights);

/** The history's P50 series: one per benchmark, 19 in all. */
export function outvotedSeries(): SeriesSet {
  const set = buildSeries(withRecordPaths(outvotedRecords()), { defaultBranch: 'main' });
  return { ...set, series: set.series.filter((s) => s.metric === 'latency_p50') };
}
