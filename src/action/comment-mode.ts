// `mode: comment`, the second stage of the fork-safe setup: a `workflow_run` job on a
// GitHub-hosted runner, with a token that may write, posts the report that the gate's
// pull request run uploaded. The artifact is untrusted input: it is validated, checked
// against the workflow_run event, rendered by this code, and never executed or used as
// a path.

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@actions/core';
import { usageError } from '../errors.js';
import { gateVerdict } from '../compare/benchmark.js';
import { createGitHubClient, type GitHubClient } from '../github/client.js';
import { setCommitStatus } from '../github/commit-status.js';
import type { GitHubContext, WorkflowRunContext } from '../github/event.js';
import {
  downloadReportArtifact,
  listReportArtifacts,
  resolveRunPullRequests,
  validateReportArtifact,
  type ReportArtifactPr,
} from '../github/report-artifact.js';
import { upsertStickyComment } from '../github/sticky-comment.js';
import type { GateReport } from '../model.js';
import { ActionLogger } from '../publish/action-logger.js';
import { countRegressions } from '../report/build.js';
import { renderComment } from '../report/markdown.js';
import { reportChanged } from './github-publish.js';
import type { GitHubSettings } from './settings.js';

export async function runCommentMode(
  github: GitHubContext,
  settings: GitHubSettings,
): Promise<void> {
  const run = github.workflowRun;
  if (github.eventName !== 'workflow_run' || !run) {
    throw usageError(
      `mode: comment runs in a job triggered by workflow_run (the gate's pull request workflow completing); this job was triggered by ${github.eventName}`,
    );
  }
  if (!settings.token) throw usageError('mode: comment needs github-token');
  const log = new ActionLogger();
  const octokit = createGitHubClient({ token: settings.token, baseUrl: github.apiUrl, log });
  const { owner, repo } = github.repository;
  const root = await mkdtemp(join(process.env.RUNNER_TEMP || tmpdir(), 'perf-gate-report-'));
  const names = await listReportArtifacts(octokit, { owner, repo, runId: run.id });
  if (names.length === 0) {
    log.info(`run ${run.id} uploaded no report artifact: nothing to post`);
    core.setOutput('verdict', 'skipped');
    return;
  }
  const prNumbers = await resolveRunPullRequests(octokit, { owner, repo, workflowRun: run });
  const verdicts: GateReport['verdict'][] = [];
  let regressions = 0;
  // One artifact per gate: the jobs of a matrix each post their own comment.
  for (const [index, name] of names.entries()) {
    const downloaded = await downloadReportArtifact(octokit, {
      owner,
      repo,
      runId: run.id,
      dir: join(root, String(index)),
      log,
      name,
    });
    if (!downloaded) continue;
    const { report, pr } = validateReportArtifact(downloaded.files, {
      prNumbers,
      headSha: run.headSha,
    });
    const gateReport = withTrustedLinks(report, github, run.id);
    await postReport(octokit, gateReport, { github, settings, run, pr, log });
    verdicts.push(gateReport.verdict);
    regressions += countRegressions(gateReport);
  }
  core.setOutput('verdict', verdicts.length > 0 ? gateVerdict(verdicts) : 'skipped');
  core.setOutput('regressions', String(regressions));
}

interface PostContext {
  github: GitHubContext;
  settings: GitHubSettings;
  run: WorkflowRunContext;
  pr: ReportArtifactPr;
  log: ActionLogger;
}

/** The sticky comment on the pull request and a commit status on its head. */
async function postReport(
  octokit: GitHubClient,
  report: GateReport,
  { github, settings, run, pr, log }: PostContext,
): Promise<void> {
  const { owner, repo } = github.repository;
  // Rendered here from the validated report.json; the artifact's comment.md is not used.
  const outcome = await upsertStickyComment(octokit, {
    owner,
    repo,
    issueNumber: pr.number,
    key: pr.gateKey,
    body: renderComment(report),
    policy: settings.comment,
    changed: reportChanged(report),
    log,
  });
  log.info(`pull request #${pr.number}: comment ${outcome.action}`);
  const regressions = countRegressions(report);
  await setCommitStatus(octokit, {
    owner,
    repo,
    sha: run.headSha,
    state:
      report.verdict === 'regression'
        ? 'failure'
        : report.verdict === 'error'
          ? 'error'
          : 'success',
    description:
      report.verdict === 'regression'
        ? `${regressions} metric(s) regressed`
        : `verdict: ${report.verdict}`,
    context: `neuron-perf-gate/${pr.gateKey}`,
    targetUrl: runUrlOf(github, run.id),
  });
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
      if (artifact?.url && !artifact.url.startsWith(`${runUrl}/`)) {
        trusted.artifact = { ...artifact };
        delete trusted.artifact.url;
      }
      const info = benchmark.baselineInfo;
      if (info?.commitUrl && !info.commitUrl.startsWith(`${repositoryUrl}/commit/`)) {
        trusted.baselineInfo = { ...info };
        delete trusted.baselineInfo.commitUrl;
      }
      return trusted;
    }),
  };
}
