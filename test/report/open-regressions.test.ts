// The baseline branch's open regressions in the comment and the job summary: a run that
// passes says the regression is still there (with its issue), and each benchmark says which
// records formed its baseline and what the open regression did to it.
import { describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import { renderComment, renderMarkdown } from '../../src/report/markdown.js';
import { benchmark, reportOf, withBaselineInfo } from './support.js';

const FIRST_BAD = { commit: 'abc0123'.padEnd(40, '0'), createdAt: '2026-03-31T03:00:00.000Z' };
const ISSUE = { number: 12, url: 'https://github.com/o/r/issues/12' };

function withOpen(report: GateReport, issue = true, oneValue = false): GateReport {
  return {
    ...report,
    openRegressions: {
      branch: 'main',
      regressions: [
        {
          id: 'nightly@1030-1',
          firstBad: FIRST_BAD,
          changes: [
            { benchmark: 'a', metric: 'throughput', change: -0.135 },
            { benchmark: 'a', metric: 'latency_p50', change: 0.156 },
          ],
          persistent: issue,
          ...(oneValue ? { oneValueANight: true as const } : {}),
          ...(issue ? { issue: ISSUE } : {}),
        },
      ],
    },
  };
}

const span = {
  oldest: { commit: 'def4567'.padEnd(40, '0'), createdAt: '2026-04-05T03:00:00.000Z' },
  newest: { commit: 'fed7654'.padEnd(40, '0'), createdAt: '2026-04-09T03:00:00.000Z' },
};

function based(use: 'since' | 'held-out') {
  return withBaselineInfo(benchmark('a'), {
    source: 'perf-gate-data @ 1234567',
    commit: span.newest.commit,
    commitUrl: `https://github.com/o/r/commit/${span.newest.commit}`,
    records: 5,
    span,
    openRegression: { id: 'nightly@1030-1', branch: 'main', firstBad: FIRST_BAD, use, records: 10 },
  });
}

describe('a run that passes while the branch has an open regression', () => {
  it('says so in the headline and links the regression’s issue, in the summary and the comment', () => {
    const report = withOpen(reportOf([based('held-out')]));
    for (const text of [renderMarkdown(report), renderComment(report)]) {
      expect(text).toContain(
        '## ⚠️ neuron-perf-gate: no new regression in this run, but `main` has 1 open performance regression',
      );
      expect(text).not.toContain('no performance regression');
      expect(text).toContain(
        `> - [#\u200B12](${ISSUE.url}): since \`abc0123\` (2026-03-31): \`a\` throughput −13.5%, \`a\` latency_p50 +15.6%`,
      );
    }
  });

  it('says when no issue is open for it yet: after two nights in a row', () => {
    const text = renderMarkdown(withOpen(reportOf([benchmark('a')]), false));
    expect(text).toContain('(no issue yet: one is opened when two nights in a row show it)');
    expect(text).not.toContain('four with one value a night');
  });

  it('says four with one value a night only for a regression of such a series', () => {
    const text = renderMarkdown(withOpen(reportOf([benchmark('a')]), false, true));
    expect(text).toContain(
      '(no issue yet: one is opened when two nights in a row show it, four with one value a night)',
    );
  });

  it('claims no missing issue when the issues could not be read', () => {
    const unread = withOpen(reportOf([benchmark('a')]), false);
    unread.openRegressions = { ...unread.openRegressions!, issuesUnread: true };
    unread.openRegressions.regressions[0]!.persistent = true;
    const text = renderMarkdown(unread);
    expect(text).toContain(
      "> Their issues could not be read: give the job's token `issues: read`.",
    );
    expect(text).not.toContain('no issue');
  });

  it('keeps the plain headline without one, and the regression headline with one', () => {
    expect(renderMarkdown(reportOf([benchmark('a')]))).toContain(
      '## ✅ neuron-perf-gate: no performance regression',
    );
    const regressed = withOpen(reportOf([benchmark('a', { throughput: -0.2 })]));
    expect(renderMarkdown(regressed)).toContain('## ❌ neuron-perf-gate: performance regression');
    expect(renderMarkdown(regressed)).toContain('`main` has 1 open performance regression');
  });
});

describe('which records formed a benchmark’s baseline', () => {
  it('names their count, dates and commits', () => {
    const text = renderMarkdown(reportOf([based('since')]));
    expect(text).toContain(
      'Baseline: `perf-gate-data @ 1234567`, 5 records from 2026-04-05 (`def4567`) to 2026-04-09 ([`fed7654`](https://github.com/o/r/commit/fed7654',
    );
  });

  it('says a pull request is compared with the branch as it is now, regression included', () => {
    const text = renderMarkdown(withOpen(reportOf([based('since')])));
    expect(text).toContain(
      `> ℹ️ **Compared with \`main\` as it is now**, its open regression included: the baseline is taken from the 10 records since the regression's first bad commit \`abc0123\` (2026-03-31) ([#\u200B12](${ISSUE.url})), which this change is built on, so it is not charged with it.`,
    );
  });

  it('says the branch’s own night holds the regression out', () => {
    const text = renderMarkdown(reportOf([based('held-out')]));
    expect(text).toContain(
      "> ℹ️ `main`'s open regression since `abc0123` (2026-03-31) is held out of this baseline (10 records): `main`'s own runs are judged against the level before it until it is restored or accepted.",
    );
  });
});
