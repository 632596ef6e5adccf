// One value a gate run: the stored single-value records teach the noise a new value is
// judged by (history-spread.ts), instead of a bare threshold.
import { describe, expect, it } from 'vitest';
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
