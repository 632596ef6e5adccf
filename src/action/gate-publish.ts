// The publish phase: the report files and the profile artifacts, the dashboard, the pull
// request's comment or the issue, and the step's summary, outputs and annotations. Each
// failure is a note; only records lost on the way to the store fail the step.

import * as core from '@actions/core';
import { refuseLinkedOutDir } from '../fs/no-links.js';
import type { GateReport } from '../model.js';
import { publishArtifactOutputs, publishToActions } from '../publish/action.js';
import { uploadBenchmarkArtifacts } from '../publish/benchmark-artifacts.js';
import { writeReportFiles, type ReportFiles } from '../publish/files.js';
import { gateSecrets } from '../report/redact.js';
import { publishDashboard } from './dashboard.js';
import { thresholdsByName, type GateSetup } from './gate-setup.js';
import type { StoreOutcome } from './gate-store.js';
import { publishOnGitHub } from './github-publish.js';

/** report.json, comment.md and summary.md, with the profile artifacts' links once uploaded. */
export async function writeAndUpload(
  setup: GateSetup,
  report: GateReport,
): Promise<{ report: GateReport; files: ReportFiles }> {
  const { config, workspace, key, publishing } = setup;
  await refuseLinkedOutDir(workspace, config.outDir);
  const files = await writeReportFiles(config.outDir, report, config);
  if (!config.uploadProfiles) return { report, files };
  const uploaded = await uploadBenchmarkArtifacts(report, config, {
    // The gate key differs between matrix jobs, so their artifact names do too.
    gate: key,
    attempt: process.env.GITHUB_RUN_ATTEMPT,
    reportFile: files.report,
    secrets: gateSecrets(config, process.env),
    deadline: publishing,
  });
  publishArtifactOutputs(uploaded);
  return { report: uploaded, files: await writeReportFiles(config.outDir, uploaded, config) };
}

/** The dashboard, GitHub (comment, issue) and the step itself. */
export async function publishReport(
  setup: GateSetup,
  { report, files }: { report: GateReport; files: ReportFiles },
  store: StoreOutcome,
): Promise<void> {
  const { github, settings, config, key, log, configured, dashboard, defaultBranch } = setup;
  const notes = [...store.notes];
  if (dashboard && configured.history) {
    notes.push(
      ...(await publishDashboard({
        plan: dashboard,
        records: configured.history,
        github,
        gateKey: key,
        dataBranch: config.baselineBranch,
        ...(config.baselineStore !== 'git-branch' && configured.description
          ? { source: configured.description }
          : {}),
        ...(defaultBranch ? { defaultBranch } : {}),
        workspace: setup.workspace,
        ...(settings.token ? { token: settings.token } : {}),
        outDir: config.outDir,
        stored: store.stored,
        thresholdsOf: thresholdsByName(config),
        ...(store.issues ? { issues: store.issues } : {}),
        missingAfter: config.missingAfter,
        retentionDays: config.artifactRetentionDays,
        log,
      })),
    );
  }
  notes.push(
    ...(await publishOnGitHub(report, files, {
      github,
      event: setup.event,
      settings,
      gateKey: key,
      outDir: config.outDir,
      log,
      historyIssues: setup.history !== undefined,
      deadline: setup.publishing,
      ...(setup.octokit ? { octokit: setup.octokit } : {}),
    })),
  );
  await publishToActions(report, files, { failOnRegression: config.failOnRegression, notes });
  // Records that should have been stored and were not: the step fails, so nobody takes a
  // green run for a stored baseline (the verdict output still says how the figures were).
  if (store.lostRecords !== undefined) core.setFailed(`neuron-perf-gate: ${store.lostRecords}`);
}
