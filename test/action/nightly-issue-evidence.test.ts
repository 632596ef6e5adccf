// What a night tells the nightly issue: only a regression opens or feeds it and only a
// pass closes it; a pass in which a benchmark measured none of its gated metrics (a
// capacity whose SLO failed at the lowest load) is no evidence the regression ended.
import { describe, expect, it } from 'vitest';
import { nightlyIssueEvidence } from '../../src/action/github-publish.js';
import type { BenchmarkReport, Comparison } from '../../src/model.js';
import { benchmark, reportOf } from '../report/support.js';

/** A passing benchmark whose every gated metric has no figure this night. */
function unmeasured(name: string): BenchmarkReport {
  const held = benchmark(name);
  const metrics: Comparison[] = held.metrics.map((m) => ({
    ...m,
    current: null,
    change: null,
    ci: null,
    verdict: 'missing',
    reason: 'not measured: the SLO fails at the lowest load of the sweep already',
  }));
  return { ...held, verdict: 'pass', metrics };
}

describe('nightlyIssueEvidence', () => {
  it('closes on a pass whose benchmarks measured their gated metrics', () => {
    expect(nightlyIssueEvidence(reportOf([benchmark('llama')]))).toBe('pass');
  });

  it('says nothing on a pass in which a benchmark measured none of its gated metrics', () => {
    const report = reportOf([benchmark('llama'), unmeasured('serve/capacity')]);
    expect(report.verdict).toBe('pass');
    expect(nightlyIssueEvidence(report)).toBeUndefined();
  });

  it('feeds the issue on a regression, and says nothing on an error', () => {
    const passing = reportOf([benchmark('llama')]);
    expect(nightlyIssueEvidence({ ...passing, verdict: 'regression' })).toBe('regression');
    expect(nightlyIssueEvidence({ ...passing, verdict: 'error' })).toBeUndefined();
  });
});
