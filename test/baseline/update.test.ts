import { describe, expect, it } from 'vitest';
import { pathOfRecord } from '../../src/baseline/record-paths.js';
import { decideBaselineUpdate, planRecords } from '../../src/baseline/update.js';
import type { BenchmarkReport, BenchmarkVerdict } from '../../src/model.js';
import { at, sampleRecord, sampleResult } from './git/support.js';

const pass = { verdict: 'pass' as const };

describe('decideBaselineUpdate', () => {
  const main = { branch: 'main', defaultBranch: 'main' };
  it.each([
    ['auto', 'push', main, true],
    ['auto', 'push', { branch: 'feature', defaultBranch: 'main' }, false],
    ['auto', 'schedule', main, true],
    ['auto', 'workflow_dispatch', main, true],
    ['auto', 'workflow_dispatch', { branch: 'feature', defaultBranch: 'main' }, false],
    ['auto', 'pull_request', main, false],
    ['always', 'push', { branch: 'feature', defaultBranch: 'main' }, true],
    ['always', 'pull_request', main, false],
    ['always', 'pull_request_target', main, false],
    ['never', 'push', main, false],
    // Events about a pull request, or no storing event at all, never write.
    ['always', 'pull_request_review', main, false],
    ['always', 'pull_request_review_comment', main, false],
    ['always', 'issue_comment', main, false],
    ['always', 'merge_group', main, false],
    ['always', 'workflow_run', main, false],
    ['always', 'repository_dispatch', main, false],
  ] as const)('%s on %s (%o): write %s', (policy, name, where, write) => {
    expect(decideBaselineUpdate(policy, { name, ...where }, pass).write).toBe(write);
  });

  it('never writes a run that errored, and says why not', () => {
    const decision = decideBaselineUpdate('always', { name: 'push' }, { verdict: 'error' });
    expect(decision).toEqual({ write: false, reason: expect.stringContaining('failed to run') });
    const pr = decideBaselineUpdate(
      'auto',
      { name: 'pull_request', carriesPullRequest: true },
      pass,
    );
    expect(pr).toEqual({
      write: false,
      reason: 'a pull request never updates the baseline (pull_request)',
    });
  });

  it('never writes when the payload carries a pull request, even on a storing event', () => {
    // A workflow_dispatch or push payload that names a pull request (what a crafted
    // dispatch could send) is treated as the pull request's.
    for (const name of ['push', 'schedule', 'workflow_dispatch']) {
      const decision = decideBaselineUpdate(
        'always',
        { name, branch: 'main', defaultBranch: 'main', carriesPullRequest: true },
        pass,
      );
      expect(decision.write, name).toBe(false);
    }
  });
});

function report(name: string, verdict: BenchmarkVerdict, seed = 1): BenchmarkReport {
  return {
    name,
    format: 'offline-benchmark',
    verdict,
    metrics: [],
    warnings: [],
    result: sampleResult(name, seed),
  };
}

const base = {
  gateKey: 'perf-gate',
  commit: 'c'.repeat(40),
  branch: 'main',
  event: 'push',
  runId: '77-1',
  actor: 'octocat',
  now: at(100),
  acceptCurrent: false,
  acceptAfter: 3,
  defaultBranch: 'main',
  history: () => [],
};

describe('planRecords', () => {
  it('writes one record per measured benchmark, none for an errored one', () => {
    const plan = planRecords(
      [
        report('a', 'pass'),
        report('b', 'no-baseline'),
        { ...report('c', 'error'), result: undefined },
      ],
      base,
    );
    expect(plan.records.map((r) => [r.benchmark, r.verdict, r.runId])).toEqual([
      ['a', 'pass', '77-1'],
      ['b', 'no-baseline', '77-1'],
    ]);
    expect(plan.accepted.size).toBe(0);
  });

  it('stores a lone regression as a regression', () => {
    const plan = planRecords([report('a', 'regression')], base);
    expect(plan.records[0]!.verdict).toBe('regression');
    expect(plan.records[0]!.acceptance).toBeUndefined();
  });

  it('accepts the third regression in a row, naming the two before it', () => {
    const earlier = [2, 1].map((i) => ({
      ...sampleRecord('a', i, at(i)),
      verdict: 'regression' as const,
    }));
    const plan = planRecords([report('a', 'regression')], { ...base, history: () => earlier });
    expect(plan.records[0]!.acceptance).toEqual({
      reason: 'accept-after',
      at: at(100).toISOString(),
      records: earlier.map(pathOfRecord),
    });
    expect(plan.accepted.get('a')).toContain('persisted for 3 runs in a row on main');
  });

  it('accepts at once with accept-current, naming who', () => {
    const plan = planRecords([report('a', 'regression'), report('b', 'pass')], {
      ...base,
      event: 'workflow_dispatch',
      acceptCurrent: true,
    });
    expect(plan.records[0]!.acceptance).toEqual({
      reason: 'accept-current',
      at: at(100).toISOString(),
      by: 'octocat',
    });
    expect(plan.records[1]!.acceptance).toBeUndefined();
    expect(plan.accepted.get('a')).toContain('accepted as the new normal by octocat');
  });
});
