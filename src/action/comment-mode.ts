// `mode: comment`: a job that runs none of the pull request's code, with a token that may
// write, posts the report that the gate's job uploaded. Either a job of the same
// pull_request run that `needs:` the gate's job (pull-request.yml: the job that runs the
// code keeps a read-only token), or a `workflow_run` job after the gate's run (the
// fork-safe pair). The artifact is untrusted input: it is validated, checked against the
// run and its pull request through the API, rendered by this code, and never executed or
// used as a path.

import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@actions/core';
import { errorMessage, usageError } from '../errors.js';
import { gateVerdict } from '../compare/benchmark.js';
import { createGitHubClient, type GitHubClient } from '../github/client.js';
import { setCommitStatus } from '../github/commit-status.js';
import type { GitHubContext, WorkflowRunContext } from '../github/event.js';
import {
  downloadReportArtifact,
  listReportArtifacts,
  ReportArtifactError,
  type ReportArtifactPr,
} from '../github/report-artifact.js';
import { validateReportArtifact } from '../github/report-validation.js';
import { verifyRunPullRequests } from '../github/run-pull-requests.js';
import { upsertStickyComment } from '../github/sticky-comment.js';
import type { GateReport } from '../model.js';
import { Deadline, networkLimits } from '../net/deadline.js';
import { ActionLogger } from '../publish/action-logger.js';
import { countRegressions } from '../report/build.js';
import { escapeMarkdown } from '../report/escape.js';
import { renderComment } from '../report/markdown.js';
import { redactStrings, secretValuesOf } from '../report/redact.js';
import { reportChanged } from './github-publish.js';
import type { GitHubSettings } from './settings.js';

export async function runCommentMode(
  github: GitHubContext,
  settings: GitHubSettings,
): Promise<void> {
  const run = runToPost(github);
  if (!settings.token) throw usageError('mode: comment needs github-token');
  const log = new ActionLogger();
  if (run.id === github.runId && github.pullRequest?.isFork) {
    // GitHub gives a fork's pull_request run a read-only token, whatever the job asks.
    log.info(
      'nothing posted: a pull request from a fork gets a read-only token in its own run; post its report from a workflow_run job (docs/forks.md)',
    );
    core.setOutput('verdict', 'skipped');
    return;
  }
  // The whole job publishes: its deadline starts now (src/net/deadline.ts).
  const limits = networkLimits(process.env);
  const publishing = new Deadline('the comment job');
  publishing.start(limits.publishTimeoutMs);
  const octokit = createGitHubClient({
    token: settings.token,
    baseUrl: github.apiUrl,
    log,
    timeoutMs: limits.networkTimeoutMs,
    deadline: publishing,
  });
  const { owner, repo } = github.repository;
  // RUNNER_TEMP may name a folder that is not there (a runner that cleaned it, a container).
  const scratch = process.env.RUNNER_TEMP || tmpdir();
  await mkdir(scratch, { recursive: true });
  const root = await mkdtemp(join(scratch, 'perf-gate-report-'));
  const names = await listReportArtifacts(octokit, { owner, repo, runId: run.id });
  if (names.length === 0) {
    log.info(`run ${run.id} uploaded no report artifact: nothing to post`);
    core.setOutput('verdict', 'skipped');
    return;
  }
  // The payload's head and pull requests, checked against the API (run-pull-requests.ts).
  const verified = await verifyRunPullRequests(octokit, { owner, repo, workflowRun: run });
  for (const reason of verified.rejected) log.info(`not posting on ${reason}`);
  const prNumbers = verified.prNumbers;
  const posted: GateReport[] = [];
  const refused: string[] = [];
  const notes: string[] = [];
  // One artifact per gate: the jobs of a matrix each post their own comment, and one bad
  // artifact does not keep the others from being posted.
  for (const [index, name] of names.entries()) {
    let checked: CheckedReport | undefined;
    try {
      checked = await checkedReport(
        octokit,
        { github, run, name, prNumbers, log },
        join(root, String(index)),
      );
    } catch (error) {
      refused.push(`${name}: ${errorMessage(error)}`);
      continue;
    }
    if (!checked) continue;
    notes.push(...(await postReport(octokit, checked, { github, settings, run, log })));
    posted.push(checked.report);
  }
  await writeCommentSummary(posted, notes, refused);
  for (const note of notes) log.warning(note);
  core.setOutput(
    'verdict',
    posted.length > 0
      ? gateVerdict(posted.map((r) => r.verdict))
      : refused.length > 0
        ? 'error'
        : 'skipped',
  );
  core.setOutput('regressions', String(posted.reduce((sum, r) => sum + countRegressions(r), 0)));
  if (refused.length > 0) {
    core.setFailed(`neuron-perf-gate: ${refused.join('\n')}`);
  }
}

