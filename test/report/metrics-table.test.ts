import { describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/model.js';
import { metricsTable, verdictReasons } from '../../src/report/metrics-table.js';

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
