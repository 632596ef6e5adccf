// The action: read inputs, run the gate, publish the report on GitHub.

import * as core from '@actions/core';
import { fileBaselineStoreFor } from './baseline/file-store.js';
import { resolveGateConfig } from './config/load.js';
import { errorMessage } from './errors.js';
import { readActionInputs } from './inputs.js';
import { runGate } from './pipeline.js';
import { ActionLogger } from './publish/action-logger.js';
import { publishArtifactOutputs, publishToActions } from './publish/action.js';
import { uploadBenchmarkArtifacts } from './publish/benchmark-artifacts.js';
import { saveBaselineIfAllowed, writeReportFiles } from './publish/files.js';
import { createProcessRunner } from './runner/process.js';

export async function main(): Promise<void> {
  try {
    const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
    const config = await resolveGateConfig(readActionInputs(), { workspace });
    const log = new ActionLogger();
    let report = await runGate(config, {
      runner: createProcessRunner(),
      log,
      baselineStore: fileBaselineStoreFor(config),
      env: process.env,
      ...runUrl(),
    });
    let files = await writeReportFiles(config.outDir, report);
    if (config.uploadProfiles) {
      report = await uploadBenchmarkArtifacts(report, config, {
        gate: process.env.GITHUB_JOB || 'perf-gate',
        attempt: process.env.GITHUB_RUN_ATTEMPT,
        reportFile: files.report,
      });
      publishArtifactOutputs(report);
      // report.json and the comment now carry the artifact links.
      files = await writeReportFiles(config.outDir, report);
    }
    if (config.saveBaseline) {
      const saved = await saveBaselineIfAllowed(config.saveBaseline, report);
      if (saved.saved) core.info(`baseline saved to ${config.saveBaseline}`);
      else core.warning(`baseline not saved: ${saved.reason}`);
    }
    await publishToActions(report, files, { failOnRegression: config.failOnRegression });
  } catch (error) {
    core.setOutput('verdict', 'error');
    core.setFailed(`neuron-perf-gate: ${errorMessage(error)}`);
  }
}

function runUrl(): { runUrl?: string } {
  const { GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID } = process.env;
  if (!GITHUB_SERVER_URL || !GITHUB_REPOSITORY || !GITHUB_RUN_ID) return {};
  return { runUrl: `${GITHUB_SERVER_URL}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}` };
}
