// abStartupFigures on made-up runs: the warm starts keep their own blocks once the runs that
// compiled are left out, each run left out is named, and cold_startup is named not measured.
import { describe, expect, it } from 'vitest';
import { abStartupFigures, COLD_STARTUP_IN_AB } from '../../src/ab/ab-startup.js';
import type { RunOutcome } from '../../src/model.js';

const run = (index: number, ms: number): RunOutcome => ({
  index,
  kind: 'clean',
  ok: true,
  exitCode: 0,
  timedOut: false,
  durationMs: ms + 100,
  resultPath: `run-${index}.json`,
  logPath: `run-${index}.log`,
  logTail: [],
  startup: { ms },
});

const outcomes = [run(1, 900), run(2, 400), run(3, 410), run(4, 420), run(5, 430), run(6, 440)];
const blocks = [0, 0, 1, 1, 2, 2];

describe('abStartupFigures', () => {
  it('gives each warm start its block, leaving out and naming the runs that compiled', () => {
    const figures = abStartupFigures(
      { cold: false },
      { outcomes, blocks, compiled: new Set([1, 4]) },
    );
    const [startup] = figures.metrics;
    expect(startup).toMatchObject({ id: 'benchmark_startup', values: [0.4, 0.41, 0.43, 0.44] });
    expect(startup!.blocks).toEqual([0, 1, 2, 2]);
    expect(figures.warnings).toEqual([
      'startup: run 1 (block 1) compiled graphs: no warm start, left out of benchmark_startup',
      'startup: run 4 (block 2) compiled graphs: no warm start, left out of benchmark_startup',
    ]);
    expect(figures.summary.compiledRuns).toEqual([1, 4]);
  });

  it('names cold_startup as not measured in A/B, and every run compiled as no warm start', () => {
    const figures = abStartupFigures(
      { cold: true },
      { outcomes, blocks, compiled: new Set([1, 2, 3, 4, 5, 6]) },
    );
    expect(figures.metrics).toEqual([]);
    expect(figures.notMeasured.cold_startup?.reason).toBe(COLD_STARTUP_IN_AB);
    expect(figures.notMeasured.benchmark_startup?.reason).toMatch(/none was a warm start/);
  });
});
