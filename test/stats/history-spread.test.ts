// One value a gate run: the stored single-value records teach the noise a new value is
// judged by (history-spread.ts), instead of a bare threshold.
import { describe, expect, it } from 'vitest';
import { historySpread } from '../../src/stats/history-spread.js';
import { changeInterval } from '../../src/stats/interval.js';
import type { Metric } from '../../src/model.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

const WINDOW = 5;
const OLDER = 15;

/** A one-value series: the window's records and the older ones, then the new value. */
function series(cv: number, step: number, seed: string) {
  const random = seededRandom(seed);
  const draw = () => 100 * Math.exp(cv * normal(random));
  const window = Array.from({ length: WINDOW }, draw);
  const older = Array.from({ length: OLDER }, () => [draw()]);
  const current = draw() * (1 + step);
  const metric = (values: number[]): Metric => ({
    id: 'latency_p50',
    unit: 'ms',
    direction: 'lower-is-better',
    values,
  });
  return {
    current: metric([current]),
    baseline: { ...metric(window), records: window.map(() => 1), olderRecords: older },
  };
}

/** Share of series whose one-sided `level` test calls the new value slower. */
function failRate(cv: number, step: number, level: number, trials: number, seed: string) {
  let failed = 0;
  for (let i = 0; i < trials; i += 1) {
    const { current, baseline } = series(cv, step, `${seed}/${i}`);
    const { ci } = changeInterval(current, baseline, { confidence: 1 - 2 * level, seed: 's' });
    if (ci !== null && ci[0] > 0) failed += 1;
  }
  return failed / trials;
}

describe('a new value against single-value records', () => {
  it('gets an interval from the records, with their count as its degrees of freedom', () => {
    const { current, baseline } = series(0.03, 0, 'shape');
    const interval = changeInterval(current, baseline, { confidence: 0.95, seed: 's' });
    expect(interval.method).toBe('student-t');
    expect(interval.spread).toMatchObject({ df: WINDOW + OLDER - 1, history: WINDOW + OLDER });
  });

  it('holds its level on unchanged code (1% one-sided: 0.6–1.5% of 4,000 series)', () => {
    const rate = failRate(0.03, 0, 0.01, 4000, 'null');
    expect(rate).toBeGreaterThan(0.006);
    expect(rate).toBeLessThan(0.015);
  });

  it('finds a step of four times the noise most of the time, where a 10% bare threshold fires at random', () => {
    expect(failRate(0.03, 0.12, 0.01, 1000, 'step')).toBeGreaterThan(0.7);
    // The bare rule on the same unchanged series: a 5% run CV crosses 10% often.
    let bare = 0;
    for (let i = 0; i < 2000; i += 1) {
      const { current, baseline } = series(0.05, 0, `bare/${i}`);
      const before = baseline.values.reduce((s, v) => s + v, 0) / baseline.values.length;
      if (current.values[0]! / before - 1 > 0.1) bare += 1;
    }
    expect(bare / 2000).toBeGreaterThan(0.02);
  });
});

describe('historySpread: which stored records teach the noise', () => {
  // Values as the interval passes them (logs); records newest first.
  it('takes one-value records, window and older, and widens by the window mean’s own error', () => {
    const spread = historySpread([0], [[1], [2]], [[3]])!;
    // Record means 1, 2, 3: variance 1 on 2 degrees of freedom; the window holds 2 records.
    expect(spread).toEqual({ se: Math.sqrt(1 + 1 / 2), df: 2, perRun: 1, runs: 1, history: 3 });
  });

  it('needs MIN_HISTORY_RECORDS records, a window of two and records the size of the current side', () => {
    expect(historySpread([0], [[1], [2]], [])).toBeUndefined();
    expect(historySpread([0], [[1]], [[2], [3], [4]])).toBeUndefined();
    expect(historySpread([], [[1], [2]], [[3]])).toBeUndefined();
    expect(
      historySpread(
        [0, 0, 0],
        [
          [1, 1, 1],
          [2, 2, 2],
        ],
        [[3, 3, 3]],
      ),
    ).toBeUndefined();
    expect(historySpread([0], [[1], [2, 2]], [[3]])).toBeUndefined();
    // One value a side: a nightly record of 24 runs among them ends the one-value series.
    expect(historySpread([0], [[1], [2]], [[3], Array(24).fill(4)])).toBeUndefined();
  });

  it('with 2 runs a side, leaves other-sized older records out and pools the spread within records', () => {
    const nightly = Array.from({ length: 24 }, (_, i) => i);
    const spread = historySpread(
      [0, 0],
      [
        [1, 2],
        [2, 3],
      ],
      [nightly, [3, 4]],
    )!;
    // Means 1.5, 2.5, 3.5 (variance 1); within each record 0.5: what more runs would shrink.
    expect(spread).toEqual({
      se: Math.sqrt(1 + 1 / 2),
      df: 2,
      perRun: 0.5,
      runs: 2,
      history: 3,
      historyRuns: 2,
    });
    // Never more than the whole variance of a 2-run mean (1 × 2 runs).
    expect(
      historySpread(
        [0, 0],
        [
          [0, 4],
          [1, 5],
        ],
        [[2, 6]],
      )!.perRun,
    ).toBe(2);
  });
});
