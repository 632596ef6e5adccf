// Day-to-day drift between the baseline's records: reference values of the random-effects
// spread (worked with numpy/scipy), record bounds kept through mergeByName, and coverage
// simulated with fixed seeds on a noise model where each record and the pull request
// fall on their own day.
import { describe, expect, it } from 'vitest';
import { mergeByName } from '../../src/baseline/result-files.js';
import { compareMetric } from '../../src/compare/compare.js';
import type { Metric } from '../../src/model.js';
import { dayAnova, driftSpread, driftTestLevel } from '../../src/stats/day-drift.js';
import { changeInterval } from '../../src/stats/interval.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import { recordResult } from './record-result.js';

function metric(logs: number[], records?: number[]): Metric {
  return {
    id: 'latency_p50',
    unit: 'ms',
    direction: 'lower-is-better',
    values: logs.map(Math.exp),
    ...(records ? { records } : {}),
  };
}

describe('the spread of a change when the baseline records drift', () => {
  it('adds the day-to-day variance with Satterthwaite degrees of freedom (numpy/scipy reference)', () => {
    // MSW 1e-4 on 10 df, MSB 5.2e-3 on 3 df: F = 52 (p 2e-6); τ² = (MSB − MSW) / 3 = 1.7e-3.
    const records = [
      [0, 0.01, -0.01],
      [0.06, 0.07, 0.05],
      [-0.04, -0.03, -0.05],
      [0.02, 0.03, 0.01],
    ];
    const spread = driftSpread([0.1, 0.11, 0.09], records)!;
    expect(spread.se).toBeCloseTo(0.04654746681256314, 12);
    expect(spread.df).toBeCloseTo(2.9993344672040227, 9);
  });

  it('leaves records that differ no more than their runs to the pooled spread', () => {
    const records = [
      [0, 0.01, -0.01],
      [0.005, 0.015, -0.005],
      [-0.005, 0.005, -0.015],
    ];
    expect(driftSpread([0.1, 0.11, 0.09], records)).toBeUndefined();
    const current = metric([0.1, 0.11, 0.09]);
    const options = { confidence: 0.95, seed: 's' };
    const withBounds = changeInterval(current, metric(records.flat(), [3, 3, 3]), options);
    expect(withBounds.drift).toBeUndefined();
    expect(withBounds).toEqual(changeInterval(current, metric(records.flat()), options));
  });

  it('says so in the row when the drift widened the interval', () => {
    const records = [
      [0, 0.01, -0.01],
      [0.06, 0.07, 0.05],
      [-0.04, -0.03, -0.05],
      [0.02, 0.03, 0.01],
    ];
    const c = compareMetric(metric([0.1, 0.11, 0.09]), metric(records.flat(), [3, 3, 3, 3]), 0.05, {
      confidence: 0.95,
      seed: 's',
    });
    expect(c.reason).toContain('the interval includes that day-to-day drift');
    // 4 records: about 3 degrees of freedom, so a 10% change is not yet clear.
    expect(c.verdict).toBe('inconclusive');
  });

  it('needs two records', () => {
    expect(driftSpread([0.1, 0.2], [[0, 0.5, 1]])).toBeUndefined();
  });

  it('needs runs to tell the days from, and reads an empty record as none', () => {
    // One value a record and one current run: no run-to-run variance to weigh the days by.
    expect(driftSpread([0.1], [[0], [0.06], [-0.04], [0.02]])).toBeUndefined();
    const records = [
      [0, 0.01, -0.01],
      [0.06, 0.07, 0.05],
      [-0.04, -0.03, -0.05],
    ];
    expect(driftSpread([0.1, 0.11], [...records, []])).toEqual(driftSpread([0.1, 0.11], records));
    expect(driftSpread([0.1, 0.11], [[], [0.02, 0.03]], records)).toEqual(
      driftSpread([0.1, 0.11], [[0.02, 0.03]], records),
    );
  });

  it('learns the drift from older records when the window holds a single run', () => {
    const older = [
      [0.06, 0.07, 0.05],
      [-0.04, -0.03, -0.05],
      [0.02, 0.03, 0.01],
    ];
    const spread = driftSpread([0.1, 0.11, 0.09], [[0]], older)!;
    expect(spread.drift).toBe(true);
    // The baseline's mean is of its one run: its share of the day-to-day variance is whole.
    expect(spread.dayPart).toBeCloseTo(2 * spread.dayVariance!, 12);
  });

  it('tests for drift at 5% below 10 records and at 1% from 10 on', () => {
    expect(driftTestLevel(2)).toBe(0.05);
    expect(driftTestLevel(9)).toBe(0.05);
    expect(driftTestLevel(10)).toBe(0.01);
    expect(driftTestLevel(40)).toBe(0.01);
  });
});

