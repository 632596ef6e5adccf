// The history the dashboard's pictures show, made with the project's own record code
// (bench/history-sim.ts, seeded): the same records on every machine, so the same page.

import { recordsOfNight, type HistoryShape } from '../../bench/history-sim.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { renderDashboard } from '../../src/dashboard/render.js';
import { withRecordPaths } from '../../src/history/series.js';

/**
 * 40 nights of 3 benchmarks: the Neuron SDK upgraded on night 20 moves every series a
 * little; llama-3.1-8b's throughput drops 12% on night 30, the gate flags three nights and
 * the drop is accepted on the fourth.
 */
export const PICTURE_HISTORY: HistoryShape = {
  nights: 40,
  benchmarks: 3,
  requests: 50,
  sdkUpgradeAt: 20,
  regressionAt: 30,
  seed: 'pictures',
  names: ['llama-3.1-8b', 'mistral-7b', 'qwen3-8b'],
};

/** The dashboard page of PICTURE_HISTORY, as `neuron-perf-gate dashboard` writes it. */
export function historyDashboard(shape: HistoryShape = PICTURE_HISTORY): string {
  const records = Array.from({ length: shape.nights }, (_, night) =>
    recordsOfNight(shape, night),
  ).flat();
  // Built an hour after the newest night, not now: the page states when it was built.
  const newest = Math.max(...records.map((record) => Date.parse(record.createdAt)));
  return renderDashboard(
    dashboardInput({
      records: withRecordPaths(records),
      source: `a generated history: ${shape.nights} nights × ${shape.benchmarks} benchmarks`,
      title: 'neuron-perf-gate: octo/inference',
      repositoryUrl: 'https://github.com/octo/inference',
      defaultBranch: 'main',
      now: new Date(newest + 3_600_000),
    }),
  );
}
