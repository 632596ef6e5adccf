// The action's dashboard step: a page that cannot be built changes no branch, and the
// Pages branch is checked against the run's own branches before anything runs.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planDashboard, publishDashboard } from '../../src/action/dashboard.js';
import { Git } from '../../src/baseline/git/git.js';
import type { GitHubContext } from '../../src/github/event.js';
import { MemoryLogger } from '../../src/log.js';
import { ATTENTION_SHAPE, recordsOfNight } from '../../bench/history-sim.js';
import { createRecord } from '../../src/baseline/record-create.js';
import { recordToResult } from '../../src/baseline/record.js';
import { analyzeHistory } from '../../src/history/analyze.js';
import { buildSeries, withRecordPaths } from '../../src/history/series.js';
import { makeRepos } from '../baseline/git/support.js';

const github: GitHubContext = {
  eventName: 'push',
  repository: { owner: 'octo', repo: 'inference' },
  defaultBranch: 'main',
  ref: 'refs/heads/release/2.0',
  refName: 'release/2.0',
  sha: 'a'.repeat(40),
  runId: 12,
  runAttempt: 1,
  workflow: 'perf',
  job: 'gate',
  actor: 'octocat',
  serverUrl: 'https://github.com',
  apiUrl: 'https://api.github.com',
  carriesPullRequest: false,
};

function plan(branch: string, setting: 'artifact' | 'pages' = 'pages') {
  return planDashboard({
    setting,
    branch,
    hasRecordStore: true,
    baselineStore: 'git-branch',
    dataBranch: 'perf-gate-data',
    github,
    defaultBranch: 'main',
  });
}

