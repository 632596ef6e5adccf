// The per-regression issues against the loopback GitHub API: markers that read back as
// written, and only the gate's own issues touched.
import { describe, expect, it } from 'vitest';
import { REGRESSION_LABEL } from '../../src/github/nightly-issue.js';
import {
  decodeMarkerPart,
  regressionMarker,
  syncRegressionIssues,
} from '../../src/publish/regression-issues.js';
import type { Regression } from '../../src/history/regressions.js';
import { analyzeHistory } from '../../src/history/analyze.js';
import { useGitHubApi } from '../support/github-test.js';
import { makeSeries, oneValueSeries } from '../history/make-series.js';
import { outvotedSeries } from '../history/one-noisy-series.js';

const github = useGitHubApi({ owner: 'octo-org', repo: 'inf2-bench' });
const GATE = 'perf/gate';

function point(runId: string) {
  return {
    index: 3,
    path: 'a.json',
    commit: 'c'.repeat(40),
    createdAt: '2026-11-01',
    runId,
    environment: {},
  };
}

function openRegression(runId: string): Regression {
  return {
    id: `${GATE}@${runId}`,
    gateKey: GATE,
    firstBad: point(runId),
    lastGood: point('earlier'),
    consensus: {
      runId,
      commit: 'c'.repeat(40),
      weight: 0,
      series: 0,
      agreeing: 0,
      locations: [],
    },
    status: 'open',
    changes: [],
    belowThreshold: 0,
    environmentChanges: [],
    benchmarks: ['qwen3\u202Eevil'],
    nearbyRunIds: [runId],
    persistent: true,
  };
}

function sync(regressions: Regression[]) {
  return syncRegressionIssues(github.octokit, {
    owner: 'octo-org',
    repo: 'inf2-bench',
    gateKey: GATE,
    author: github.api.state.actor,
    regressions,
    log: github.log,
  });
}

describe('regression issue markers', () => {
  it.each(['1000-1', 'run>1 --> x', '50%@2', 'a\nb', '%3E'])('read back %j as written', (runId) => {
    const marker = regressionMarker(GATE, runId);
    expect(marker).not.toMatch(/-->.*-->|[\r\n]/);
    const inside = marker.slice(marker.indexOf(':regression:') + ':regression:'.length, -4);
    const [key, id] = inside.split('@');
    expect(decodeMarkerPart(key!)).toBe(GATE);
    expect(decodeMarkerPart(id!)).toBe(runId);
  });

  it('keeps the issue of a run id with `>` open night after night, without reopening it', async () => {
    const regression = openRegression('77>1');
    const first = await sync([regression]);
    expect(first.opened).toHaveLength(1);
    expect(first.issues).toEqual(new Map([[regression.id, first.opened[0]]]));
    const second = await sync([regression]);
    // The issue is found again, and named for the dashboard's link.
    expect(second).toEqual({
      opened: [],
      updated: [],
      closed: [],
      issues: new Map([[regression.id, first.opened[0]]]),
    });
    expect(github.api.state.issue(first.opened[0]!)?.state).toBe('open');
  });

  it('shows bidirectional controls of a benchmark name in the title, inert', async () => {
    const { opened } = await sync([openRegression('88')]);
    const title = github.api.state.issue(opened[0]!)!.title;
    expect(title).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(title).toContain('qwen3⟨U+202E⟩evil');
  });

  it("never updates or closes an issue with the gate's marker and label that someone else opened", async () => {
    const planted = github.api.state.addIssue({
      title: 'Performance regression',
      body: `${regressionMarker(GATE, '99')}\nplanted`,
      labels: [REGRESSION_LABEL],
      user: 'contributor',
    });
    // No regression is open: the gate would close an issue of its own that names none.
    expect(await sync([])).toEqual({ opened: [], updated: [], closed: [], issues: new Map() });
    expect(github.api.state.issue(planted.number)?.state).toBe('open');
    // And a regression of that run gets an issue of the gate's own.
    const { opened, issues } = await sync([openRegression('99')]);
    expect(opened).toHaveLength(1);
    expect(opened[0]).not.toBe(planted.number);
    expect([...issues.values()]).toEqual(opened);
  });
});

describe('a regression that waits for its nights', () => {
  it('says two nights in a row, and four with one value a night only for such a series', async () => {
    const plain = { ...openRegression('55'), persistent: false };
    expect((await sync([plain])).opened).toEqual([]);
    expect(github.log.lines).toContain(
      `Regression ${plain.id}: no issue until two nights in a row show it`,
    );
    // A 7% loss of one value a night, on its third night.
    const slowNow = new Map([76, 77, 78, 79].map((n) => [n, 0.93]));
    const series = oneValueSeries({ nights: 79, outliers: slowNow, seed: 'own-fours' });
    const [found] = analyzeHistory({ series: [series], acceptances: [], skipped: 0 }).regressions;
    const oneValue = { ...found!, gateKey: GATE };
    expect((await sync([oneValue])).opened).toEqual([]);
    expect(github.log.lines).toContain(
      `Regression ${oneValue.id}: no issue until two nights in a row show it (four with one value a night)`,
    );
  });
});

