// findRegressions on change points written by hand: what makes a regression of them, how it
// is named, grouped, closed and persisted, with the levels and nights exact, so that each
// rule is pinned at its edge (a night exactly halfway, half of a step won back, an accept at
// the first bad night's own time) rather than by a detector's estimate.
import { describe, expect, it } from 'vitest';
import type { FingerprintDifference } from '../../src/environment/fingerprint.js';
import { refOf, type ChangePoint, type SeriesAnalysis } from '../../src/history/changepoints.js';
import { findRegressions, heldOutRecords } from '../../src/history/regressions.js';
import type { AcceptanceMark, Series } from '../../src/history/series.js';
import { makeSeries } from './make-series.js';

/** A series of `nights` nights whose values on night n are `value(n)`. */
function seriesOf(
  nights: number,
  value: (night: number) => number[],
  named: Partial<Series> = {},
): Series {
  const series = makeSeries({ nights });
  const benchmark = named.benchmark ?? 'a';
  const metric = named.metric ?? 'latency_p50';
  return {
    ...series,
    id: `${named.gateKey ?? 'gate'} · ${benchmark} · ${metric} · any`,
    benchmark,
    metric,
    ...named,
    points: series.points.map((p, n) => ({
      ...p,
      path: `${named.gateKey ?? 'gate'}/${benchmark}/night-${n}.json`,
      values: value(n),
    })),
  };
}

/** A regression step on `at` from level `before` to `after`, sure of its night. */
function stepAt(
  series: Series,
  at: number,
  before: number,
  after: number,
  more: Partial<ChangePoint> = {},
): ChangePoint {
  const change = after / before - 1;
  const worse = series.direction === 'higher-is-better' ? change < 0 : change > 0;
  return {
    seriesId: series.id,
    kind: 'step',
    direction: worse ? 'regression' : 'improvement',
    firstBad: refOf(series, at),
    lastGood: refOf(series, at - 1),
    change,
    interval: [change - 0.01, change + 0.01],
    confidence: 0.95,
    before: { value: before, nights: at, runs: at },
    after: { value: after, nights: series.points.length - at, runs: series.points.length - at },
    pValue: 0.001,
    detector: 'segmentation',
    location: {
      share: 1,
      nights: [{ index: at, share: 1, runId: `run-${at}`, commit: series.points[at]!.commit }],
    },
    environmentChanges: [],
    ...more,
  };
}

const analysisOf = (series: Series, changePoints: ChangePoint[]): SeriesAnalysis => ({
  series,
  changePoints,
  noise: { run: 0.02, night: 0, nightCorrelation: 0 },
});

/** Level 10 before night `at` and 20 from it, then `newest` for the newest two nights. */
function twoLevels(nights: number, at: number, newest: number[], named: Partial<Series> = {}) {
  return seriesOf(nights, (n) => (n >= nights - 2 ? newest : n >= at ? [20, 20] : [10, 10]), named);
}

const acceptance = (at: string, more: Partial<AcceptanceMark> = {}): AcceptanceMark => ({
  gateKey: 'gate',
  benchmark: 'a',
  path: 'gate/a/accepted.json',
  at,
  reason: 'manual',
  records: [],
  environmentKey: 'any',
  ...more,
});

