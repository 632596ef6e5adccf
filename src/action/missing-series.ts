// The history's missing series in a gate run on a record store: after a stored night
// (schedule, push to the default branch), the series that stopped reporting while the gate
// kept running are found (src/history/missing.ts), the gate's one issue about them is
// brought in line, and the night's report names them after the open regressions. A pull
// request's report does not: nothing it changes can bring a series back.
// Nothing here changes the verdict: a failure is a warning and a note.

import { errorMessage } from '../errors.js';
import type { GitHubClient } from '../github/client.js';
import { isPermissionError, tokenLogin } from '../github/sticky-comment.js';
import { findMissingSeries, missingSeriesView } from '../history/missing.js';
import type { Logger } from '../log.js';
import type { GateReport, MissingSeriesView } from '../model.js';
import { writeReportFiles, type ReportFiles } from '../publish/files.js';
import { syncMissingIssue } from '../publish/missing-issue.js';
import type { GateHistory } from './gate-history.js';
import type { GateSetup } from './gate-setup.js';

export type MissingOutcome = NonNullable<GateReport['missingSeries']>;

/** The history's missing series as the report names them; none when `after` is 0. */
export function missingOfHistory(
  history: GateHistory,
  after: number,
  now: Date,
): MissingSeriesView[] {
  const series = history.analysis.analyses.map((analysis) => analysis.series);
  return findMissingSeries(series, { after, now }).map(missingSeriesView);
}

export interface MissingIssueContext {
  octokit: GitHubClient;
  owner: string;
  repo: string;
  gateKey: string;
  branch: string;
  after: number;
  runUrl?: string;
  log: Logger;
}

/** Brings the gate's missing-series issue in line; its link, or a note on failure. */
export async function publishMissingIssue(
  missing: readonly MissingSeriesView[],
  context: MissingIssueContext,
): Promise<{ notes: string[]; issue?: { number: number; url: string } }> {
  try {
    const outcome = await syncMissingIssue(context.octokit, {
      ...context,
      author: await tokenLogin(context.octokit),
      missing,
    });
    context.log.info(
      `history: ${missing.length} series stopped reporting; missing-series issue ${outcome.action}`,
    );
    return { notes: [], ...(outcome.issue ? { issue: outcome.issue } : {}) };
  } catch (error) {
    const hint = isPermissionError(error) ? ' Give the job "permissions: issues: write".' : '';
    return {
      notes: [`the missing-series issue could not be updated: ${errorMessage(error)}.${hint}`],
    };
  }
}

/**
 * The series that stopped reporting, counted up to this run's time, and (nightly-issue)
 * the gate's one issue about them.
 */
export async function missingSeriesOfNight(
  setup: GateSetup,
  history: GateHistory,
  now: Date,
): Promise<{ missing: MissingOutcome; notes: string[] }> {
  const { octokit, github, key, log, runUrl, config, settings } = setup;
  const branch = history.branch!;
  const series = missingOfHistory(history, config.missingAfter, now);
  const missing = { branch, after: config.missingAfter, series };
  if (!settings.nightlyIssue || config.missingAfter === 0) return { missing, notes: [] };
  if (!octokit) {
    const notes = series.length > 0 ? ['no missing-series issue: github-token is empty'] : [];
    return { missing, notes };
  }
  const { notes, issue } = await publishMissingIssue(series, {
    octokit,
    owner: github.repository.owner,
    repo: github.repository.repo,
    gateKey: key,
    branch,
    after: config.missingAfter,
    ...(runUrl ? { runUrl } : {}),
    log,
  });
  return { missing: { ...missing, ...(issue ? { issue } : {}) }, notes };
}

/** The report (and its files) naming the missing series; as it was when there are none. */
export async function withMissingSeries(
  setup: GateSetup,
  written: { report: GateReport; files: ReportFiles },
  missing: MissingOutcome | undefined,
): Promise<{ report: GateReport; files: ReportFiles }> {
  if (!missing || missing.series.length === 0 || written.report.ab) return written;
  const report: GateReport = { ...written.report, missingSeries: missing };
  return { report, files: await writeReportFiles(setup.config.outDir, report, setup.config) };
}
