// The dashboard's change marks: a level shift that comes with a move to a new runner is
// drawn quiet and labelled as the runner's, never as a regression to look at.
import { describe, expect, it } from 'vitest';
import { changeMarks } from '../../src/dashboard/change-marks.js';
import { analyzeHistory } from '../../src/history/analyze.js';
import { makeSeries } from '../history/make-series.js';

/** 60 nights on three runners 1.5% apart in turn, then 10 on a new runner 3.5% slower. */
function movedToSlowerRunner() {
  const fleet = [0.985, 1, 1.015, 1.035];
  const runnerOf = (n: number) => (n >= 60 ? 3 : Math.floor(n / 3) % 3);
  const series = makeSeries({
    nights: 70,
    runs: 24,
    runCv: 0.05,
    seed: 'dashboard-runner-move',
    level: (n) => fleet[runnerOf(n)]!,
    environment: (n) => ({ neuronSdkVersion: '2.26.0', runner: `runner-${runnerOf(n)}` }),
  });
  return { ...series, threshold: 0.02 };
}

describe('change marks', () => {
  it('draws a move to a slower runner quiet and names the runners', () => {
    const analysis = analyzeHistory({
      series: [movedToSlowerRunner()],
      acceptances: [],
      skipped: 0,
    });
    const move = analysis.analyses[0]!.changePoints.find((p) => p.runnerChange);
    expect(move, 'the move is a runner change').toBeDefined();
    const mark = changeMarks(analysis).changes.find((m) => m.path === move!.firstBad.path)!;
    expect(mark.quiet).toBe(true);
    // Night 59 ran on runner-1 (nights 57–59 are its turn).
    expect(mark.label).toContain('runner changed runner-1 → runner-3');
    expect(mark.change).toBeGreaterThan(0.02);
    expect(changeMarks(analysis).regressions).toEqual([]);
  });
});
