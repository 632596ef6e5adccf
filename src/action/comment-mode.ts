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
import { createGitHubClient } from '../github/client.js';
import { setCommitStatus } from '../github/commit-status.js';
import type { GitHubContext } from '../github/event.js';
import {
  downloadReportArtifact,
  resolveRunPullRequests,
  validateReportArtifact,
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
  const dir = await mkdtemp(join(process.env.RUNNER_TEMP || tmpdir(), 'perf-gate-report-'));
  const downloaded = await downloadReportArtifact(octokit, {
    owner,
    repo,
    runId: run.id,
    dir,
    log,
  });
  if (!downloaded) {
    core.setOutput('verdict', 'skipped');
    return;
  }
  const prNumbers = await resolveRunPullRequests(octokit, { owner, repo, workflowRun: run });
  const { report, pr } = validateReportArtifact(downloaded.files, {
    prNumbers,
    headSha: run.headSha,
  });
  const runUrl = `${github.serverUrl.replace(/\/$/, '')}/${owner}/${repo}/actions/runs/${run.id}`;
  const repositoryUrl = `${github.serverUrl.replace(/\/$/, '')}/${owner}/${repo}`;
  const gateReport = withTrustedLinks(report, runUrl, repositoryUrl);
  // Rendered here from the validated report.json; the artifact's comment.md is not used.
  const body = renderComment(gateReport);
  const outcome = await upsertStickyComment(octokit, {
    owner,
    repo,
    issueNumber: pr.number,
    key: pr.gateKey,
    body,
    policy: settings.comment,
    changed: reportChanged(gateReport),
    log,
  });
  log.info(`pull request #${pr.number}: comment ${outcome.action}`);
  const regressions = countRegressions(gateReport);
  await setCommitStatus(octokit, {
    owner,
    repo,
    sha: run.headSha,
    state:
      gateReport.verdict === 'regression'
        ? 'failure'
        : gateReport.verdict === 'error'
          ? 'error'
          : 'success',
    description:
      gateReport.verdict === 'regression'
        ? `${regressions} metric(s) regressed`
        : `verdict: ${gateReport.verdict}`,
    context: `neuron-perf-gate/${pr.gateKey}`,
    targetUrl: runUrl,
  });
  core.setOutput('verdict', gateReport.verdict);
  core.setOutput('regressions', String(regressions));
}

/**
 * Links in the artifact are not trusted: the run link is the triggering run's; artifact
 * links survive only when they point into that run, commit links only into this
 * repository.
 */
function withTrustedLinks(report: GateReport, runUrl: string, repositoryUrl: string): GateReport {
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
