// The gate's words on GitHub besides the check: the pull request's sticky comment (and
// the report artifact a two-stage comment job reads), and the nightly regression issue.
// Nothing here changes the verdict: a failed call becomes a note for the log and summary.

import { nothingMeasured } from '../compare/nothing-measured.js';
import { errorMessage } from '../errors.js';
import type { GitHubClient } from '../github/client.js';
import type { EventClass, GitHubContext } from '../github/event.js';
import { reportNightlyIssue } from '../github/nightly-issue.js';
import { isPermissionError, upsertStickyComment } from '../github/sticky-comment.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport, Comparison, GateReport } from '../model.js';
import { PROFILE_METRIC_IDS } from '../profile/metrics.js';
import type { Deadline } from '../net/deadline.js';
import type { ReportFiles } from '../publish/files.js';
import { uploadReportArtifact } from './upload-report.js';
import type { GitHubSettings } from './settings.js';

export interface PublishContext {
  github: GitHubContext;
  event: EventClass;
  settings: GitHubSettings;
  gateKey: string;
  outDir: string;
  log: Logger;
  octokit?: GitHubClient;
  /** The history keeps one issue per regression (record stores): no per-night issue then. */
  historyIssues?: boolean;
  /** The publish phase's (the octokit holds it too). */
  deadline?: Deadline;
}

/** Posts what the event calls for; returns notes on what could not be done, for the summary. */
export async function publishOnGitHub(
  report: GateReport,
  files: ReportFiles,
  context: PublishContext,
): Promise<string[]> {
  const notes: string[] = [];
  const pr = context.github.pullRequest;
  if (context.event.comment && pr) {
    notes.push(...(await uploadForCommentJob(report, files, context)));
    notes.push(...(await commentOnPullRequest(report, files, context)));
  }
  if (keepsOneIssue(report, context)) notes.push(...(await nightlyIssue(report, files, context)));
  for (const note of notes) context.log.warning(note);
  return notes;
}

/**
 * One issue open while a regression lasts: a scheduled run's, unless the history keeps one
 * per regression instead; an A/B comparison's on a schedule or by hand (the SDK-upgrade
 * recipe: examples/workflows/sdk-upgrade.yml), which the history never sees.
 */
function keepsOneIssue(report: GateReport, context: PublishContext): boolean {
  if (!context.settings.nightlyIssue) return false;
  const event = context.github.eventName;
  if (report.ab) return event === 'schedule' || event === 'workflow_dispatch';
  return event === 'schedule' && !context.historyIssues;
}

/**
 * Whether any metric says something other than "unchanged": worth a new comment. A metric
 * measured on neither side (MFU with profiling off) is no change, and neither is MFU of a
 * run that was not profiled on purpose (profile: on-change with no timing metric moved).
 */
export function reportChanged(report: GateReport): boolean {
  const changed = (benchmark: BenchmarkReport) => (m: Comparison) =>
    m.verdict !== 'unchanged' &&
    !(m.verdict === 'missing' && (m.baseline === null || notProfiled(benchmark, m)));
  return report.verdict !== 'pass' || report.benchmarks.some((b) => b.metrics.some(changed(b)));
}

function notProfiled(benchmark: BenchmarkReport, metric: Comparison): boolean {
  return benchmark.profile?.status === 'not-requested' && PROFILE_METRIC_IDS.includes(metric.id);
}

async function commentOnPullRequest(
  report: GateReport,
  files: ReportFiles,
  context: PublishContext,
): Promise<string[]> {
  const { github, octokit, settings } = context;
  const pr = github.pullRequest!;
  if (settings.comment === 'never') return [];
  if (pr.isFork) {
    return [
      `no pull request comment: a pull request from a fork gets a read-only token. The report is uploaded as an artifact for a two-stage comment job (README: "Pull requests from forks").`,
    ];
  }
  if (!octokit) return ['no pull request comment: github-token is empty'];
  try {
    const outcome = await upsertStickyComment(octokit, {
      owner: github.repository.owner,
      repo: github.repository.repo,
      issueNumber: pr.number,
      key: context.gateKey,
      body: files.commentMarkdown,
      policy: settings.comment,
      changed: reportChanged(report),
      log: context.log,
    });
    context.log.info(
      outcome.action === 'skipped'
        ? `pull request comment skipped: ${outcome.reason ?? 'policy'}`
        : `pull request comment ${outcome.action}${outcome.url ? `: ${outcome.url}` : ''}`,
    );
    return [];
  } catch (error) {
    if (isPermissionError(error)) {
      return [
        `no pull request comment: the token may not write to pull requests (${errorMessage(error)}). Give the job "permissions: pull-requests: write", or use the two-stage setup (README: "Pull requests from forks").`,
      ];
    }
    return [`the pull request comment failed: ${errorMessage(error)}`];
  }
}

async function uploadForCommentJob(
  report: GateReport,
  files: ReportFiles,
  context: PublishContext,
): Promise<string[]> {
  const pr = context.github.pullRequest!;
  try {
    const outcome = await uploadReportArtifact(report, files, {
      outDir: context.outDir,
      pr: { number: pr.number, headSha: pr.headSha, gateKey: context.gateKey },
      attempt: context.github.runAttempt,
      ...(context.deadline ? { deadline: context.deadline } : {}),
    });
    if (outcome) context.log.info(outcome);
    return [];
  } catch (error) {
    return [errorMessage(error)];
  }
}

/**
 * What a night tells the nightly issue: a regression opens or feeds it, a pass closes it.
 * A night that errored, had no baseline to compare with (an SDK upgrade), or passed with a
 * benchmark that measured none of its gated metrics (compare/nothing-measured.ts) says
 * nothing either way: it is no evidence that the regression ended.
 */
export function nightlyIssueEvidence(report: GateReport): 'regression' | 'pass' | undefined {
  if (report.verdict === 'regression') return 'regression';
  if (report.verdict !== 'pass') return undefined;
  return report.benchmarks.some((b) => nothingMeasured(b) !== undefined) ? undefined : 'pass';
}

async function nightlyIssue(
  report: GateReport,
  files: ReportFiles,
  context: PublishContext,
): Promise<string[]> {
  const { github, octokit } = context;
  if (!octokit) return ['no nightly issue: github-token is empty'];
  const evidence = nightlyIssueEvidence(report);
  if (evidence === undefined) {
    return report.verdict === 'pass'
      ? [
          'the nightly issue is left as it is: a benchmark measured none of its gated metrics, so this night says nothing of whether the regression ended',
        ]
      : [];
  }
  try {
    const outcome = await reportNightlyIssue(octokit, {
      owner: github.repository.owner,
      repo: github.repository.repo,
      key: context.gateKey,
      regressed: evidence === 'regression',
      body: files.commentMarkdown,
      ...(report.links.run ? { runUrl: report.links.run } : {}),
      log: context.log,
    });
    if (outcome.action !== 'none') {
      context.log.info(`nightly issue ${outcome.action}${outcome.url ? `: ${outcome.url}` : ''}`);
    }
    return [];
  } catch (error) {
    const hint = isPermissionError(error) ? ' Give the job "permissions: issues: write".' : '';
    return [`the nightly regression issue could not be updated: ${errorMessage(error)}.${hint}`];
  }
}