describe('findRegressions on exact levels', () => {
  it('lists the runs within groupRuns of the first bad night, cut at the first and newest runs', () => {
    const nearby = (at: number, groupRuns?: number) => {
      const series = twoLevels(20, at, [20, 20]);
      const options = groupRuns === undefined ? {} : { groupRuns };
      const [regression] = findRegressions(
        [analysisOf(series, [stepAt(series, at, 10, 20)])],
        [],
        options,
      );
      return regression!.nearbyRunIds;
    };
    expect(nearby(10)).toEqual(['run-8', 'run-9', 'run-10', 'run-11', 'run-12']);
    expect(nearby(10, 1)).toEqual(['run-9', 'run-10', 'run-11']);
    expect(nearby(1)).toEqual(['run-0', 'run-1', 'run-2', 'run-3']);
    expect(nearby(18)).toEqual(['run-16', 'run-17', 'run-18', 'run-19']);
  });

  it('is persistent only when each of the newest two nights sits past the midpoint of the levels', () => {
    // On the log scale the midpoint of 10 and 20 is their geometric mean, 14.14.
    const persistent = (newest: number[], at = 10) => {
      const series = twoLevels(20, at, newest);
      const [regression] = findRegressions([analysisOf(series, [stepAt(series, at, 10, 20)])], []);
      expect(regression!.status).toBe('open');
      return [regression!.persistent, regression!.changes[0]!.persistent];
    };
    expect(persistent([14.5, 14.5])).toEqual([true, true]);
    expect(persistent([13.9, 13.9])).toEqual([false, false]);
    // A night's level is the geometric mean of its runs: 14.5 by the mean, 12 by that.
    expect(persistent([8, 18])).toEqual([false, false]);
    // A step on the newest night has one night behind it; on the one before, two.
    expect(persistent([20, 20], 19)).toEqual([false, false]);
    expect(persistent([20, 20], 18)).toEqual([true, true]);
  });

  it('takes arithmetic levels and midpoint once a value is not positive, and a night on it is not past it', () => {
    const persistent = (newest: number[]) => {
      // Night 0 holds a 0 (a count that can be 0): the log scale is off.
      const series = seriesOf(20, (n) =>
        n === 0 ? [0, 20] : n >= 18 ? newest : n >= 10 ? [20, 20] : [10, 10],
      );
      const [regression] = findRegressions([analysisOf(series, [stepAt(series, 10, 10, 20)])], []);
      return regression!.persistent;
    };
    // Past 14.14 but not past 15, the arithmetic midpoint.
    expect(persistent([14.5, 14.5])).toBe(false);
    expect(persistent([15.5, 15.5])).toBe(true);
    expect(persistent([15, 15])).toBe(false);
    // The arithmetic mean of a night: 15.5 from 1 and 30.
    expect(persistent([1, 30])).toBe(true);
  });

  it('needs each of the newest nights past the midpoint, not one of them', () => {
    const series = seriesOf(20, (n) =>
      n === 18 ? [14.5] : n === 19 ? [13.9] : n >= 10 ? [20] : [10],
    );
    const regression = findRegressions([analysisOf(series, [stepAt(series, 10, 10, 20)])], [])[0]!;
    expect(regression.persistent).toBe(false);
    const later = seriesOf(20, (n) =>
      n === 18 ? [13.9] : n === 19 ? [14.5] : n >= 10 ? [20] : [10],
    );
    expect(
      findRegressions([analysisOf(later, [stepAt(later, 10, 10, 20)])], [])[0]!.persistent,
    ).toBe(false);
  });

  it('counts a night exactly at the midpoint of a step down on neither side', () => {
    // A 0 on night 0: arithmetic levels, so the midpoint of 20 and 10 is exactly 15.
    const persistent = (newest: number) => {
      const series = seriesOf(
        20,
        (n) => (n === 0 ? [0, 40] : n >= 18 ? [newest] : n >= 10 ? [10, 10] : [20, 20]),
        { direction: 'higher-is-better' },
      );
      return findRegressions([analysisOf(series, [stepAt(series, 10, 20, 10)])], [])[0]!.persistent;
    };
    expect(persistent(15)).toBe(false);
    expect(persistent(14.9)).toBe(true);
  });

  it('asks for an issue when one of its series persists, not only when all do', () => {
    const persisting = twoLevels(20, 10, [20, 20], { metric: 'latency_p50' });
    const fading = twoLevels(20, 10, [10, 10], { metric: 'latency_p99' });
    const [regression] = findRegressions(
      [
        analysisOf(persisting, [stepAt(persisting, 10, 10, 20)]),
        analysisOf(fading, [stepAt(fading, 10, 10, 20)]),
      ],
      [],
    );
    expect(regression!.changes.map((c) => c.persistent)).toEqual([true, false]);
    expect(regression!.persistent).toBe(true);
  });

  it('lists its benchmarks in order though the later one stepped a night earlier', () => {
    const a = twoLevels(20, 11, [20, 20], { benchmark: 'a' });
    const b = twoLevels(20, 10, [20, 20], { benchmark: 'b' });
    const [regression] = findRegressions(
      [analysisOf(b, [stepAt(b, 10, 10, 20)]), analysisOf(a, [stepAt(a, 11, 10, 20)])],
      [],
    );
    expect(regression!.benchmarks).toEqual(['a', 'b']);
  });

  it("ranks the gate's runs by time whichever series lists them first", () => {
    // Series b holds nights 10–29, a nights 0–19; b comes first and steps on night 11.
    const a = seriesOf(20, () => [10, 10], { benchmark: 'a' });
    const whole = twoLevels(30, 11, [20, 20], { benchmark: 'b' });
    const b = { ...whole, points: whole.points.slice(10) };
    const step = { ...stepAt(whole, 11, 10, 20) };
    step.firstBad = { ...step.firstBad, index: 1 };
    step.lastGood = { ...step.lastGood, index: 0 };
    const [regression] = findRegressions([analysisOf(b, [step]), analysisOf(a, [])], []);
    expect(regression!.nearbyRunIds).toEqual(['run-9', 'run-10', 'run-11', 'run-12', 'run-13']);
  });

  it('follows a step down the same way when lower values are worse', () => {
    const series = seriesOf(20, (n) => (n >= 18 ? [14.5] : n >= 10 ? [10, 10] : [20, 20]), {
      direction: 'higher-is-better',
    });
    const below = stepAt(series, 10, 20, 10);
    expect(below.direction).toBe('regression');
    expect(findRegressions([analysisOf(series, [below])], [])[0]!.persistent).toBe(false);
    const lower = seriesOf(20, (n) => (n >= 18 ? [13.9] : n >= 10 ? [10, 10] : [20, 20]), {
      direction: 'higher-is-better',
    });
    const step = stepAt(lower, 10, 20, 10);
    expect(findRegressions([analysisOf(lower, [step])], [])[0]!.persistent).toBe(true);
  });

  it('counts a step restored when a later change wins back exactly half of it', () => {
    const status = (laterLevel: number) => {
      const series = twoLevels(30, 10, [20, 20]);
      const step = stepAt(series, 10, 10, 20);
      const back = stepAt(series, 20, 20, laterLevel);
      const [regression] = findRegressions([analysisOf(series, [step, back])], []);
      return [regression!.status, regression!.changes[0]!.restoredBy?.firstBad.index];
    };
    expect(status(15)).toEqual(['restored', 20]);
    // A restored regression asks for no issue, however its newest nights sit.
    const stepped = twoLevels(30, 10, [20, 20]);
    const [restored] = findRegressions(
      [analysisOf(stepped, [stepAt(stepped, 10, 10, 20), stepAt(stepped, 20, 20, 15)])],
      [],
    );
    expect([restored!.persistent, restored!.changes[0]!.persistent]).toEqual([false, false]);
    expect(status(15.5)).toEqual(['open', undefined]);
    // restoreShare is an option: a quarter is enough at 0.25.
    const series = twoLevels(30, 10, [20, 20]);
    const changes = [stepAt(series, 10, 10, 20), stepAt(series, 20, 20, 17.5)];
    expect(
      findRegressions([analysisOf(series, changes)], [], { restoreShare: 0.25 })[0]!.status,
    ).toBe('restored');
    expect(findRegressions([analysisOf(series, changes)], [])[0]!.status).toBe('open');
  });

  it('never counts a later step the same way as a restore', () => {
    // It wins back a negative share of the first.
    const series = twoLevels(30, 10, [30, 30]);
    const worse = [stepAt(series, 10, 10, 20), stepAt(series, 20, 20, 30)];
    const regressions = findRegressions([analysisOf(series, worse)], []);
    expect(regressions.map((r) => [r.firstBad.index, r.status])).toEqual([
      [10, 'open'],
      [20, 'open'],
    ]);
  });

  it("takes an acceptance from the first bad night's own time, for its gate, benchmark and environment only", () => {
    const series = twoLevels(20, 10, [20, 20]);
    const analyses = [analysisOf(series, [stepAt(series, 10, 10, 20)])];
    const at = series.points[10]!.createdAt;
    const justBefore = new Date(Date.parse(at) - 1000).toISOString();
    const status = (mark: AcceptanceMark) => {
      const [regression] = findRegressions(analyses, [mark]);
      return [regression!.status, regression!.persistent, regression!.changes[0]!.acceptedBy?.at];
    };
    expect(status(acceptance(at))).toEqual(['accepted', false, at]);
    expect(status(acceptance(justBefore))[0]).toBe('open');
    expect(status(acceptance(at, { gateKey: 'other' }))[0]).toBe('open');
    expect(status(acceptance(at, { benchmark: 'b' }))[0]).toBe('open');
    expect(status(acceptance(at, { environmentKey: 'trn1' }))[0]).toBe('open');
    expect(status(acceptance(at, { reason: 'accept-after' }))[0]).toBe('open');
  });

  it('is open while one series is, else accepted while one is, else restored', () => {
    const a = twoLevels(30, 10, [20, 20], { metric: 'latency_p50' });
    const b = twoLevels(30, 10, [20, 20], { metric: 'latency_p99' });
    const accepted = acceptance(a.points[12]!.createdAt);
    const restoredIn = (series: Series) =>
      analysisOf(series, [stepAt(series, 10, 10, 20), stepAt(series, 20, 20, 10)]);
    const openIn = (series: Series) => analysisOf(series, [stepAt(series, 10, 10, 20)]);
    const statusOf = (analyses: SeriesAnalysis[], marks: AcceptanceMark[]) =>
      findRegressions(analyses, marks).map((r) => [r.status, r.changes.map((c) => c.status)]);
    expect(statusOf([restoredIn(a), openIn(b)], [])).toEqual([['open', ['restored', 'open']]]);
    expect(statusOf([restoredIn(a), openIn(b)], [accepted])).toEqual([
      ['accepted', ['restored', 'accepted']],
    ]);
    expect(statusOf([restoredIn(a), restoredIn(b)], [accepted])).toEqual([
      ['restored', ['restored', 'restored']],
    ]);
  });

  it('names each environment difference of its changes once, and never a runner change', () => {
    const sdk: FingerprintDifference = {
      field: 'neuronSdkVersion',
      label: 'Neuron SDK',
      baseline: '2.26.0',
      current: '2.27.0',
    };
    const compiler: FingerprintDifference = {
      field: 'compilerVersion',
      label: 'compiler',
      baseline: '2.19',
      current: '2.20',
    };
    const a = twoLevels(20, 10, [20, 20], { metric: 'latency_p50' });
    const b = twoLevels(20, 10, [20, 20], { metric: 'latency_p99' });
    const [regression] = findRegressions(
      [
        analysisOf(a, [stepAt(a, 10, 10, 20, { environmentChanges: [sdk] })]),
        analysisOf(b, [stepAt(b, 10, 10, 20, { environmentChanges: [sdk, compiler] })]),
      ],
      [],
    );
    expect(regression!.environmentChanges).toEqual([sdk, compiler]);
    const runner = stepAt(a, 10, 10, 20, { runnerChange: { from: 'r1', to: 'r2' } });
    expect(findRegressions([analysisOf(a, [runner])], [])).toEqual([]);
  });

  it('makes a regression per gate, oldest first, named by gate and first bad run', () => {
    const late = twoLevels(20, 12, [20, 20], { gateKey: 'late' });
    const early = twoLevels(20, 5, [20, 20], { gateKey: 'early' });
    const regressions = findRegressions(
      [analysisOf(late, [stepAt(late, 12, 10, 20)]), analysisOf(early, [stepAt(early, 5, 10, 20)])],
      [],
    );
    expect(regressions.map((r) => [r.id, r.gateKey, r.lastGood.runId])).toEqual([
      ['early@run-5', 'early', 'run-4'],
      ['late@run-12', 'late', 'run-11'],
    ]);
  });

  it('holds every open series of a benchmark out of the baseline together, and no other', () => {
    const p50 = twoLevels(20, 10, [20, 20], { metric: 'latency_p50' });
    const p99 = twoLevels(20, 15, [20, 20], { metric: 'latency_p99' });
    const other = twoLevels(20, 17, [20, 20], { benchmark: 'b' });
    const analyses = [
      analysisOf(p50, [stepAt(p50, 10, 10, 20)]),
      analysisOf(p99, [stepAt(p99, 15, 10, 20)]),
      analysisOf(other, [stepAt(other, 17, 10, 20)]),
    ];
    const held = heldOutRecords(findRegressions(analyses, []), analyses);
    expect([...held.keys()].sort()).toEqual(['a', 'b']);
    expect([...held.get('a')!].sort()).toEqual(
      p50.points
        .slice(10)
        .map((p) => p.path)
        .sort(),
    );
    expect([...held.get('b')!]).toEqual(other.points.slice(17).map((p) => p.path));
  });
});
