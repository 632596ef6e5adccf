// The overview table at the top of a report of several benchmarks.
import { describe, expect, it } from 'vitest';
import { overviewTable, worstChangeText } from '../../src/report/overview-table.js';
import { benchmark, cells, comparison } from './support.js';

describe('the overview table', () => {
  it('names the worst regressed metric beside a regression, not a worse inconclusive one', () => {
    const regressed = benchmark('a', { throughput: -0.08 });
    regressed.metrics.push(
      comparison('latency_mean', 0.083, { verdict: 'inconclusive', threshold: 0.05 }),
    );
    expect(worstChangeText(regressed)).toBe('throughput −8.0%');
    // Without a regression: the metric nearest its threshold, whichever way it points.
    expect(worstChangeText(benchmark('b', { latency_p50: 0.03, throughput: -0.01 }))).toBe(
      'latency_p50 +3.0%',
    );
  });

  it('lists every benchmark up to 30, then only those that need attention and a count', () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      benchmark(`b${i}`, i === 33 ? { throughput: -0.2 } : {}),
    );
    const rows = overviewTable(many)!.split('\n').slice(2).map(cells);
    expect(rows.map((row) => row[0]!.trim())).toEqual(['b33', '39 more']);
    expect(rows[1]![1]!.trim()).toBe('✅ pass × 39');
    // Benchmarks without a baseline have nothing to open: they are counted by verdict.
    const first = many.map((b) => ({ ...b, verdict: 'no-baseline' as const }));
    const counted = overviewTable(first)!.split('\n').slice(2).map(cells);
    expect(counted.map((row) => row[1]!.trim())).toEqual(['🆕 no baseline', '🆕 no baseline × 39']);
    expect(overviewTable(many.slice(0, 30))!.split('\n')).toHaveLength(32);
    expect(overviewTable(many.slice(0, 1))).toBeUndefined();
  });
});
