// A benchmark whose every gated metric went unmeasured (a sweep's capacity when the SLO
// fails at the lowest load already) neither passes nor fails: the overview, its heading or
// summary, the sweep ranking and the headline read "not measured" with why, never "pass".
// Judged by the real judge, so the verdict it stores (`pass`, which fails nothing) is the
// one the report must not show as a pass.
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { nothingMeasured } from '../../src/compare/nothing-measured.js';
import type { BenchmarkReport, BenchmarkResult } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { benchmark, cells, reportOf } from './support.js';

const REASON =
  'the SLO fails at the lowest load of the sweep already (request_rate 1): the capacity is below it; add lower loads to the sweep';

/** A sweep's capacity whose SLO failed at the lowest load, as derive/capacity.ts leaves it. */
const unmeasuredCapacity: BenchmarkResult = {
  name: 'serve/capacity',
  source: 'serve',
  format: 'capacity',
  metrics: [],
  runs: [],
  notMeasured: {
    capacity: { reason: REASON, unit: 'requests/s', direction: 'higher-is-better' },
  },
};

/** The same capacity as the baseline measured it. */
const storedCapacity: BenchmarkResult = {
  ...unmeasuredCapacity,
  notMeasured: {},
  metrics: [
    { id: 'capacity', unit: 'requests/s', direction: 'higher-is-better', values: [5.1, 5.3, 5.2] },
  ],
};

function judged(withBaseline: boolean): BenchmarkReport {
  const baseline = withBaseline
    ? { source: 'perf-gate-data', benchmarks: [storedCapacity] }
    : undefined;
  const [report] = judgeResults([unmeasuredCapacity], baseline, () => ({}), {
    confidence: 0.95,
    failOnInconclusive: false,
  });
  return report!;
}

/** The overview table's row of `name`, as cells. */
function overviewRow(comment: string, name: string): string[] {
  const line = comment.split('\n').find((l) => l.startsWith(`| ${name} `));
  expect(line, `no overview row for ${name}`).toBeDefined();
  return cells(line!).map((cell) => cell.trim());
}

describe('a benchmark whose only gated metric was not measured', () => {
  it('is judged pass, which fails nothing, with the metric gated and missing', () => {
    const capacity = judged(true);
    expect(capacity.verdict).toBe('pass');
    expect(capacity.metrics).toHaveLength(1);
    expect(capacity.metrics[0]).toMatchObject({
      id: 'capacity',
      current: null,
      verdict: 'missing',
    });
    expect(capacity.metrics[0]!.threshold).toBeGreaterThan(0);
    expect(nothingMeasured(capacity)).toEqual([{ id: 'capacity', reason: REASON }]);
  });

  it('reads "not measured" with why in the overview, its summary and the headline, never "pass"', () => {
    const variant = benchmark('serve/rate-1');
    const report = reportOf([variant, judged(true)]);
    expect(report.verdict).toBe('pass');
    const comment = renderComment(report);

    const [, verdict, why] = overviewRow(comment, 'serve/capacity');
    expect(verdict).toBe('⚪ not measured');
    expect(why).toContain('capacity: the SLO fails at the lowest load of the sweep already');
    expect(overviewRow(comment, 'serve/rate-1')[1]).toBe('✅ pass');

    // Folded under the overview, open: it needs a look.
    expect(comment).toContain(
      '<details open><summary><b>serve/capacity</b> — ⚪ not measured · capacity: the SLO fails at the lowest load',
    );
    expect(comment).toContain('⚪ **Not measured**, neither a pass nor a regression');
    expect(comment).not.toMatch(/serve\/capacity<\/b> — ✅/);
    // The pass rests on the variant alone, and the headline says what was not measured.
    expect(comment).toContain(
      '## ✅ neuron-perf-gate: no performance regression; 1 benchmark not measured',
    );
    expect(comment).toContain('2 benchmarks, 1 passed, ⚪ 1 not measured.');
  });

  it('alone, heads its section and the comment as not measured, not as a pass', () => {
    const report = reportOf([judged(true)]);
    const comment = renderComment(report);
    expect(comment).toContain('### serve/capacity — ⚪ not measured');
    expect(comment).toContain(
      '## ⚪ neuron-perf-gate: nothing gated was measured, so nothing passed or regressed',
    );
    expect(comment).toContain(`(capacity: ${REASON})`);
    expect(comment).not.toContain('✅');
    expect(comment).not.toMatch(/\d passed|✅ pass/);
  });

  it('without a baseline reads "not measured" too, the variants keep theirs', () => {
    const fresh = judged(false);
    expect(fresh.verdict).toBe('no-baseline');
    const variant = { ...benchmark('serve/rate-1'), verdict: 'no-baseline' as const };
    const comment = renderComment(reportOf([variant, fresh]));
    expect(overviewRow(comment, 'serve/capacity')[1]).toBe('⚪ not measured');
    expect(overviewRow(comment, 'serve/rate-1')[1]).toBe('🆕 no baseline');
    expect(comment).toContain('2 benchmarks, 1 without baseline, ⚪ 1 not measured.');
  });

  it('leaves a benchmark with one gated metric measured a pass (MFU not measured beside it)', () => {
    const measured = benchmark('offline');
    const mfu = measured.metrics.find((m) => m.id === 'mfu')!;
    Object.assign(mfu, { current: null, change: null, ci: null, verdict: 'missing' });
    mfu.reason = 'not measured: no profiled run';
    expect(nothingMeasured(measured)).toBeUndefined();
    const comment = renderComment(reportOf([measured]));
    expect(comment).toContain('### offline — ✅ pass');
    expect(comment).not.toContain('⚪ **Not measured**');
  });
});
