// Confidences and p-values as the comment, the summary and `history` print them: a test at
// 99.998% never reads as a "100% test", and a p-value says what the test can tell.
import { describe, expect, it } from 'vitest';
import { describeVerdict } from '../../src/compare/reason.js';
import { analyzeHistory } from '../../src/history/analyze.js';
import { renderHistoryText } from '../../src/history/render.js';
import type { Comparison } from '../../src/model.js';
import { metricsTable } from '../../src/report/metrics-table.js';
import { makeSeries } from '../history/make-series.js';

const inconclusive = {
  change: 0.12,
  ci: [0.02, 0.22] as [number, number],
  threshold: 0.05,
  verdict: 'inconclusive' as const,
  unit: 'ms',
  direction: 'lower-is-better' as const,
  method: 'student-t' as const,
};

describe('confidences in the report', () => {
  it("names the gate's test by its own confidence, never rounded up to 100%", () => {
    const reason = describeVerdict({ ...inconclusive, confidence: 0.95, testConfidence: 0.99998 });
    expect(reason).toContain("the gate's 99.998% test");
    expect(reason).not.toContain('100%');
  });

  it('heads the interval column with its own confidence', () => {
    const row: Comparison = {
      id: 'latency_p50',
      unit: 'ms',
      direction: 'lower-is-better',
      baseline: 100,
      current: 103,
      change: 0.03,
      ci: [0.02, 0.04],
      method: 'student-t',
      confidence: 0.99998,
      threshold: 0.05,
      verdict: 'unchanged',
      reason: '',
    };
    expect(metricsTable([row])).toMatch(/\| +99\.998% CI +\|/);
  });
});

describe('p-values in the history', () => {
  it('says a large step is at the least p its permutations can show, not "p 0.005"', () => {
    const series = makeSeries({ nights: 40, level: (n) => (n >= 30 ? 1.3 : 1), seed: 'big' });
    const analysis = analyzeHistory({ series: [series], acceptances: [], skipped: 0 });
    const step = analysis.analyses[0]!.changePoints.find((cp) => cp.detector === 'segmentation');
    expect(step?.pValue).toBeCloseTo(1 / 200, 12);
    const text = renderHistoryText(analysis, 'test');
    expect(text).toContain('p ≤ 0.005 (none of 199 permutations as large)');
    expect(text).not.toMatch(/p 0\.005/);
  });

  it('prints a tiny normal p-value as p < 0.001', () => {
    // A step in the newest nights is the tail detector's: a normal p-value.
    const series = makeSeries({ nights: 40, level: (n) => (n >= 38 ? 1.5 : 1), seed: 'tail' });
    const analysis = analyzeHistory({ series: [series], acceptances: [], skipped: 0 });
    const tail = analysis.analyses[0]!.changePoints.find((cp) => cp.detector !== 'segmentation');
    expect(tail?.pValue).toBeLessThan(0.001);
    expect(renderHistoryText(analysis, 'test')).toContain('p < 0.001');
  });
});
