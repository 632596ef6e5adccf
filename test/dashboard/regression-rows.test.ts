// The overview's data for the on-call (issue 56): one open regression is one entry however
// many series it moved, with its gate, its environment, the range from the last good to
// the first bad night's head (links made here, below the checked repository URL), the
// worst change first, the bisect command, and the commits of the range counted by real
// git in the clone the page is built in.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Git } from '../../src/baseline/git/git.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import { rangeCommitCounts, withRangeCommits } from '../../src/dashboard/commit-subjects.js';
import { pageData, type DashboardInput } from '../../src/dashboard/page-data.js';
import { withRecordPaths } from '../../src/history/series.js';
import {
  createNightlyRepo,
  ENVIRONMENT_KEYS,
  oncallRecords,
  SLOW_ENVIRONMENT,
  type NightlyRepo,
  type OncallShape,
} from './oncall-history.js';

const shape: OncallShape = {
  nights: 60,
  benchmarks: 3,
  commitsPerNight: 3,
  regressionAt: 50,
  slowBenchmarks: 2,
  factor: 0.85,
};

let repo: NightlyRepo;
let stored: ReturnType<typeof withRecordPaths>;
const inputOf = (repositoryUrl?: string): DashboardInput =>
  dashboardInput({
    records: stored,
    source: 'test',
    now: new Date(Date.UTC(2026, 0, 1 + shape.nights, 12)),
    ...(repositoryUrl !== undefined ? { repositoryUrl } : {}),
  });

beforeAll(async () => {
  repo = await createNightlyRepo(shape);
  stored = withRecordPaths(oncallRecords(shape, repo.heads));
}, 60_000);

afterAll(async () => {
  if (repo) await rm(repo.dir, { recursive: true, force: true });
});

describe('an open regression on the page', () => {
  it('is one entry with its gate and environment, however many series it moved', () => {
    const data = pageData(inputOf('https://github.com/o/r'));
    expect(data.series).toHaveLength(2 * shape.benchmarks * 4);
    expect(data.regressions).toHaveLength(1);
    const [regression] = data.regressions;
    // Two slow benchmarks × 4 metrics, all on the slow environment.
    expect(regression!.changes).toHaveLength(shape.slowBenchmarks * 4);
    const environments = regression!.changes.map(
      ([s]) => data.environments[data.series[s]!.environment],
    );
    expect(new Set(environments)).toEqual(new Set([ENVIRONMENT_KEYS[SLOW_ENVIRONMENT]]));
    expect(regression!.environments.map((e) => data.environments[e])).toEqual([
      ENVIRONMENT_KEYS[SLOW_ENVIRONMENT],
    ]);
    expect(data.gates[regression!.gate]).toBe('nightly');
  });

  it('names the last good and first bad night’s heads, with links to them and to their compare page', () => {
    const data = pageData(inputOf('https://github.com/o/r/'));
    const [regression] = data.regressions;
    const good = repo.heads[shape.regressionAt - 1]!;
    const bad = repo.heads[shape.regressionAt]!;
    expect(data.records[regression!.lastGood]![1]).toBe(good.slice(0, 12));
    expect(data.records[regression!.since]![1]).toBe(bad.slice(0, 12));
    expect(regression!.range).toEqual({
      good: `https://github.com/o/r/commit/${good}`,
      bad: `https://github.com/o/r/commit/${bad}`,
      compare: `https://github.com/o/r/compare/${good}...${bad}`,
    });
    // Without git to count them, the page does not guess how many commits lie between.
    expect(regression!.commits).toBeUndefined();
  });

  it('leads with the worst change and bisects its series', () => {
    const data = pageData(inputOf('https://github.com/o/r'));
    const [regression] = data.regressions;
    const sizes = regression!.changes.map(([s, c]) => Math.abs(data.series[s]!.changes[c]!.change));
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    const worst = data.series[regression!.changes[0]![0]]!;
    const good = repo.heads[shape.regressionAt - 1]!.slice(0, 12);
    const bad = repo.heads[shape.regressionAt]!.slice(0, 12);
    expect(regression!.bisect).toBe(
      `neuron-perf-gate bisect --good ${good} --bad ${bad} --benchmark ${data.benchmarks[worst.benchmark]} --metric ${worst.metric}`,
    );
  });

  it('has no range links without a repository URL, or under one with credentials', () => {
    for (const url of [undefined, 'https://user:token@github.com/o/r', 'http://github.com/o/r']) {
      const data = pageData(inputOf(url));
      expect(data.regressions).toHaveLength(1);
      expect(data.regressions[0]!.range).toBeUndefined();
      expect(JSON.stringify(data)).not.toContain('token');
    }
  });
});

describe('the commits of a range, counted by git', () => {
  it('counts the commits after the last good up to the first bad in the clone', async () => {
    const input = await withRangeCommits(new Git({ cwd: repo.dir }), inputOf());
    const [regression] = pageData(input).regressions;
    // The night's three commits: the culprit, one more, and the head.
    expect(regression!.commits).toBe(shape.commitsPerNight);
  });

  it('counts no range that is not a line of history, nor one the clone lacks', async () => {
    const git = new Git({ cwd: repo.dir });
    const [a, b] = [repo.heads[10]!, repo.heads[12]!];
    // A commit on a side branch off night 5: not an ancestor of night 12's head.
    const side = await git.run(['commit-tree', `${repo.heads[5]!}^{tree}`, '-p', repo.heads[5]!], {
      input: 'side\n',
    });
    const counts = await rangeCommitCounts(git, [
      { good: a, bad: b },
      { good: b, bad: a },
      { good: side, bad: b },
      { good: a, bad: 'f'.repeat(40) },
      { good: 'HEAD~3', bad: 'HEAD' },
    ]);
    expect(counts).toEqual(new Map([[`${a}..${b}`, 2 * shape.commitsPerNight]]));
  });

  it('counts nothing outside a repository', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'perf-gate-no-git-'));
    try {
      const input = await withRangeCommits(new Git({ cwd: empty }), inputOf());
      expect(input.rangeCommits).toBeUndefined();
      expect(pageData(input).regressions[0]!.commits).toBeUndefined();
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