/**
 * The pull request run whose report this job posts: the run that triggered it
 * (workflow_run), or this job's own run (pull_request, in a job that `needs:` the gate's).
 */
function runToPost(github: GitHubContext): WorkflowRunContext {
  if (github.eventName === 'workflow_run' && github.workflowRun) return github.workflowRun;
  const pr = github.pullRequest;
  if (github.eventName === 'pull_request' && pr) {
    return {
      id: github.runId,
      headSha: pr.headSha,
      pullRequests: [pr.number],
      event: 'pull_request',
    };
  }
  throw usageError(
    `mode: comment runs in a job of the pull request's own run that needs the gate's job (pull_request), or in a job triggered by workflow_run when the gate's run completes; this job was triggered by ${github.eventName}`,
  );
}

interface CheckedReport {
  report: GateReport;
  pr: ReportArtifactPr;
  /** The comment, rendered here from the validated report.json (never the artifact's comment.md). */
  body: string;
}

interface ArtifactContext {
  github: GitHubContext;
  run: WorkflowRunContext;
  name: string;
  prNumbers: number[];
  log: ActionLogger;
}

/**
 * The artifact's report, validated as untrusted input, checked against the workflow_run
 * event, its links trimmed to trusted ones and rendered; undefined when the run uploaded none.
 */
async function checkedReport(
  octokit: GitHubClient,
  { github, run, name, prNumbers, log }: ArtifactContext,
  dir: string,
): Promise<CheckedReport | undefined> {
  const { owner, repo } = github.repository;
  const downloaded = await downloadReportArtifact(octokit, {
    owner,
    repo,
    runId: run.id,
    dir,
    log,
    name,
  });
  if (!downloaded) return undefined;
  const { report, pr } = validateReportArtifact(downloaded.files, {
    prNumbers,
    headSha: run.headSha,
  });
  // Stage 1 redacted it already; a report made elsewhere may not have been.
  const trusted = redactStrings(
    withTrustedLinks(report, github, run.id),
    secretValuesOf(process.env),
  );
  return { report: trusted, pr, body: renderReportComment(trusted) };
}

interface PostContext {
  github: GitHubContext;
  settings: GitHubSettings;
  run: WorkflowRunContext;
  log: ActionLogger;
}

/**
 * The sticky comment on the pull request and, after another run, a commit status on its
 * head (in the pull request's own run the gate's job is the check). Either may fail
 * without the other. Returns what failed, for the log and the summary.
 */
async function postReport(
  octokit: GitHubClient,
  checked: CheckedReport,
  context: PostContext,
): Promise<string[]> {
  const { report, pr, body } = checked;
  const { github, settings, log } = context;
  const notes: string[] = [];
  try {
    const outcome = await upsertStickyComment(octokit, {
      ...github.repository,
      issueNumber: pr.number,
      key: pr.gateKey,
      body,
      policy: settings.comment,
      changed: reportChanged(report),
      log,
    });
    log.info(`pull request #${pr.number}: comment ${outcome.action}`);
  } catch (error) {
    notes.push(`the comment on pull request #${pr.number} failed: ${errorMessage(error)}`);
  }
  if (context.run.id !== github.runId)
    notes.push(...(await commitStatus(octokit, checked, context)));
  return notes;
}

