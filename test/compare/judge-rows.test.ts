// The rows and warnings judgeResults adds around the compared metrics (src/compare/judge.ts):
// metrics a result file has as not measured, and a benchmark none of whose metrics is gated.
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';

const OPTIONS = { confidence: 0.95, failOnInconclusive: false };
const metric = (id: string, values: number[]): Metric => ({
  id,
  unit: 'ms',
  direction: 'lower-is-better',
  values,
});
const result = (metrics: Metric[], extra: Partial<BenchmarkResult> = {}): BenchmarkResult => ({
  name: 'bench',
  format: 'custom-smaller-is-better',
  metrics,
  runs: [],
  ...extra,
});
const NAN_NOTE = { reason: 'NaN in the file', unit: 'ms', direction: 'lower-is-better' as const };

describe('metrics a result file has as not measured', () => {
  it('are missing with the file’s reason, whether or not the baseline has them, and never fail', () => {
    const current = result([metric('ttft', [10, 10.2, 9.9])], {
      notMeasured: { itl: NAN_NOTE, tpot: NAN_NOTE },
    });
    const stored = result([metric('ttft', [10, 10.1, 9.9]), metric('itl', [5, 5.1, 4.9])]);
    const [report] = judgeResults(
      [current],
      { source: 'b', benchmarks: [stored] },
      () => ({ tpot: 0.05 }),
      OPTIONS,
    );
    const row = (id: string) => report!.metrics.find((m) => m.id === id)!;
    // In the baseline: its row turns missing, with why.
    expect(row('itl')).toMatchObject({
      verdict: 'missing',
      reason: 'not measured: NaN in the file',
    });
    // Not in the baseline: a row of its own, with the threshold it would have had.
    expect(row('tpot')).toMatchObject({
      verdict: 'missing',
      reason: 'not measured: NaN in the file',
      threshold: 0.05,
      current: null,
      baseline: null,
    });
    expect(report!.metrics.filter((m) => m.id === 'itl')).toHaveLength(1);
    expect(row('ttft').verdict).not.toBe('missing');
    expect(report!.verdict).toBe('pass');
  });
});

describe('a benchmark none of whose metrics is gated', () => {
  it('names every metric measured on either side, and none measured on neither', () => {
    const current = result([metric('ttft', [10, 10.2, 9.9]), metric('fresh', [3, 3.1, 2.9])], {
      notMeasured: { itl: NAN_NOTE },
    });
    const stored = result([metric('ttft', [10, 10.1, 9.9])]);
    const [report] = judgeResults(
      [current],
      { source: 'b', benchmarks: [stored] },
      () => ({ default: 0 }),
      OPTIONS,
    );
    const warning = report!.warnings.find((w) => w.startsWith('no metric of this benchmark'));
    expect(warning).toMatch(/^no metric of this benchmark is gated \(ttft, fresh all have/);
  });

  it('says nothing while one metric is gated', () => {
    const current = result([metric('ttft', [10, 10.2, 9.9]), metric('fresh', [3, 3.1, 2.9])]);
    const [report] = judgeResults(
      [current],
      { source: 'b', benchmarks: [result([metric('ttft', [10, 10.1, 9.9])])] },
      () => ({ default: 0, fresh: 0.1 }),
      OPTIONS,
    );
    expect(report!.warnings.join('\n')).not.toContain('no metric of this benchmark is gated');
    // Nor anything else in its place: a gated benchmark of plain runs has no warning.
    expect(report!.warnings).toEqual([]);
  });
});
