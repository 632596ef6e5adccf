// `mode: gate`: run the benchmarks on this runner, judge them against the stored baseline,
// store the results when the event and policy allow, and tell GitHub.

import * as core from '@actions/core';
import { decideBaselineUpdate, planRecords } from '../baseline/update.js';
import { resolveGateConfig } from '../config/load.js';
import { errorMessage, usageError } from '../errors.js';
import { createGitHubClient } from '../github/client.js';
import { checkForkSafety, classifyEvent, type GitHubContext } from '../github/event.js';
import { readActionInputs } from '../inputs.js';
import type { GateReport } from '../model.js';
import { Deadline, networkLimits } from '../net/deadline.js';
import { runGate } from '../pipeline.js';
import { gateSecrets } from '../report/redact.js';
import { ActionLogger } from '../publish/action-logger.js';
import { publishArtifactOutputs, publishToActions } from '../publish/action.js';
import { uploadBenchmarkArtifacts } from '../publish/benchmark-artifacts.js';
import { saveBaselineIfAllowed, writeReportFiles } from '../publish/files.js';
import { refuseLinkedOutDir } from '../fs/no-links.js';
import { createProcessRunner } from '../runner/process.js';
import { configuredStore, type ConfiguredStore } from './baseline-stores.js';
import { planDashboard, publishDashboard } from './dashboard.js';
import { isolatePullRequestCode } from './isolation.js';
import { runAgainstMergeBase, runEnvironments } from './ab-comparison.js';
import { gateKey } from './gate-key.js';
import { publishRegressionIssues, readGateHistory, withNewRecords } from './gate-history.js';
import { publishOnGitHub } from './github-publish.js';
import type { GitHubSettings } from './settings.js';
import { withNightlyRuns } from './nightly-runs.js';

/** What main needs to know after the gate: whether work was left running (see Deadline). */
export interface GateModeOutcome {
  abandonedWork: boolean;
}