/** The verdict as a commit status on the triggering run's head: that run's check is done. */
async function commitStatus(
  octokit: GitHubClient,
  { report, pr }: CheckedReport,
  { github, run }: PostContext,
): Promise<string[]> {
  try {
    await setCommitStatus(octokit, {
      ...github.repository,
      sha: run.headSha,
      state:
        report.verdict === 'regression'
          ? 'failure'
          : report.verdict === 'error'
            ? 'error'
            : 'success',
      description:
        report.verdict === 'regression'
          ? `${countRegressions(report)} metric(s) regressed`
          : `verdict: ${report.verdict}`,
      context: `neuron-perf-gate/${pr.gateKey}`,
      targetUrl: runUrlOf(github, run.id),
    });
    return [];
  } catch (error) {
    return [`the commit status for ${run.headSha.slice(0, 7)} failed: ${errorMessage(error)}`];
  }
}

/** The job summary: what was posted, what could not be, and which artifacts were refused. */
async function writeCommentSummary(
  posted: GateReport[],
  notes: string[],
  refused: string[],
): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  const lines = [`## neuron-perf-gate: ${posted.length} report(s) posted`, ''];
  for (const report of posted) {
    lines.push(`- ${report.benchmarks.length} benchmark(s), verdict **${report.verdict}**`);
  }
  if (notes.length > 0)
    lines.push('', '**Notes**', '', ...notes.map((note) => `- ${escapeMarkdown(note)}`));
  if (refused.length > 0) {
    lines.push('', '**Refused**', '', ...refused.map((reason) => `- ${escapeMarkdown(reason)}`));
  }
  await core.summary.addRaw(`${lines.join('\n')}\n`).write();
}

function runUrlOf(github: GitHubContext, runId: number): string {
  return `${repositoryUrlOf(github)}/actions/runs/${runId}`;
}

function repositoryUrlOf(github: GitHubContext): string {
  const { owner, repo } = github.repository;
  return `${github.serverUrl.replace(/\/$/, '')}/${owner}/${repo}`;
}

/**
 * Links in the artifact are not trusted: the run link is the triggering run's; artifact
 * links survive only when they point into that run, commit links only into this
 * repository.
 */
function withTrustedLinks(report: GateReport, github: GitHubContext, runId: number): GateReport {
  const runUrl = runUrlOf(github, runId);
  const repositoryUrl = repositoryUrlOf(github);
  return {
    ...report,
    links: { run: runUrl },
    benchmarks: report.benchmarks.map((benchmark) => {
      const trusted = { ...benchmark };
      const artifact = benchmark.artifact;
      if (artifact?.url && !isLinkInto(artifact.url, `${runUrl}/artifacts/`, /^\d+$/)) {
        trusted.artifact = { ...artifact };
        delete trusted.artifact.url;
      }
      const info = benchmark.baselineInfo;
      if (
        info?.commitUrl &&
        !isLinkInto(info.commitUrl, `${repositoryUrl}/commit/`, /^[0-9a-f]{7,64}$/i)
      ) {
        trusted.baselineInfo = { ...info };
        delete trusted.baselineInfo.commitUrl;
      }
      return trusted;
    }),
  };
}

/**
 * `url` is `prefix` followed by one path segment that fits `last`, and nothing else: a
 * prefix check alone lets `<run url>/../../..` through, which the browser resolves to
 * anywhere on the server (and `%2e%2e`, `\\` or a query do the same).
 */
function isLinkInto(url: string, prefix: string, last: RegExp): boolean {
  return url.startsWith(prefix) && last.test(url.slice(prefix.length));
}

/**
 * The comment for a validated report. One that passed the schema but that this version
 * cannot render (made by another version of the gate, or by hand) is refused, not
 * half-posted.
 */
export function renderReportComment(report: GateReport): string {
  try {
    return renderComment(report, report.config ? { config: report.config } : {});
  } catch (error) {
    throw new ReportArtifactError(
      `report.json in the report artifact cannot be rendered (${errorMessage(error)}); stage 1 and stage 2 must use the same version of neuron-perf-gate`,
    );
  }
}
