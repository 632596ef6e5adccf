// A/B mode's start-up metrics of `startup:`. `benchmark_startup` is each warm clean run's
// launch → ready, as in the stored mode (observe/startup-metrics.ts), each value with the
// block its run ran in, so the two sides are judged paired within the blocks like every
// metric (stats/paired.ts). A run that compiled graphs (its log says so, or the compile
// cache gained entries around it) is no warm start and is left out; a block left with one
// side's starts only is then not paired, and the report names it ("block 1: base has no
// value, not paired"), as it names each run left out. `cold_startup` is not measured in
// A/B (docs/ab.md, "Start-up"): one cold start a side is one value each, with no spread to
// judge a change by, and minutes of compiling on an empty cache to get it.

import type { StartupSpec } from '../config/types.js';
import type { Metric, NotMeasuredNote, RunOutcome } from '../model.js';
import {
  BENCHMARK_STARTUP,
  COLD_STARTUP,
  startupFigures,
  type StartupFigures,
} from '../observe/startup-metrics.js';

/** One side's runs so far, the block of each (same order), and those that compiled. */
export interface SideStarts {
  outcomes: readonly RunOutcome[];
  blocks: readonly number[];
  compiled: ReadonlySet<number>;
}

export const COLD_STARTUP_IN_AB =
  'A/B takes no cold start: one a side would be one value each, with no spread to judge ' +
  'a change by (the stored mode judges it against its history; docs/ab.md)';

/** The side's start-up figures, `benchmark_startup` with the block of each of its values. */
export function abStartupFigures(spec: StartupSpec, starts: SideStarts): StartupFigures {
  const { outcomes, blocks, compiled } = starts;
  const figures = startupFigures(spec, outcomes, undefined, compiled);
  const warmBlocks = outcomes.flatMap((run, i) => (compiled.has(run.index) ? [] : [blocks[i]!]));
  const metrics = figures.metrics.map((metric): Metric =>
    metric.id === BENCHMARK_STARTUP && metric.values.length === warmBlocks.length
      ? { ...metric, blocks: warmBlocks }
      : metric,
  );
  const notMeasured: Record<string, NotMeasuredNote> = { ...figures.notMeasured };
  if (spec.cold) {
    notMeasured[COLD_STARTUP] = {
      reason: COLD_STARTUP_IN_AB,
      unit: 's',
      direction: 'lower-is-better',
    };
  }
  return {
    ...figures,
    metrics,
    notMeasured,
    warnings: [...figures.warnings, ...leftOut(starts)],
  };
}

/** "startup: run 1 (block 1) compiled graphs: no warm start, left out of benchmark_startup". */
function leftOut({ outcomes, blocks, compiled }: SideStarts): string[] {
  return outcomes.flatMap((run, i) =>
    compiled.has(run.index)
      ? [
          `startup: run ${run.index} (block ${blocks[i]! + 1}) compiled graphs: no warm start, left out of ${BENCHMARK_STARTUP}`,
        ]
      : [],
  );
}
