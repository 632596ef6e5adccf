// The start-up metrics of `startup:`: `benchmark_startup`, each warm clean run's launch →
// ready (one value per run, so its spread gives an interval like any timing), and
// `cold_startup`, the one cold start's, with what its compile cost. A clean run that
// compiled a graph (a cache that missed) is no warm start: it is left out of
// `benchmark_startup`, as graphs_compiled and compile_time judge it already.

import type { StartupSpec } from '../config/types.js';
import type {
  BenchmarkResult,
  ColdStartSummary,
  Metric,
  NotMeasuredNote,
  RunOutcome,
  StartupSummary,
} from '../model.js';

export const BENCHMARK_STARTUP = 'benchmark_startup';
export const COLD_STARTUP = 'cold_startup';
export const COLD_COMPILE_TIME = 'cold_compile_time';

const seconds = (id: string, values: number[]): Metric => ({
  id,
  unit: 's',
  direction: 'lower-is-better',
  values,
});

const notMeasured = (reason: string): NotMeasuredNote => ({
  reason,
  unit: 's',
  direction: 'lower-is-better',
});

export interface StartupFigures {
  metrics: Metric[];
  notMeasured: Record<string, NotMeasuredNote>;
  summary: StartupSummary;
  /** Each reason a run was not measured once, with the runs it came from. */
  warnings: string[];
}

/**
 * The clean runs' start-ups as `benchmark_startup` when every run has one (else "not
 * measured", naming the first run without and why), and the cold start's.
 */
export function startupFigures(
  spec: StartupSpec,
  clean: readonly RunOutcome[],
  cold: ColdStartSummary | undefined,
  compiled: ReadonlySet<number> = new Set(),
): StartupFigures {
  const values = clean.map((run) => (run.startup && 'ms' in run.startup ? run.startup.ms : null));
  const warm = values.filter((_ms, i) => !compiled.has(clean[i]!.index));
  const metrics: Metric[] = [];
  const missing: Record<string, NotMeasuredNote> = {};
  const firstMissing = clean.find((_run, i) => values[i] === null);
  if (firstMissing) {
    missing[BENCHMARK_STARTUP] = notMeasured(
      `not measured in clean run ${firstMissing.index}: ${noteOf(firstMissing)}`,
    );
  } else if (warm.length > 0) {
    metrics.push(
      seconds(
        BENCHMARK_STARTUP,
        warm.map((ms) => ms! / 1000),
      ),
    );
  } else if (values.length > 0) {
    missing[BENCHMARK_STARTUP] = notMeasured(
      'not measured: every clean run compiled graphs, so none was a warm start (see compile_time)',
    );
  }
  if (cold?.seconds !== undefined) metrics.push(seconds(COLD_STARTUP, [cold.seconds]));
  else if (cold) missing[COLD_STARTUP] = notMeasured(cold.note ?? 'the cold start was not timed');
  if (cold?.compileSeconds !== undefined) {
    metrics.push(seconds(COLD_COMPILE_TIME, [cold.compileSeconds]));
  }
  return {
    metrics,
    notMeasured: missing,
    summary: {
      ...(spec.readyLog !== undefined ? { readyLog: spec.readyLog } : {}),
      seconds: values.map((ms) => (ms === null ? null : ms / 1000)),
      ...(compiled.size > 0
        ? { compiledRuns: clean.map((run) => run.index).filter((i) => compiled.has(i)) }
        : {}),
      ...(cold ? { cold } : {}),
    },
    warnings: runWarnings(clean),
  };
}

function noteOf(run: RunOutcome): string {
  return run.startup && 'note' in run.startup ? run.startup.note : 'its start-up was not timed';
}

/** "startup: clean run 1, 2, 3: <why>", each reason once. */
function runWarnings(clean: readonly RunOutcome[]): string[] {
  const runsOf = new Map<string, number[]>();
  for (const run of clean) {
    if (run.startup && 'ms' in run.startup) continue;
    const note = noteOf(run);
    runsOf.set(note, [...(runsOf.get(note) ?? []), run.index]);
  }
  return [...runsOf].map(
    ([note, runs]) =>
      `startup: clean run ${runs.join(', ')}: ${note}; ${BENCHMARK_STARTUP} not measured`,
  );
}

/** The result with its start-up figures. */
export function withStartup(result: BenchmarkResult, figures: StartupFigures | undefined): void {
  if (!figures) return;
  result.startup = figures.summary;
  result.metrics.push(...figures.metrics);
  if (Object.keys(figures.notMeasured).length > 0) {
    result.notMeasured = { ...result.notMeasured, ...figures.notMeasured };
  }
}