describe('the issue of a regression its series disagree on', () => {
  it('names the commit most series agree on, and which series put it elsewhere, how sure', async () => {
    // 18 of 19 series put the step on night 30; one noisy series on night 29.
    const { regressions } = analyzeHistory(outvotedSeries());
    const { opened } = await syncRegressionIssues(github.octokit, {
      owner: 'octo-org',
      repo: 'inf2-bench',
      gateKey: 'nightly',
      author: github.api.state.actor,
      regressions,
      log: github.log,
    });
    expect(opened).toHaveLength(1);
    const issue = github.api.state.issue(opened[0]!)!;
    const agreed = 'abc01e'.padEnd(40, '0');
    const noOp = 'abc01d'.padEnd(40, '0');
    expect(issue.title).toContain('since abc01e0:');
    expect(issue.body).toContain(regressionMarker('nightly', '1030-1'));
    // The range: last good and first bad commit by their short shas, both ends in the command.
    expect(issue.body).toContain(
      '**Commits:** the culprit is in the commits after `abc01d0` (last good, 2026-03-30) up to `abc01e0` (first bad, 2026-03-31).',
    );
    expect(issue.body).toContain(`neuron-perf-gate bisect --good ${noOp} --bad ${agreed}`);
    // The agreement as a count; where the outvoted series put it, how sure, folded away.
    expect(issue.body).toContain(
      '**Series:** 18 of 19 series agree on this night; the other one is listed below the table.',
    );
    const folded = /<details><summary>([^<]*)<\/summary>\n\n([^<]*)\n<\/details>/.exec(
      issue.body ?? '',
    );
    expect(folded?.[1]).toBe('1 series puts the first bad night elsewhere');
    expect(folded?.[2]).toMatch(
      /^- bench-07 · latency_p50: 2026-03-30 abc01d0 \(run 1029-1\), \d+% sure of it, \d+% on this night\n$/,
    );
    const rows = (issue.body ?? '').split('\n').filter((line) => /^\| bench-\d\d \|/.test(line));
    expect(rows).toHaveLength(19);
    expect(rows.filter((row) => row.includes('| this night (>99%) |'))).toHaveLength(18);
    expect(rows.find((row) => row.startsWith('| bench-07 |'))).toMatch(
      /\| \*\*2026-03-30 abc01d0 \(run 1029-1\)\*\* \(\d+%; \d+% on this night\) \|/,
    );
  });
});

/** The regressions of gate `gate`: two benchmarks 10% slower from `from` (until `until`). */
function historyOf(from: number, until = Number.POSITIVE_INFINITY): Regression[] {
  const level = (n: number) => (n >= from && n < until ? 1.1 : 1);
  const series = ['a', 'b'].map((benchmark) => ({
    ...makeSeries({ nights: 45, level, seed: `${benchmark}-${from}` }),
    id: `gate · ${benchmark} · latency_p50 · any`,
    benchmark,
  }));
  return analyzeHistory({ series, acceptances: [], skipped: 0 }).regressions;
}

function syncGate(regressions: Regression[]) {
  return syncRegressionIssues(github.octokit, {
    owner: 'octo-org',
    repo: 'inf2-bench',
    gateKey: 'gate',
    author: github.api.state.actor,
    regressions,
    log: github.log,
  });
}

/** The requests that changed something on issue `number` (comments, edits). */
function writesTo(number: number) {
  return github.api.requests.filter(
    (r) => r.method !== 'GET' && r.path.includes(`/issues/${number}`),
  );
}

describe('the issue of a regression whose first bad night moves', () => {
  it('keeps its issue while the night moves up to 2 runs, and opens a new one from 3', async () => {
    const [at30] = historyOf(30);
    expect(at30!.firstBad.runId).toBe('run-30');
    const { opened } = await syncGate([at30!]);
    expect(opened).toHaveLength(1);
    const issue = opened[0]!;

    // More nights place the same regression 2 runs later: the same issue, updated.
    const [at32] = historyOf(32);
    expect(at32!.firstBad.runId).toBe('run-32');
    expect(writes(await syncGate([at32!]))).toEqual({ opened: [], updated: [issue], closed: [] });
    const kept = github.api.state.issue(issue)!;
    expect(kept.state).toBe('open');
    expect(kept.body).toContain(regressionMarker('gate', 'run-30'));
    expect(kept.body).toMatch(/\*\*First bad night:\*\* [^\n]*, run `run-32`\./);

    // 3 runs from the issue's night: another regression; the old issue names none now.
    const [at33] = historyOf(33);
    const moved = await syncGate([at33!]);
    expect(moved.opened).toHaveLength(1);
    expect(moved.closed).toEqual([issue]);
  });
});

