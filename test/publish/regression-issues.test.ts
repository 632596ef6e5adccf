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
import { useGitHubApi } from '../support/github-test.js';

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
    status: 'open',
    changes: [],
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