export async function runGateMode(
  github: GitHubContext,
  settings: GitHubSettings,
  workspace: string,
): Promise<GateModeOutcome> {
  // A fork's code never reaches this runner: checked before anything else happens.
  const forkProblem = checkForkSafety(github, { allowForkPrs: settings.allowForkPrs });
  if (forkProblem) throw usageError(forkProblem);
  const event = classifyEvent(github, { otherEvents: settings.otherEvents });
  const log = new ActionLogger();
  if (!event.compare) {
    core.info(`neuron-perf-gate: nothing to do: ${event.reason}`);
    core.setOutput('verdict', 'skipped');
    return { abandonedWork: false };
  }
  log.info(event.reason);

  const config = withNightlyRuns(
    await resolveGateConfig(readActionInputs(), { workspace }),
    github.eventName,
    settings.nightlyRuns,
  );
  const key = gateKey({
    workflow: github.workflow,
    job: github.job,
    configSource: config.source,
    ...(settings.matrix ? { matrix: settings.matrix } : {}),
    ...(settings.commentKey ? { explicit: settings.commentKey } : {}),
  });
  // Every request and git call has a time limit; everything after the benchmarks (the
  // publish phase) has a deadline, so that a stuck server never costs the verdict.
  const limits = networkLimits(process.env);
  const publishing = new Deadline('the publish phase');
  const octokit = settings.token
    ? createGitHubClient({
        token: settings.token,
        baseUrl: github.apiUrl,
        log,
        timeoutMs: limits.networkTimeoutMs,
        deadline: publishing,
      })
    : undefined;
  const defaultBranch =
    github.defaultBranch ?? (github.eventName === 'schedule' ? github.refName : undefined);
  // A pull request is compared with the baseline of the branch it goes into.
  const baselineBranch = github.pullRequest?.baseRef ?? defaultBranch;
  const configured = await configuredStore({
    config,
    github,
    gateKey: key,
    ...(baselineBranch ? { baselineBranch } : {}),
    workspace,
    log,
    ...(octokit ? { octokit } : {}),
    ...(settings.token ? { token: settings.token } : {}),
    networkTimeoutMs: limits.networkTimeoutMs,
    deadline: publishing,
  });
  // Checked before the benchmarks run, like every other input.
  const dashboard = planDashboard({
    setting: settings.dashboard,
    branch: settings.dashboardBranch,
    hasRecordStore: configured.history !== undefined,
    baselineStore: config.baselineStore,
    dataBranch: config.baselineBranch,
    github,
    ...(defaultBranch ? { defaultBranch } : {}),
  });
  // The history first: its open regressions stay out of the baseline chosen below.
  const history = configured.history
    ? await readGateHistory(configured.history, key, defaultBranch, log)
    : undefined;
  if (history) configured.holdOut?.(history.heldOut);
  // Read before the (long) benchmarks run, so that a broken store stops the gate early.
  const baseline = await configured.store.load();
  for (const warning of baseline?.warnings ?? []) log.warning(warning);

  const runEvent = {
    name: github.eventName,
    carriesPullRequest: github.carriesPullRequest,
    ...(github.refName ? { branch: github.refName } : {}),
    ...(defaultBranch ? { defaultBranch } : {}),
  };
  const sandbox = await isolatePullRequestCode({
    prefer: settings.isolation,
    require: settings.requireIsolation,
    github,
    config,
    workspace,
    log,
  });
  const runner = createProcessRunner({ sandbox });
  const url = runUrl(github);
  const abDeps = { runner, log, env: process.env, ...(url ? { runUrl: url } : {}) };
  // compare-with: A/B on this runner instead of the stored baseline (ab-comparison.ts).
  let report =
    settings.compareWith === 'merge-base' && github.pullRequest
      ? await runAgainstMergeBase(config, workspace, abDeps)
      : settings.compareWith === 'environments'
        ? await runEnvironments(
            config,
            workspace,
            { base: settings.baseEnv, head: settings.headEnv },
            abDeps,
          )
        : await runGate(config, {
            runner,
            log,
            baselineStore: { load: () => Promise.resolve(baseline) },
            env: process.env,
            ...(url ? { runUrl: url } : {}),
            // Whether a passing run would be stored (profile: on-change always profiles those).
            storesBaseline: decideBaselineUpdate(config.updateBaseline, runEvent, {
              verdict: 'pass',
            }).write,
          });
  await sandbox.dispose();
  publishing.start(limits.publishTimeoutMs);

  const decision = decideBaselineUpdate(config.updateBaseline, runEvent, report);
  // accept-current is a deliberate, manual act: only a workflow_dispatch run may use it.
  const acceptCurrent = settings.acceptCurrent && github.eventName === 'workflow_dispatch';
  const plan =
    decision.write && configured.writer.appendRecords
      ? planRecords(report.benchmarks, {
          gateKey: key,
          commit: github.sha,
          branch: github.refName ?? github.ref,
          event: github.eventName,
          runId: `${github.runId}-${github.runAttempt}`,
          actor: github.actor,
          acceptCurrent,
          acceptAfter: config.acceptAfter,
          ...(defaultBranch ? { defaultBranch } : {}),
          history: baseline?.history ?? (() => []),
          ...(history ? { openRegression: (name: string) => history.heldOut.has(name) } : {}),
        })
      : undefined;
  if (plan) report = withAcceptances(report, plan.accepted);

  await refuseLinkedOutDir(workspace, config.outDir);
  let files = await writeReportFiles(config.outDir, report, config);
  if (config.uploadProfiles) {
    report = await uploadBenchmarkArtifacts(report, config, {
      // The gate key differs between matrix jobs, so their artifact names do too.
      gate: key,
      attempt: process.env.GITHUB_RUN_ATTEMPT,
      reportFile: files.report,
      secrets: gateSecrets(config, process.env),
      deadline: publishing,
    });
    publishArtifactOutputs(report);
    files = await writeReportFiles(config.outDir, report, config);
  }

  const notes: string[] = [];
  let stored = false;
  // Every stored night of the default branch updates the regression issues (one per
  // regression the history finds), in place of the per-night issue of the other stores.
  const storedNight =
    decision.write &&
    history !== undefined &&
    (github.eventName === 'schedule' ||
      (github.eventName === 'push' &&
        github.refName !== undefined &&
        github.refName === defaultBranch));
  let lostRecords: string | undefined;
  if (decision.write) {
    const storeNotes = await storeResults(configured, report, plan, { log, acceptCurrent });
    notes.push(...storeNotes);
    if (storeNotes.length > 0 && configured.writer.appendRecords && plan) {
      lostRecords = storeNotes.join('; ');
    }
    stored = storeNotes.length === 0;
    if (storedNight && storeNotes.length === 0 && settings.nightlyIssue) {
      if (!octokit) notes.push('no regression issues: github-token is empty');
      else {
        notes.push(
          ...(await publishRegressionIssues(
            withNewRecords(history, plan?.records ?? [], defaultBranch),
            {
              octokit,
              owner: github.repository.owner,
              repo: github.repository.repo,
              gateKey: key,
              ...(runUrl(github) ? { runUrl: runUrl(github)! } : {}),
              log,
            },
          )),
        );
      }
    }
  } else {
    log.info(`baseline not updated: ${decision.reason}`);
  }
  if (config.saveBaseline) {
    const saved = await saveBaselineIfAllowed(config.saveBaseline, report, workspace);
    if (saved.saved) log.info(`baseline saved to ${config.saveBaseline}`);
    else log.warning(`baseline not saved: ${saved.reason}`);
  }
  if (dashboard && configured.history) {
    notes.push(
      ...(await publishDashboard({
        plan: dashboard,
        records: configured.history,
        github,
        gateKey: key,
        dataBranch: config.baselineBranch,
        ...(defaultBranch ? { defaultBranch } : {}),
        workspace,
        ...(settings.token ? { token: settings.token } : {}),
        outDir: config.outDir,
        stored,
        retentionDays: config.artifactRetentionDays,
        log,
      })),
    );
  }

  notes.push(
    ...(await publishOnGitHub(report, files, {
      github,
      event,
      settings,
      gateKey: key,
      outDir: config.outDir,
      log,
      historyIssues: history !== undefined,
      deadline: publishing,
      ...(octokit ? { octokit } : {}),
    })),
  );
  await publishToActions(report, files, { failOnRegression: config.failOnRegression, notes });
  // Records that should have been stored and were not: the step fails, so nobody takes a
  // green run for a stored baseline (the verdict output still says how the figures were).
  if (lostRecords !== undefined) core.setFailed(`neuron-perf-gate: ${lostRecords}`);
  return { abandonedWork: publishing.abandoned };
}

