import { describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/model.js';
import { compareMetric } from '../../src/compare/compare.js';
import { basisLegend, metricsTable, verdictReasons } from '../../src/report/metrics-table.js';

const row = (over: Partial<Comparison>): Comparison => ({
  id: 'latency_p50',
  unit: 'ms',
  direction: 'lower-is-better',
  baseline: 100,
  current: 103,
  change: 0.03,
  ci: [0.02, 0.04],
  method: 'student-t',
  confidence: 0.95,
  threshold: 0.05,
  verdict: 'unchanged',
  reason: '',
  ...over,
});

describe('the verdict cell', () => {
  it('says within threshold for a real change (interval excludes zero) below the threshold', () => {
    expect(metricsTable([row({})])).toContain('✅ within threshold');
  });

  it('says at threshold, never unchanged, for a change that reads as the threshold itself', () => {
    // A P99 15% slower against a 15% threshold, one value a side (no interval): no regression.
    const at = row({ id: 'latency_p99', current: 115, change: 0.15, ci: null, threshold: 0.15 });
    const table = metricsTable([at]);
    expect(table).toContain('+15.0%');
    expect(table).toContain('✅ at threshold, not beyond');
    expect(table).not.toContain('unchanged');
    expect(metricsTable([{ ...at, current: 114, change: 0.14 }])).toContain('✅ unchanged');
    // Far beyond on the better side, with no interval: not "at" anything.
    const gone = metricsTable([{ ...at, current: 0, change: -1, threshold: 0.01 }]);
    expect(gone).toContain('✅ unchanged');
  });

  it('says unchanged when the interval includes no change', () => {
    const table = metricsTable([row({ ci: [-0.01, 0.04] })]);
    expect(table).toContain('✅ unchanged');
    expect(table).not.toContain('within threshold');
  });

  it('says not judged, with the reason, when a side is 0 or negative (no relative change)', () => {
    const delta = row({
      id: 'dropped_logs_delta',
      unit: 'logs',
      baseline: 4,
      current: -3,
      change: null,
      ci: null,
      method: 'none',
      reason: 'a side is negative (a delta), so a relative change is undefined; shown, not judged',
    });
    const table = metricsTable([delta]);
    expect(table).toContain('➖ not judged');
    expect(table).not.toContain('✅');
    expect(verdictReasons([delta])).toContain('a side is negative (a delta)');
  });
});

describe('what Change is computed from', () => {
  /** Baseline, Current and Change of the table's one row, as numbers. */
  function figures(table: string): { baseline: number; current: number; change: number } {
    const cells = table
      .split('\n')[2]!
      .split('|')
      .map((cell) => cell.trim());
    const number = (text: string) => Number(text.replace('−', '-').replace(/[+%,]/g, ''));
    return {
      baseline: number(cells[2]!),
      current: number(cells[3]!),
      change: number(cells[4]!) / 100,
    };
  }

  it('shows the figures the change is the ratio of: Current ÷ Baseline − 1 is the Change', () => {
    // One slow baseline run: the medians (100 and 100) say no change, the geometric
    // means the interval is built on say 6% faster.
    const compared = compareMetric(
      {
        id: 'latency_p50',
        unit: 'ms',
        direction: 'lower-is-better',
        values: [100, 101, 99, 100, 100],
      },
      {
        id: 'latency_p50',
        unit: 'ms',
        direction: 'lower-is-better',
        values: [100, 101, 99, 140, 100],
      },
      0.05,
      { confidence: 0.95, seed: 's' },
    );
    expect(compared.baseline).toBe(100);
    expect(compared.change).toBeLessThan(-0.05);
    const shown = figures(metricsTable([compared]));
    expect(shown.current / shown.baseline - 1).toBeCloseTo(shown.change, 3);
    expect(basisLegend([compared])).toContain("the geometric mean of each side's runs");
  });

  it('names which rows are what when estimators differ, and says a paired change is no ratio', () => {
    const legend = basisLegend([
      row({ basis: { estimator: 'geometric-mean', baseline: 100, current: 103 } }),
      row({
        id: 'latency_p99',
        basis: { estimator: 'request-percentile', baseline: 1, current: 1 },
      }),
      row({ id: 'throughput', method: 'paired-t' }),
    ]);
    expect(legend).toContain("the geometric mean of each side's runs (latency_p50)");
    expect(legend).toContain("the percentile of each side's requests (latency_p99)");
    expect(legend).toContain('A/B (throughput): Change is the mean of each block');
    // Rows whose change is the plain ratio of the sides' figures need no legend.
    expect(basisLegend([row({ method: 'none', ci: null })])).toBeUndefined();
  });
});
