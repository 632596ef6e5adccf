// Two runs a gate run (a `vllm bench sweep` summary): the stored records of 2 runs lend
// the spread of their means (stats/history-spread.ts), so 2 current runs that scatter more
// than the stored runs do are no longer judged by Welch's interval at about 1 degree of
// freedom (nothing could fail); without a stored history the reason says how many runs
// would settle the change.
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { compareMetric } from '../../src/compare/compare.js';
import { GATE_FALSE_ALARM_RATE } from '../../src/config/defaults.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { changeInterval } from '../../src/stats/interval.js';
import { normal, seededRandom } from '../../src/stats/rng.js';
import { sampleVariance } from '../../src/stats/spread.js';

const IDS = ['throughput', 'ttft_p50', 'ttft_p99', 'tpot_p50', 'itl_p50', 'itl_p99', 'e2el_p50'];
const THRESHOLDS: Record<string, number> = {
  throughput: 0.05,
  ttft_p50: 0.05,
  ttft_p99: 0.15,
  tpot_p50: 0.05,
  itl_p50: 0.05,
  itl_p99: 0.15,
  e2el_p50: 0.05,
};

function metric(id: string, values: number[], extra: Partial<Metric> = {}): Metric {
  const higher = id === 'throughput';
  return {
    id,
    unit: higher ? 'requests/s' : 'ms',
    direction: higher ? 'higher-is-better' : 'lower-is-better',
    values,
    ...extra,
  };
}

/** `nights` stored records of 2 runs at run CV 2%, the newest `window` the baseline's window. */
function stored(id: string, nights: number, window: number, seed: string): Metric {
  const random = seededRandom(seed);
  const records = Array.from({ length: nights }, () =>
    [0, 1].map(() => 100 * Math.exp(0.02 * normal(random))),
  );
  const own = records.slice(0, window);
  const older = records.slice(window);
  return metric(id, own.flat(), {
    ...(own.length > 1 ? { records: own.map((r) => r.length) } : {}),
    ...(older.length > 0 ? { olderRecords: older } : {}),
  });
}

/** Two current runs every figure `worse` worse, `apart` from each other (log difference). */
function current(id: string, worse: number, apart: number): Metric {
  const level = 100 * (id === 'throughput' ? 1 / (1 + worse) : 1 + worse);
  return metric(id, [level * Math.exp(-apart / 2), level * Math.exp(apart / 2)]);
}

function judge(nights: number, window: number, apart: number) {
  const result = (metrics: Metric[]): BenchmarkResult => ({
    name: 'sweep',
    format: 'vllm-bench-serve',
    runs: [],
    metrics,
  });
  const [report] = judgeResults(
    [result(IDS.map((id) => current(id, 0.15, apart)))],
    {
      source: 'records',
      benchmarks: [result(IDS.map((id) => stored(id, nights, window, `stored/${id}`)))],
    },
    () => THRESHOLDS,
    { confidence: 0.95, failOnInconclusive: false, falseAlarmRate: GATE_FALSE_ALARM_RATE },
  );
  return report!;
}

describe('two current runs against stored records of two runs', () => {
  it('are judged by the spread of the record means, at their count less one degrees of freedom', () => {
    const baseline = stored('ttft_p50', 10, 5, 'shape');
    const interval = changeInterval(current('ttft_p50', 0, 0.01), baseline, {
      confidence: 0.95,
      seed: 's',
    });
    const means = [...[0, 2, 4, 6, 8].map((i) => baseline.values.slice(i, i + 2))]
      .concat(baseline.olderRecords!)
      .map((r) => (Math.log(r[0]!) + Math.log(r[1]!)) / 2);
    expect(interval.spread).toMatchObject({ df: 9, history: 10, historyRuns: 2, runs: 2 });
    expect(interval.spread!.se).toBeCloseTo(Math.sqrt(sampleVariance(means)! * (1 + 1 / 5)), 12);
  });

  it('fail every figure 15% worse even when the two runs lie 11% apart (a noisy host)', () => {
    // Before: the current runs scattered more than the stored ones (F test at 1%), so each
    // metric took Welch's interval at about 1 degree of freedom: −43% to +133%, inconclusive.
    const report = judge(10, 5, 0.11);
    expect(report.verdict).toBe('regression');
    const ttft = report.metrics.find((m) => m.id === 'ttft_p50')!;
    expect(ttft.verdict).toBe('regression');
    expect(ttft.ci![0]).toBeGreaterThan(0.05);
    expect(ttft.reason).toContain(
      '2 runs a side: the noise learned from the means of 10 stored records of 2 runs each',
    );
  });

  it('fail with the window alone (10 record files given to compare)', () => {
    const report = judge(10, 10, 0.11);
    expect(report.verdict).toBe('regression');
    const ttft = report.metrics.find((m) => m.id === 'ttft_p50')!;
    expect(ttft.verdict).toBe('regression');
    expect(ttft.reason).toContain('the means of 10 stored records of 2 runs each');
  });

  it('are judged by the runs when only one record is stored, and the reason says how many runs would settle it', () => {
    const report = judge(1, 1, 0.02);
    expect(report.verdict).toBe('pass');
    const ttft = report.metrics.find((m) => m.id === 'ttft_p50')!;
    expect(ttft.verdict).toBe('inconclusive');
    expect(ttft.reason).toMatch(
      /; 2 runs are few and no stored history lends its spread: \d+ current runs would settle a change this large \(95% of the time\)$/,
    );
  });

  it('says when no number of current runs would settle it against two baseline runs', () => {
    // A change barely beyond the threshold, with the baseline's 2 runs far apart: more
    // current runs leave the baseline's part of the noise where it is.
    const c = compareMetric(metric('ttft_p50', [106, 106.5]), metric('ttft_p50', [95, 105]), 0.05, {
      confidence: 0.95,
      seed: 's',
      testLevel: 0.0005,
    });
    expect(c.verdict).toBe('inconclusive');
    expect(c.reason).toContain('no number of current runs would settle it');
  });

  it('says how many runs would settle it for up to FEW_RUNS current runs, not for more', () => {
    const judgedWith = (current: number[]) =>
      compareMetric(
        metric('ttft_p50', current),
        metric('ttft_p50', [97, 103, 100, 99, 101]),
        0.05,
        {
          confidence: 0.95,
          seed: 's',
          testLevel: 0.0005,
        },
      );
    const two = judgedWith([107, 108]);
    expect(two.verdict).toBe('inconclusive');
    expect(two.reason).toMatch(
      /; 2 runs are few and no stored history lends its spread: \d+ current runs/,
    );
    const three = judgedWith([107, 108, 107.5]);
    expect(three.verdict).toBe('inconclusive');
    expect(three.reason).not.toContain('few and no stored history');
  });
});
