// One regression per night its series agree on (consensus.ts): the commit most series
// put the step on, not the earliest any one of them named; and which change points are
// near enough to be the same regression.
import { describe, expect, it } from 'vitest';
import { analyzeHistory } from '../../src/history/analyze.js';
import type { Series } from '../../src/history/series.js';
import { makeSeries } from './make-series.js';
import { NOISY, outvotedSeries } from './one-noisy-series.js';

describe('the night a regression is named by', () => {
  it('is the commit 18 of 19 series agree on, not the night one noisy series put it on', () => {
    const { regressions } = analyzeHistory(outvotedSeries());
    expect(regressions).toHaveLength(1);
    const [regression] = regressions;
    // The noisy series put the step on night 29: the earliest night any series named.
    const noisy = regression!.changes.find((c) => c.benchmark === NOISY)!;
    expect(noisy.change.firstBad.runId).toBe('1029-1');
    expect(
      Math.min(...regression!.changes.map((c) => Date.parse(c.change.firstBad.createdAt))),
    ).toBe(Date.parse(noisy.change.firstBad.createdAt));
    // The regression is named by night 30's commit, which the other 18 agree on.
    expect(regression!.id).toBe('nightly@1030-1');
    expect(regression!.firstBad.commit).toBe('abc01e'.padEnd(40, '0'));
    expect(regression!.lastGood.runId).toBe('1029-1');
    expect(regression!.changes).toHaveLength(19);
    const { consensus } = regression!;
    expect(consensus).toMatchObject({ runId: '1030-1', series: 19, agreeing: 18 });
    expect(consensus.weight).toBeGreaterThan(17.5);
    expect(consensus.weight).toBeLessThanOrEqual(19);
    // What the noisy series said stays: where, how sure, and what it gives night 30.
    const said = consensus.locations.find((l) => l.benchmark === NOISY)!;
    expect(said).toMatchObject({ runId: '1029-1', commit: 'abc01d'.padEnd(40, '0') });
    expect(said.share).toBeGreaterThan(said.agreedShare);
    expect(said.share).toBeLessThan(0.95);
    expect(consensus.locations[0]).toBe(said);
  });
});

function stepAt(night: number, name: string): Series {
  const series = makeSeries({ nights: 45, level: (n) => (n >= night ? 1.1 : 1), seed: name });
  return { ...series, id: `gate · ${name} · latency_p50 · any`, benchmark: name };
}

/** The regressions of a gate whose benchmarks each step up 10% on the given night. */
function regressionsOf(nights: Record<string, number>) {
  const series = Object.entries(nights).map(([name, night]) => stepAt(night, name));
  return analyzeHistory({ series, acceptances: [], skipped: 0 }).regressions.map((r) => ({
    at: r.firstBad.index,
    benchmarks: r.benchmarks,
  }));
}

describe('change points near each other', () => {
  it('are one regression within 2 runs of the agreed night, and two from 3 on', () => {
    expect(regressionsOf({ a: 30, b: 30, c: 30, d: 32 })).toEqual([
      { at: 30, benchmarks: ['a', 'b', 'c', 'd'] },
    ]);
    expect(regressionsOf({ a: 30, b: 30, c: 30, d: 33 })).toEqual([
      { at: 30, benchmarks: ['a', 'b', 'c'] },
      { at: 33, benchmarks: ['d'] },
    ]);
  });

  it('are counted from the agreed night, not from the earliest', () => {
    // 2 runs either side of night 30, which 3 series agree on: one regression. From the
    // earliest (28), night 32 was 4 runs away and made a regression of its own.
    expect(regressionsOf({ a: 28, b: 30, c: 30, d: 30, e: 32 })).toEqual([
      { at: 30, benchmarks: ['a', 'b', 'c', 'd', 'e'] },
    ]);
  });
});
