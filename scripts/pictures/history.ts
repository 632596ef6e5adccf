// The history the dashboard's pictures show, made with the project's own record code
// (bench/history-sim.ts, seeded): the same records on every machine, so the same page.

import { ATTENTION_SHAPE, recordsOfNight, type HistoryShape } from '../../bench/history-sim.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { withRecordPaths } from '../../src/history/series.js';

/**
 * 40 nights of 3 benchmarks as a person meets them (bench/history-sim.ts: ATTENTION_SHAPE):
 * llama-3.1-8b 10% slower on nights 8–13 and back, the Neuron SDK upgraded on night 20
 * (every series moves a little), mistral-7b 2% slower from night 26 (inside its threshold),
 * and qwen3-8b 10% slower from night 33, still open on the newest night.
 */
export const PICTURE_HISTORY: HistoryShape = {
  ...ATTENTION_SHAPE,
  seed: 'pictures',
  names: ['llama-3.1-8b', 'mistral-7b', 'qwen3-8b'],
};

/** The subjects of the commits the story turns on, as the action reads them from the clone. */
const SUBJECTS: Readonly<Record<number, string>> = {
  8: 'Pad prefill batches to the longest prompt',
  14: 'Revert "Pad prefill batches to the longest prompt"',
  20: 'Upgrade the Neuron SDK to 2.26',
  26: 'Log every scheduler step',
  33: 'Raise max-num-seqs to 16',
};

/** The dashboard page of PICTURE_HISTORY, as `neuron-perf-gate dashboard` writes it. */
export function historyDashboard(shape: HistoryShape = PICTURE_HISTORY): string {
  const nights = Array.from({ length: shape.nights }, (_, night) => recordsOfNight(shape, night));
  const records = nights.flat();
  // Each night's commit subject: the story's where it has one, else a nightly merge.
  const subjects = new Map(
    nights.flatMap((night, i) =>
      night.map(
        (r) => [r.commit, SUBJECTS[i] ?? `Merge the nightly branch (night ${i + 1})`] as const,
      ),
    ),
  );
  // Built an hour after the newest night, not now: the page states when it was built.
  const newest = Math.max(...records.map((record) => Date.parse(record.createdAt)));
  return renderDashboard(
    dashboardInput({
      records: withRecordPaths(records),
      source: `a generated history: ${shape.nights} nights × ${shape.benchmarks} benchmarks`,
      title: 'neuron-perf-gate: octo/inference',
      repositoryUrl: 'https://github.com/octo/inference',
      defaultBranch: 'main',
      subjects,
      now: new Date(newest + 3_600_000),
    }),
  );
}