describe('an issue that is already closed', () => {
  it('is never closed again, commented on or reopened, whatever its regression does', async () => {
    const closed = github.api.state.addIssue({
      title: 'Performance regression',
      body: `${regressionMarker('gate', 'run-30')}\nclosed by hand`,
      labels: [REGRESSION_LABEL],
      user: github.api.state.actor,
      state: 'closed',
    });
    const [restored] = historyOf(30, 38);
    expect(restored!.status).toBe('restored');
    const [open] = historyOf(30);
    expect(open!.status).toBe('open');
    const nothing = { opened: [], updated: [], closed: [] };
    // Restored: the issue would be closed, were it open.
    expect(writes(await syncGate([restored!]))).toEqual(nothing);
    // No regression names it: an open issue would be closed as noise.
    expect(writes(await syncGate([]))).toEqual(nothing);
    // Open again: the issue someone closed stays closed, and no second one is opened.
    expect(writes(await syncGate([open!]))).toEqual(nothing);
    expect(writesTo(closed.number)).toEqual([]);
    expect(github.api.state.commentsOn(closed.number)).toEqual([]);
    expect(github.api.state.issue(closed.number)?.state).toBe('closed');
  });
});

/** What a sync wrote on GitHub, without the map of regressions to their issues. */
function writes<T extends { opened: unknown; updated: unknown; closed: unknown }>(
  sync: T,
): Pick<T, 'opened' | 'updated' | 'closed'> {
  return { opened: sync.opened, updated: sync.updated, closed: sync.closed };
}

describe("the links of a regression's issue", () => {
  it("links this run's own artifact without asking, and an earlier run's as GitHub lists it", async () => {
    const [regression] = historyOf(30);
    const links = { repositoryUrl: 'https://github.com/octo-org/inf2-bench' };
    const base = { ...regression!, gateKey: 'links', id: 'links@7' };
    const thisNight = { ...base, firstBad: { ...base.firstBad, runId: '4242-1' } };
    const before = github.api.requests.length;
    const own = await syncRegressionIssues(github.octokit, {
      owner: 'octo-org',
      repo: 'inf2-bench',
      gateKey: 'links',
      author: github.api.state.actor,
      regressions: [thisNight],
      links,
      thisRun: { runId: '4242-1', artifacts: new Map([['a', 31]]) },
      log: github.log,
    });
    const ownBody = github.api.state.issue(own.opened[0]!)!.body ?? '';
    expect(ownBody).toContain(
      '[profile and logs of a](https://github.com/octo-org/inf2-bench/actions/runs/4242/artifacts/31)',
    );
    expect(github.api.requests.slice(before).some((r) => r.path.includes('/artifacts'))).toBe(
      false,
    );

    // An earlier night's run: its artifacts listed; one of another gate is not taken.
    const run = github.api.state.addWorkflowRun({ event: 'schedule' });
    const mine = github.api.state.addArtifact({ runId: run.id, name: 'links-b-attempt-2' });
    github.api.state.addArtifact({ runId: run.id, name: 'other-gate-a-attempt-2' });
    const earlier = {
      ...base,
      id: 'links@8',
      firstBad: { ...base.firstBad, runId: `${run.id}-2` },
    };
    github.api.state.issue(own.opened[0]!)!.state = 'closed';
    const listed = await syncRegressionIssues(github.octokit, {
      owner: 'octo-org',
      repo: 'inf2-bench',
      gateKey: 'links',
      author: github.api.state.actor,
      regressions: [{ ...earlier, nearbyRunIds: [`${run.id}-2`] }],
      links,
      log: github.log,
    });
    const body = github.api.state.issue(listed.opened[0]!)!.body ?? '';
    expect(body).toContain(
      `[profile and logs of b](https://github.com/octo-org/inf2-bench/actions/runs/${run.id}/artifacts/${mine.id})`,
    );
    expect(body).not.toMatch(/profile and logs of a\]/);
  });

  it('opens the issue with the run link alone when the artifacts cannot be listed', async () => {
    const [regression] = historyOf(30);
    const run = github.api.state.addWorkflowRun({ event: 'schedule' });
    const firstBad = { ...regression!.firstBad, runId: `${run.id}-1` };
    github.api.failNext('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', [
      { status: 403, body: { message: 'Resource not accessible by integration' } },
    ]);
    const { opened } = await syncRegressionIssues(github.octokit, {
      owner: 'octo-org',
      repo: 'inf2-bench',
      gateKey: 'refused',
      author: github.api.state.actor,
      regressions: [
        {
          ...regression!,
          gateKey: 'refused',
          id: 'refused@1',
          firstBad,
          nearbyRunIds: [firstBad.runId],
        },
      ],
      links: { repositoryUrl: 'https://github.com/octo-org/inf2-bench' },
      log: github.log,
    });
    const body = github.api.state.issue(opened[0]!)!.body ?? '';
    expect(body).toContain(
      `[workflow run ${run.id}](https://github.com/octo-org/inf2-bench/actions/runs/${run.id}).`,
    );
    expect(body).not.toContain('/artifacts/');
    expect(github.log.lines.join('\n')).toMatch(/artifacts were not listed[^\n]*actions: read/);
  });
});