describe('planDashboard', () => {
  it('is nothing when off, and refuses the branches of the run for pages', () => {
    expect(
      planDashboard({
        setting: 'off',
        branch: 'gh-pages',
        hasRecordStore: false,
        baselineStore: 'file',
        dataBranch: 'perf-gate-data',
        github,
      }),
    ).toBeUndefined();
    expect(plan('gh-pages')?.branch).toBe('gh-pages');
    expect(() => plan('main')).toThrow(/found "main", which is the repository's default branch/);
    expect(() => plan('release/2.0')).toThrow(/which is the branch this run is on/);
    expect(() => plan('perf-gate-data')).toThrow(/which is the data branch/);
    // An artifact writes no branch: any dashboard-branch is fine.
    expect(plan('main', 'artifact')?.setting).toBe('artifact');
  });
});

describe('publishDashboard', () => {
  it('pushes nothing when the page cannot be built', async () => {
    const repos = await makeRepos();
    const log = new MemoryLogger();
    const notes = await publishDashboard({
      plan: plan('gh-pages')!,
      records: {
        readStoredRecords: () => Promise.reject(new Error('could not fetch the baseline branch')),
      },
      github,
      gateKey: 'perf-gate',
      dataBranch: 'perf-gate-data',
      defaultBranch: 'main',
      workspace: repos.checkout,
      outDir: join(repos.root, 'out'),
      stored: true,
      retentionDays: 14,
      log,
    });
    expect(notes).toEqual(['the dashboard was not built: could not fetch the baseline branch']);
    expect(log.lines).toContain(
      'warning: the dashboard was not built: could not fetch the baseline branch',
    );
    const heads = await new Git({ cwd: repos.origin }).run(['for-each-ref', '--format=%(refname)']);
    expect(heads).toBe('refs/heads/main');
  });

  it("links the overview's regressions to their issues and names the checkout's commits", async () => {
    const repos = await makeRepos();
    const head = await repos.git.run(['rev-parse', 'HEAD']);
    const nights = Array.from({ length: ATTENTION_SHAPE.nights }, (_, night) =>
      recordsOfNight(ATTENTION_SHAPE, night),
    ).flat();
    // The newest night's model-0 was measured on the checkout's own commit.
    const newest = nights.at(-3)!;
    nights.push(
      createRecord({
        gateKey: newest.gateKey,
        result: { ...recordToResult(newest), name: 'model-3' },
        commit: head,
        branch: 'main',
        event: 'schedule',
        runId: newest.runId,
        verdict: 'pass',
        createdAt: newest.createdAt,
      }),
    );
    const stored = withRecordPaths(nights);
    const open = analyzeHistory(buildSeries(stored)).regressions.find(
      (r) => r.status === 'open' && r.benchmarks.includes('model-2'),
    )!;
    const notes = await publishDashboard({
      plan: plan('gh-pages')!,
      records: { readStoredRecords: async () => ({ records: stored, warnings: [] }) },
      github,
      gateKey: 'nightly',
      dataBranch: 'perf-gate-data',
      workspace: repos.checkout,
      outDir: join(repos.root, 'out'),
      stored: true,
      issues: new Map([[open.id, 7]]),
      retentionDays: 14,
      log: new MemoryLogger(),
    });
    expect(notes).toEqual([]);
    const page = await new Git({ cwd: repos.origin }).run(['show', 'gh-pages:index.html']);
    const data = JSON.parse(
      /<script type="application\/json" id="dashboard-data">(.*?)<\/script>/s.exec(page)![1]!,
    ) as {
      issueBase: string;
      regressions: { id: string; issue?: number }[];
      subjects: string[];
      records: unknown[][];
    };
    expect(data.issueBase).toBe('https://github.com/octo/inference/issues/');
    expect(data.regressions.find((r) => r.id === open.id)?.issue).toBe(7);
    expect(data.regressions.filter((r) => r.issue !== undefined)).toHaveLength(1);
    const named = data.records.filter((row) => (row[7] as number) >= 0);
    expect(named.map((row) => [row[1], data.subjects[row[7] as number]])).toEqual([
      [head.slice(0, 12), 'code'],
    ]);
  });

  it("judges its own gate's series by the configured thresholds, not another gate's", async () => {
    const stored = withRecordPaths(
      Array.from({ length: ATTENTION_SHAPE.nights }, (_, night) =>
        recordsOfNight(ATTENTION_SHAPE, night),
      ).flat(),
    );
    // model-2 slowed 10%: past the built-in 5%, inside a configured 25% on every metric.
    const tolerant = Object.fromEntries(
      ['throughput', 'latency_p50', 'latency_p95', 'latency_p99', 'mfu'].map((m) => [m, 0.25]),
    );
    const regressionsOnPage = async (gateKey: string) => {
      const repos = await makeRepos();
      await publishDashboard({
        plan: plan('gh-pages')!,
        records: { readStoredRecords: async () => ({ records: stored, warnings: [] }) },
        github,
        gateKey,
        dataBranch: 'perf-gate-data',
        workspace: repos.checkout,
        outDir: join(repos.root, 'out'),
        stored: true,
        thresholdsOf: (benchmark) => (benchmark === 'model-2' ? tolerant : undefined),
        retentionDays: 14,
        log: new MemoryLogger(),
      });
      const page = await new Git({ cwd: repos.origin }).run(['show', 'gh-pages:index.html']);
      return (
        JSON.parse(
          /<script type="application\/json" id="dashboard-data">(.*?)<\/script>/s.exec(page)![1]!,
        ) as { regressions: unknown[] }
      ).regressions.length;
    };
    // The records are the nightly gate's: its config tolerates model-2's step.
    expect(await regressionsOnPage('nightly')).toBe(0);
    // Run by another gate, this config is not theirs: the built-in 5% still flags it.
    expect(await regressionsOnPage('another-gate')).toBe(1);
  });
});

describe('planDashboard with every record store', () => {
  it('builds from s3 and postgres records, and names the stores when the store keeps none', () => {
    for (const store of ['s3', 'postgres']) {
      const planned = planDashboard({
        setting: 'pages',
        branch: 'perf-gate-data',
        hasRecordStore: true,
        baselineStore: store,
        dataBranch: 'perf-gate-data',
        github,
      });
      // No data branch in use: its name is free for the page.
      expect(planned?.branch).toBe('perf-gate-data');
    }
    expect(() =>
      planDashboard({
        setting: 'artifact',
        branch: 'gh-pages',
        hasRecordStore: false,
        baselineStore: 'artifact',
        dataBranch: 'perf-gate-data',
        github,
      }),
    ).toThrow(
      /baseline-store 'artifact', which keeps none; choose baseline-store: git-branch, s3 or postgres/,
    );
  });
});
