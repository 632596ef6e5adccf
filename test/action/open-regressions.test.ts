// The nightly job summary while a regression issue is open: the night itself passes (its
// own check is too weak for the step, or the step is small), yet the summary and comment
// must say that the branch has an open regression and link its issue, found on a loopback
// GitHub API that checks every request against GitHub's OpenAPI description.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GateSetup } from '../../src/action/gate-setup.js';
import { withOpenRegressions } from '../../src/action/open-regressions.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { MemoryLogger } from '../../src/log.js';
import { writeReportFiles } from '../../src/publish/files.js';
import { useWorkspaces } from '../config/workspace.js';
import { allNights } from '../history/night-records.js';
import { benchmark, reportOf } from '../report/support.js';
import { useGitHubApi } from '../support/github-test.js';
import { replayNightlyJob } from '../support/nightly-replay.js';

const github = useGitHubApi({ owner: 'octo', repo: 'inf2' });
const makeWorkspace = useWorkspaces();

/** 50 nights of `a`, 10% slower from night 40: the issue is opened on night 43. */
async function nightsWithAnIssue() {
  const records = allNights({
    benchmarks: ['a'],
    nights: 50,
    slowdown: (_, night) => (night >= 40 ? 1.1 : 1),
  });
  const { last } = await replayNightlyJob(github, records, { perNight: 1, first: 40, last: 50 });
  return last;
}

async function setupOf(history: GateSetup['history']) {
  const workspace = await makeWorkspace({
    '.github/perf-gate.yml': 'benchmarks:\n  - name: a\n    command: ./bench.sh\n',
  });
  const config = { ...(await resolveGateConfig({}, { workspace })), outDir: workspace };
  return {
    config,
    history,
    octokit: github.octokit,
    github: { repository: { owner: 'octo', repo: 'inf2' } },
    key: 'nightly',
    log: new MemoryLogger(),
    settings: { nightlyIssue: true },
  } as unknown as GateSetup;
}

describe('a night that passes while the branch has an open regression', () => {
  it('says in the job summary and the comment that the regression is open, with its issue', async () => {
    const history = await nightsWithAnIssue();
    const [issue] = github.api.state.issues;
    expect(issue?.state).toBe('open');
    const setup = await setupOf(history);
    const report = reportOf([benchmark('a')]);
    const written = { report, files: await writeReportFiles(setup.config.outDir, report) };
    expect(written.files.markdown).toContain('✅ neuron-perf-gate: no performance regression');

    const shown = await withOpenRegressions(setup, written, { notes: [], stored: true });
    const url = `https://github.com/octo/inf2/issues/${issue!.number}`;
    for (const text of [shown.files.markdown, shown.files.commentMarkdown]) {
      expect(text).toContain(
        'no new regression in this run, but `main` has 1 open performance regression',
      );
      expect(text).not.toContain('no performance regression');
      expect(text).toContain(`[#\u200B${issue!.number}](${url})`);
      expect(text).toMatch(/since `abc0280` \(2026-04-10\): `a` (throughput|latency_p50)/);
    }
    // The files on disk are the ones the summary and the comment are made from.
    expect(await readFile(join(setup.config.outDir, 'summary.md'), 'utf8')).toBe(
      shown.files.markdown,
    );
    const json = JSON.parse(await readFile(shown.files.report, 'utf8'));
    expect(json.openRegressions.regressions[0].issue).toEqual({ number: issue!.number, url });
  });

  it('says the issues could not be read without a token, and claims none missing', async () => {
    const setup = await setupOf(await nightsWithAnIssue());
    const report = reportOf([benchmark('a')]);
    const written = { report, files: await writeReportFiles(setup.config.outDir, report) };
    const shown = await withOpenRegressions(
      { ...setup, octokit: undefined } as unknown as GateSetup,
      written,
      { notes: [], stored: true },
    );
    expect(shown.report.openRegressions?.issuesUnread).toBe(true);
    expect(shown.files.markdown).toContain('Their issues could not be read');
  });

  it('leaves the report as it was when nothing is open', async () => {
    const quiet = allNights({ benchmarks: ['a'], nights: 30 });
    const { last } = await replayNightlyJob(github, quiet, { perNight: 1, first: 30, last: 30 });
    const setup = await setupOf(last);
    const report = reportOf([benchmark('a')]);
    const written = { report, files: await writeReportFiles(setup.config.outDir, report) };
    expect(await withOpenRegressions(setup, written, { notes: [], stored: true })).toBe(written);
  });
});