interface StoreOptions {
  log: ActionLogger;
  /** workflow_dispatch with accept-current: a regression replaces the stored results too. */
  acceptCurrent: boolean;
}

/**
 * Writes this run's results to the store; a failure is a note, never a changed verdict
 * (a git-branch store's failure then fails the step, see runGateMode).
 */
async function storeResults(
  configured: ConfiguredStore,
  report: GateReport,
  plan: ReturnType<typeof planRecords> | undefined,
  { log, acceptCurrent }: StoreOptions,
): Promise<string[]> {
  const { writer } = configured;
  try {
    if (writer.appendRecords && plan) {
      if (plan.records.length === 0) return [];
      log.info(await writer.appendRecords(plan.records));
      return [];
    }
    // File and artifact stores hold one set of results: only accepted ones replace it
    // (the file at baseline-path, or this run's perf-gate-baseline artifact).
    const accepted = report.benchmarks.filter(
      (b) => b.verdict !== 'error' && (b.verdict !== 'regression' || acceptCurrent),
    );
    const results = accepted.flatMap((b) => (b.result ? [b.result] : []));
    if (results.length < report.benchmarks.length) {
      log.info(
        `baseline not updated for ${report.benchmarks.length - results.length} benchmark(s) that regressed or failed`,
      );
    }
    if (results.length === 0 || !writer.writeResults) return [];
    log.info(await writer.writeResults(results));
    return [];
  } catch (error) {
    const message = `the baseline was not updated: ${errorMessage(error)}`;
    log.warning(message);
    return [message];
  }
}

function withAcceptances(report: GateReport, accepted: Map<string, string>): GateReport {
  if (accepted.size === 0) return report;
  return {
    ...report,
    benchmarks: report.benchmarks.map((benchmark) => {
      const note = accepted.get(benchmark.name);
      if (!note) return benchmark;
      return {
        ...benchmark,
        baselineInfo: { ...(benchmark.baselineInfo ?? { source: '' }), accepted: note },
      };
    }),
  };
}

function runUrl(github: GitHubContext): string | undefined {
  if (!github.serverUrl || !github.repository.owner || !github.runId) return undefined;
  return `${github.serverUrl.replace(/\/$/, '')}/${github.repository.owner}/${github.repository.repo}/actions/runs/${github.runId}`;
}
