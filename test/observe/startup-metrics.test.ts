// startupFigures: the clean runs' start-ups as benchmark_startup (one value per warm run),
// the cold start's as cold_startup and cold_compile_time, and "not measured" with the runs
// and the reason when a run was not timed; pure, on outcomes as the runner leaves them.
import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../src/model.js';
import { startupFigures } from '../../src/observe/startup-metrics.js';

function run(index: number, startup: RunOutcome['startup']): RunOutcome {
  return {
    index,
    kind: 'clean',
    ok: true,
    exitCode: 0,
    timedOut: false,
    durationMs: 5_000,
    resultPath: `run-${index}.clean.json`,
    logPath: `run-${index}.clean.log`,
    logTail: [],
    ...(startup ? { startup } : {}),
  };
}

describe('startupFigures', () => {
  it('makes benchmark_startup of every clean run, in seconds', () => {
    const figures = startupFigures(
      { readyLog: 'ready', cold: false },
      [run(1, { ms: 1200 }), run(2, { ms: 1100 }), run(3, { ms: 1150 })],
      undefined,
    );
    expect(figures.metrics).toEqual([
      {
        id: 'benchmark_startup',
        unit: 's',
        direction: 'lower-is-better',
        values: [1.2, 1.1, 1.15],
      },
    ]);
    expect(figures.summary).toEqual({ readyLog: 'ready', seconds: [1.2, 1.1, 1.15] });
    expect(figures.notMeasured).toEqual({});
    expect(figures.warnings).toEqual([]);
  });

  it('leaves out a run that compiled graphs: it was no warm start', () => {
    const figures = startupFigures(
      { cold: false },
      [run(1, { ms: 9000 }), run(2, { ms: 1100 }), run(3, { ms: 1150 })],
      undefined,
      new Set([1]),
    );
    expect(figures.metrics[0]!.values).toEqual([1.1, 1.15]);
    expect(figures.summary.compiledRuns).toEqual([1]);
    expect(figures.summary.seconds).toEqual([9, 1.1, 1.15]);
    const all = startupFigures({ cold: false }, [run(1, { ms: 9000 })], undefined, new Set([1]));
    expect(all.metrics).toEqual([]);
    expect(all.notMeasured.benchmark_startup!.reason).toMatch(/every clean run compiled graphs/);
  });

  it('is not measured when a run was not timed, naming the runs and why once', () => {
    const never = { note: 'no line of its output matched ready-log "x"' };
    const figures = startupFigures(
      { readyLog: 'x', cold: false },
      [run(1, never), run(2, { ms: 1000 }), run(3, never)],
      undefined,
    );
    expect(figures.metrics).toEqual([]);
    expect(figures.notMeasured).toEqual({
      benchmark_startup: {
        reason: 'not measured in clean run 1: no line of its output matched ready-log "x"',
        unit: 's',
        direction: 'lower-is-better',
      },
    });
    expect(figures.warnings).toEqual([
      'startup: clean run 1, 3: no line of its output matched ready-log "x"; benchmark_startup not measured',
    ]);
    expect(figures.summary.seconds).toEqual([null, 1, null]);
  });

  it('adds the cold start: cold_startup gated, its compile time shown', () => {
    const cold = {
      seconds: 4.2,
      compileSeconds: 3.1,
      graphsCompiled: 4,
      log: 'runs/b/run-cold.clean.log',
    };
    const figures = startupFigures({ cold: true }, [run(1, { ms: 500 })], cold);
    expect(figures.metrics.map((m) => [m.id, m.values])).toEqual([
      ['benchmark_startup', [0.5]],
      ['cold_startup', [4.2]],
      ['cold_compile_time', [3.1]],
    ]);
    expect(figures.summary.cold).toEqual(cold);
    const failed = startupFigures({ cold: true }, [run(1, { ms: 500 })], {
      graphsCompiled: 0,
      log: 'runs/b/run-cold.clean.log',
      note: 'the cold start failed: exit code 1',
    });
    expect(failed.notMeasured.cold_startup!.reason).toBe('the cold start failed: exit code 1');
    expect(failed.metrics.map((m) => m.id)).toEqual(['benchmark_startup']);
  });
});
