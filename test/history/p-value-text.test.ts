// A change point's p-value reads the same in `history` and on the dashboard: a resampled
// split at its floor is "p ≤ 0.005", never a measured-looking "p 0.0050".
import { describe, expect, it } from 'vitest';
import { changeMarks } from '../../src/dashboard/change-marks.js';
import { analyzeHistory } from '../../src/history/analyze.js';
import { DEFAULT_DETECT_OPTIONS } from '../../src/history/changepoints.js';
import { pValueText } from '../../src/history/p-value-text.js';
import { renderHistoryText } from '../../src/history/render.js';
import { makeSeries } from './make-series.js';

const floor = 1 / (DEFAULT_DETECT_OPTIONS.permutations + 1);

describe('pValueText', () => {
  it('reads a segmentation split at the permutations floor as an upper bound', () => {
    expect(pValueText({ detector: 'segmentation', pValue: floor })).toBe(
      `p ≤ ${floor.toFixed(3)} (none of ${DEFAULT_DETECT_OPTIONS.permutations} permutations as large)`,
    );
  });
  it('reads a tiny normal p-value as "p < 0.001" and others to three decimals', () => {
    expect(pValueText({ detector: 'tail', pValue: 2e-7 })).toBe('p < 0.001');
    expect(pValueText({ detector: 'segmentation', pValue: 0.0234 })).toBe('p 0.023');
  });
  it('is what both history and the dashboard show for a large step', () => {
    const series = makeSeries({ nights: 40, level: (n) => (n >= 30 ? 1.2 : 1), seed: 'p-text' });
    const analysis = analyzeHistory({ series: [series], acceptances: [], skipped: 0 });
    const step = analysis.analyses[0]!.changePoints[0]!;
    const text = pValueText(step);
    expect(renderHistoryText(analysis, 'test')).toContain(text);
    const [mark] = changeMarks(analysis).changes;
    expect(mark!.label).toContain(text);
    expect(mark!.label).not.toMatch(/p 0\.00\d\d/);
  });
});
