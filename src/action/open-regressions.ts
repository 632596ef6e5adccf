// The baseline branch's open regressions in this run's report (record stores): after the
// store, so that a night's report counts the regression its own record confirmed, with
// the issue of each where one is open. A pull request's report names them too: its
// baseline is the branch as it is now (gate-history.ts: applyOpenRegressions).

import { errorMessage } from '../errors.js';
import { tokenLogin } from '../github/sticky-comment.js';
import { openRegressionViews } from '../history/open-regressions.js';
import type { GateReport } from '../model.js';
import { writeReportFiles, type ReportFiles } from '../publish/files.js';
import { regressionIssueLinks } from '../publish/regression-issues.js';
import type { GateSetup } from './gate-setup.js';
import type { StoreOutcome } from './gate-store.js';

type Written = { report: GateReport; files: ReportFiles };

/** The report (and its files) with the open regressions; as it was when there are none. */
export async function withOpenRegressions(
  setup: GateSetup,
  written: Written,
  stored: StoreOutcome,
): Promise<Written> {
  const history = stored.history ?? setup.history;
  const branch = history?.branch;
  if (!history || branch === undefined || written.report.ab) return written;
  const open = history.analysis.regressions.filter((r) => r.status === 'open');
  if (open.length === 0) return written;
  const issues = await issueLinks(setup, open);
  const report: GateReport = {
    ...written.report,
    openRegressions: {
      branch,
      regressions: openRegressionViews(history.analysis, issues ?? new Map()),
      ...(issues ? {} : { issuesUnread: true as const }),
    },
  };
  return { report, files: await writeReportFiles(setup.config.outDir, report, setup.config) };
}

/**
 * Each open regression's issue; undefined (and a line in the log) when they cannot be
 * read, an empty map when the gate keeps no issues (nightly-issue: false).
 */
async function issueLinks(
  setup: GateSetup,
  open: Parameters<typeof regressionIssueLinks>[2],
): Promise<Map<string, { number: number; url: string }> | undefined> {
  const { octokit, github, key, log, settings } = setup;
  if (!settings.nightlyIssue) return new Map();
  if (!octokit) return undefined;
  try {
    return await regressionIssueLinks(
      octokit,
      {
        owner: github.repository.owner,
        repo: github.repository.repo,
        gateKey: key,
        author: await tokenLogin(octokit),
      },
      open,
    );
  } catch (error) {
    log.info(`the open regressions are named without their issues: ${errorMessage(error)}`);
    return undefined;
  }
}
