// A stored night whose history has a series that stopped reporting: the gate's one issue
// about it on a loopback GitHub API (checked against GitHub's OpenAPI description), and
// the night's job summary naming it with its issue. Night n is NIGHT0 + n days: no clock.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGateHistory } from '../../src/action/gate-history.js';
import type { GateSetup } from '../../src/action/gate-setup.js';
import {
  missingOfHistory,
  missingSeriesOfNight,
  publishMissingIssue,
  withMissingSeries,
} from '../../src/action/missing-series.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { withRecordPaths } from '../../src/history/series.js';
import { MemoryLogger } from '../../src/log.js';
import { writeReportFiles } from '../../src/publish/files.js';
import { useWorkspaces } from '../config/workspace.js';
import { NIGHT0, nightRecords } from '../history/night-records.js';
import { benchmark, reportOf } from '../report/support.js';
import { useGitHubApi } from '../support/github-test.js';

const github = useGitHubApi({ owner: 'octo', repo: 'inf2' });
const makeWorkspace = useWorkspaces();

/** `a` and `b` every night; `b` stops after night 14 (a runner down); nights 0 to `last`. */
function records(last: number) {
  return Array.from({ length: last + 1 }, (_, night) =>
    nightRecords({ benchmarks: night <= 14 ? ['a', 'b'] : ['a'], nights: last + 1 }, night),
  ).flat();
}

async function historyUpTo(last: number) {
  const stored = withRecordPaths(records(last));
  const source = { readStoredRecords: async () => ({ records: stored, warnings: [] }) };
  const history = await readGateHistory(
    source,
    'nightly',
    'main',
    () => undefined,
    new MemoryLogger(),
  );
  return history!;
}

const nightTime = (night: number) => new Date(NIGHT0 + night * 86_400_000 + 600_000);

async function missingOnNight(night: number) {
  const series = missingOfHistory(await historyUpTo(night), 3, nightTime(night));
  const { notes, issue } = await publishMissingIssue(series, {
    octokit: github.octokit,
    owner: 'octo',
    repo: 'inf2',
    gateKey: 'nightly',
    branch: 'main',
    after: 3,
    log: new MemoryLogger(),
  });
  expect(notes).toEqual([]);
  return { branch: 'main', after: 3, series, ...(issue ? { issue } : {}) };
}

describe('a stored night with a series that stopped reporting', () => {
  it('opens the gate’s one issue on the third night without it and names it in the summary', async () => {
    expect((await missingOnNight(16)).series).toEqual([]);
    expect(github.api.state.issues).toHaveLength(0);

    const missing = await missingOnNight(17);
    // b's two metrics, one issue for both.
    expect(missing.series.map((s) => [s.benchmark, s.metric, s.nightsMissed])).toEqual([
      ['b', 'latency_p50', 3],
      ['b', 'throughput', 3],
    ]);
    expect(github.api.state.issues).toHaveLength(1);
    const issue = github.api.state.issues[0]!;
    expect(missing.issue).toEqual({
      number: issue.number,
      url: `https://github.com/octo/inf2/issues/${issue.number}`,
    });
    expect(issue.body).toContain(
      '`b` on inf2.xlarge/2 cores/config cafe123: latency_p50, throughput',
    );

    const workspace = await makeWorkspace({
      '.github/perf-gate.yml': 'benchmarks:\n  - name: a\n    command: ./bench.sh\n',
    });
    const config = { ...(await resolveGateConfig({}, { workspace })), outDir: workspace };
    const setup = { config } as unknown as GateSetup;
    const report = reportOf([benchmark('a')]);
    const written = { report, files: await writeReportFiles(workspace, report) };
    const shown = await withMissingSeries(setup, written, missing);
    expect(shown.files.markdown).toContain('> 📭 **2 series of `main` stopped reporting**');
    expect(shown.files.markdown).toContain(`(https://github.com/octo/inf2/issues/${issue.number})`);
    expect(shown.files.markdown).toContain('last seen `abc00e0` (2026-03-15), 3 nights missed');
    expect(await readFile(join(workspace, 'summary.md'), 'utf8')).toBe(shown.files.markdown);
    const json = JSON.parse(await readFile(shown.files.report, 'utf8'));
    expect(json.missingSeries.series).toHaveLength(2);

    // A night later: the same issue, its nights counted on.
    await missingOnNight(18);
    expect(github.api.state.issues).toHaveLength(1);
    expect(github.api.state.issue(issue.number)!.body).toContain('4 nights missed');
  });

  it('leaves the report as it was when nothing is missing', async () => {
    const setup = { config: { outDir: '/nonexistent' } } as unknown as GateSetup;
    const report = reportOf([benchmark('a')]);
    const written = { report, files: {} as never };
    expect(await withMissingSeries(setup, written, undefined)).toBe(written);
    expect(await withMissingSeries(setup, written, { branch: 'main', after: 3, series: [] })).toBe(
      written,
    );
  });

  it('names them without an issue when nightly-issue is off, and says why when no token is given', async () => {
    const history = await historyUpTo(17);
    const setupWith = (nightlyIssue: boolean, octokit?: unknown) =>
      ({
        config: { missingAfter: 3 },
        settings: { nightlyIssue },
        github: { repository: { owner: 'octo', repo: 'inf2' } },
        key: 'nightly',
        log: new MemoryLogger(),
        ...(octokit ? { octokit } : {}),
      }) as unknown as GateSetup;
    const off = await missingSeriesOfNight(
      setupWith(false, github.octokit),
      history,
      nightTime(17),
    );
    expect(off.missing.series).toHaveLength(2);
    expect(off.notes).toEqual([]);
    expect(github.api.requests).toEqual([]);
    const tokenless = await missingSeriesOfNight(setupWith(true), history, nightTime(17));
    expect(tokenless.missing.series).toHaveLength(2);
    expect(tokenless.notes).toEqual(['no missing-series issue: github-token is empty']);
    const opened = await missingSeriesOfNight(
      setupWith(true, github.octokit),
      history,
      nightTime(17),
    );
    expect(opened.notes).toEqual([]);
    expect(opened.missing.issue?.number).toBe(github.api.state.issues[0]!.number);
  });
});