describe('coverage under day-to-day drift, simulated with fixed seeds', () => {
  /** 5 records × 3 runs on days ±2% (CV), runs ±1.5%; the pull request's 3 runs on a sixth day. */
  function trial(random: ReturnType<typeof seededRandom>, shift: number) {
    const day = () => 0.02 * normal(random);
    const runs = (n: number, level: number) =>
      Array.from({ length: n }, () => level + 0.015 * normal(random));
    const baseline = Array.from({ length: 5 }, () => runs(3, day())).flat();
    const current = runs(3, shift + day());
    return { current, baseline };
  }

  function coverage(withRecords: boolean, driftless = false) {
    const random = seededRandom(`drift coverage ${driftless}`);
    let covered = 0;
    const trials = 2000;
    for (let i = 0; i < trials; i += 1) {
      const { current, baseline } = driftless
        ? {
            current: Array.from({ length: 3 }, () => 0.05 + 0.015 * normal(random)),
            baseline: Array.from({ length: 15 }, () => 0.015 * normal(random)),
          }
        : trial(random, 0.05);
      const { ci } = changeInterval(
        metric(current),
        metric(baseline, withRecords ? [3, 3, 3, 3, 3] : undefined),
        { confidence: 0.95, seed: `${i}` },
      );
      const truth = Math.expm1(0.05);
      if (ci![0] <= truth && truth <= ci![1]) covered += 1;
    }
    return covered / trials;
  }

  it('holds the true change far more often when the records are known', () => {
    // 90.6% with this seed (the 5% F test misses the drift of the baselines whose days
    // happened to agree); binomial sd 0.7% at 2000 trials. Pooled as one record: 76%.
    expect(coverage(true)).toBeGreaterThan(0.895);
  });

  it('holds it far less often when the records are pooled as one (the drift is hidden)', () => {
    expect(coverage(false)).toBeLessThan(0.88);
  });

  it('still holds it about 95% of the time, not much more, when nothing drifts', () => {
    const covered = coverage(true, true);
    expect(covered).toBeGreaterThan(0.94);
    expect(covered).toBeLessThan(0.975);
  });
});

describe('mergeByName', () => {
  it('keeps how many values each record brought, so that drift between records can be seen', () => {
    const [merged] = mergeByName([
      recordResult({ latency_p50: [1, 2, 3], throughput: [4, 5, 6] }),
      recordResult({ latency_p50: [7, 8] }),
      recordResult({ latency_p50: [9, 10, 11], throughput: [12] }),
    ]);
    const p50 = merged!.metrics.find((m) => m.id === 'latency_p50')!;
    expect(p50.values).toEqual([1, 2, 3, 7, 8, 9, 10, 11]);
    expect(p50.records).toEqual([3, 2, 3]);
    expect(merged!.metrics.find((m) => m.id === 'throughput')!.records).toEqual([3, 1]);
  });

  it('leaves a single record without bounds', () => {
    const [single] = mergeByName([recordResult({ latency_p50: [1, 2, 3] })]);
    expect(single!.metrics[0]!.records).toBeUndefined();
  });
});

describe('the analysis of variance of runs within records', () => {
  it('pools the runs within records, older ones and the current runs, on records of any size', () => {
    // Worked by hand: means 2, 5, 4 around 11/3 (of 6 runs); within 2 + 0 + 8 + 0.5.
    const anova = dayAnova([1, 2], [[1, 3], [5]], [[2, 4, 6]])!;
    expect(anova.msw).toBeCloseTo(10.5 / 4, 12);
    expect(anova.dfWithin).toBe(4);
    expect(anova.msb).toBeCloseTo(3.75, 12);
    expect(anova.records).toBe(3);
    // n0 = (N − Σ n_r² / N) / (R − 1) = (6 − 14/6) / 2.
    expect(anova.n0).toBeCloseTo(11 / 6, 12);
    // Only the baseline's own records (3 runs, of 2 and 1) in its mean's factors.
    expect(anova.dayFactor).toBeCloseTo(1 + 5 / 9, 12);
    expect(anova.runFactor).toBeCloseTo(1 / 2 + 1 / 3, 12);
  });

  it('needs two records, a baseline run, a current run and one run-to-run degree of freedom', () => {
    expect(dayAnova([1, 2], [[1], [3]])).toMatchObject({ records: 2, dfWithin: 1 });
    expect(dayAnova([1, 2], [[1, 3]])).toBeUndefined();
    expect(dayAnova([1, 2], [[], []], [[1], [3]])).toBeUndefined();
    expect(
      dayAnova(
        [],
        [
          [1, 2],
          [3, 4],
        ],
      ),
    ).toBeUndefined();
    expect(dayAnova([1], [[1], [3]])).toBeUndefined();
    expect(dayAnova([1], [[1], [3]], [[], [2, 4]])).toMatchObject({ records: 3, dfWithin: 1 });
  });
});
