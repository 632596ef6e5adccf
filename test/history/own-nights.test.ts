import { describe, expect, it } from 'vitest';
import { analyzeHistory } from '../../src/history/analyze.js';
import { openRegressionViews } from '../../src/history/open-regressions.js';
import { findRegressions, waitsForOneValueNights } from '../../src/history/regressions.js';
import { FEWEST_WINDOWS, standsBeyondOwnNights } from '../../src/history/own-nights.js';
import type { Series } from '../../src/history/series.js';
import { makeSeries, oneValueSeries as oneValue } from './make-series.js';

/** A change whose first bad night is `at`, its level the `nights` nights before it. */
const changeAt = (at: number, nights = at) => ({
  firstBad: { index: at } as never,
  before: { value: 1, nights, runs: nights },
});

describe('standsBeyondOwnNights', () => {
  it('holds the newest nights against every as long run of nights before them', () => {
    // Two slow nights now (−6%); the same history with two even slower nights long ago
    // (a stall on two nights in a row) shows that its nights stray that far unchanged.
    const slowNow = new Map([
      [58, 0.94],
      [59, 0.94],
    ]);
    const calm = oneValue({ nights: 60, outliers: slowNow, seed: 'own-calm' });
    const stalled = oneValue({
      nights: 60,
      outliers: new Map([...slowNow, [20, 0.93], [21, 0.93]]),
      seed: 'own-calm',
    });
    expect(standsBeyondOwnNights(calm, changeAt(58))).toBe(true);
    expect(standsBeyondOwnNights(stalled, changeAt(58))).toBe(false);
    // One stalled night long ago is no pair: the mean of two nights is what is compared.
    const once = oneValue({
      nights: 60,
      outliers: new Map([...slowNow, [20, 0.93]]),
      seed: 'own-calm',
    });
    expect(standsBeyondOwnNights(once, changeAt(58))).toBe(true);
  });

  it('leaves replicated series and histories too short to tell to the night model', () => {
    const last = FEWEST_WINDOWS + 2;
    const outliers = new Map([
      [10, 0.9],
      [11, 0.9],
      [last - 1, 0.94],
      [last, 0.94],
    ]);
    const short = oneValue({ nights: last + 1, outliers, seed: 'own-short' });
    // FEWEST_WINDOWS runs of two nights before the change: judged, and the pair of
    // nights 10 and 11 went farther; one night fewer to judge by: not judged.
    expect(standsBeyondOwnNights(short, changeAt(last - 1))).toBe(false);
    expect(standsBeyondOwnNights(short, changeAt(last - 1, last - 2))).toBe(true);
    // Three runs a night: the runs say how far a night strays; not judged here.
    const replicated = {
      ...short,
      points: makeSeries({ nights: last + 1, runs: 3, outliers, seed: 'own-short' }).points,
    };
    expect(standsBeyondOwnNights(replicated, changeAt(last - 1))).toBe(true);
  });
});

describe('one value a night: which regressions open an issue', () => {
  /** Whether the history up to `nights` nights asks for an issue on a regression near `at`. */
  const asksForIssue = (series: Series, nights: number, at: number) =>
    analyzeHistory({
      series: [{ ...series, points: series.points.slice(0, nights) }],
      acceptances: [],
      skipped: 0,
    }).regressions.some((r) => r.persistent && Math.abs(r.firstBad.index - at) <= 2);

  it('opens none for slow nights as the history has seen before, and one for a real step on its fourth night', () => {
    // Four nights 7% slow now: a regression past the 5% threshold, found by the history.
    const slowNow = new Map([76, 77, 78, 79].map((n) => [n, 0.93]));
    const alone = oneValue({ nights: 80, outliers: slowNow, seed: 'own-fours' });
    const found = analyzeHistory({ series: [alone], acceptances: [], skipped: 0 });
    expect(found.regressions.map((r) => [r.firstBad.index, r.persistent])).toEqual([[76, true]]);
    // On its third night it is a regression already, but asks for no issue yet.
    const third = analyzeHistory({
      series: [{ ...alone, points: alone.points.slice(0, 79) }],
      acceptances: [],
      skipped: 0,
    });
    expect(third.regressions.map((r) => [r.firstBad.index, r.persistent])).toEqual([[76, false]]);
    // The same change on a history that went 8% slow for four nights twice before (a
    // stall each night, or a drift's low): within its own spread, no issue.
    const stalls = new Map<number, number>();
    for (const n of [20, 50]) for (let k = 0; k < 4; k += 1) stalls.set(n + k, 0.92);
    const seen = oneValue({
      nights: 80,
      outliers: new Map([...stalls, ...slowNow]),
      seed: 'own-fours',
    });
    const [regression] = findRegressions([{ ...found.analyses[0]!, series: seen }], []);
    expect(regression?.persistent).toBe(false);
    // A real 10% loss from night 74 on is farther than any four nights before it went,
    // and asks for its issue on its fourth night, not its third.
    const stepped = oneValue({
      nights: 80,
      outliers: stalls,
      level: (n) => (n >= 74 ? 0.9 : 1),
      seed: 'own-fours',
    });
    expect(asksForIssue(stepped, 77, 74)).toBe(false);
    expect(asksForIssue(stepped, 78, 74)).toBe(true);
  });
});

describe('a regression that waits for its nights says how many', () => {
  const slowNow = new Map([76, 77, 78, 79].map((n) => [n, 0.93]));
  /** The open regression of a 7% loss from night 76 on, on night `last`, and its view. */
  const openOn = (series: Series, last: number) => {
    const analysis = analyzeHistory({
      series: [{ ...series, points: series.points.slice(0, last + 1) }],
      acceptances: [],
      skipped: 0,
    });
    expect(analysis.regressions.map((r) => r.firstBad.index)).toEqual([76]);
    return { regression: analysis.regressions[0]!, view: openRegressionViews(analysis)[0]! };
  };

  it('four with one value a night', () => {
    const series = oneValue({ nights: 80, outliers: slowNow, seed: 'own-fours' });
    // Its third night: no issue yet.
    const { regression, view } = openOn(series, 78);
    expect(regression.persistent).toBe(false);
    expect(regression.changes.map((c) => c.oneValueANight)).toEqual([true]);
    expect(waitsForOneValueNights(regression)).toBe(true);
    expect(view.oneValueANight).toBe(true);
  });

  it('two, and nothing of four, with runs a night', () => {
    const plan = { nights: 80, runs: 3, runCv: 0.01, outliers: slowNow, seed: 'own-fours' };
    const series = { ...makeSeries({ ...plan, direction: 'higher-is-better' }), threshold: 0.05 };
    const { regression, view } = openOn(series, 77);
    expect(regression.changes.map((c) => c.oneValueANight)).toEqual([undefined]);
    expect(waitsForOneValueNights(regression)).toBe(false);
    expect(view).not.toHaveProperty('oneValueANight');
  });
});
