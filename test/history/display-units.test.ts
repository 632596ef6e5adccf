// `history` and the dashboard show each series in the unit its figures read best in, as
// the report does: a 350 ns micro-benchmark is "350 ns", not "0.00035 ms" or "0.000".
import { describe, expect, it } from 'vitest';
import { pageData } from '../../src/dashboard/page-data.js';
import { analyzeHistory } from '../../src/history/analyze.js';
import { renderHistoryText, renderRegressionMarkdown } from '../../src/history/render.js';
import type { Series } from '../../src/history/series.js';
import { makeSeries } from './make-series.js';

/** A micro-benchmark's nights in ms (around 0.00035 ms), 20% slower from night 30. */
function microSeries(): Series {
  const series = makeSeries({ nights: 40, level: (n) => (n >= 30 ? 1.2 : 1), seed: 'micro' });
  const scale = 3.5e-6; // makeSeries centres on 100
  return {
    ...series,
    unit: 'ms',
    points: series.points.map((p) => ({
      ...p,
      values: p.values.map((v) => v * scale),
      mean: p.mean * scale,
    })),
  };
}

describe('display units of history and the dashboard', () => {
  it('history prints the newest value and a change in ns', () => {
    const analysis = analyzeHistory({ series: [microSeries()], acceptances: [], skipped: 0 });
    const text = renderHistoryText(analysis, 'test');
    expect(text).toMatch(/newest 4\d\d\.\d ns;/);
    expect(analysis.regressions).toHaveLength(1);
    const markdown = renderRegressionMarkdown(analysis.regressions[0]!);
    expect(markdown).toMatch(/\| 3\d\d\.\d → 4\d\d\.\d ns \|/);
  });

  it('the dashboard data carries ns values and unit', () => {
    const data = pageData({
      title: 't',
      source: 's',
      generatedAt: '2026-01-01T00:00:00Z',
      series: [microSeries()],
      acceptances: [],
    });
    const [series] = data.series;
    expect(series?.unit).toBe('ns');
    expect(series?.v[0]).toBeGreaterThan(300);
    expect(series?.v[0]).toBeLessThan(400);
    expect(series?.lo[0]).toBeLessThanOrEqual(series!.v[0]!);
  });
});
