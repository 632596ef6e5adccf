// The gate's first phase: what the event asks for, the resolved config and gate key, the
// GitHub client and the publish deadline, the baseline store and what it holds (read
// before the long benchmarks, so that a broken store stops the gate early).

import * as core from '@actions/core';
import { resolveGateConfig } from '../config/load.js';
import type { BenchmarkSpec, GateConfig } from '../config/types.js';
import { capacityName } from '../derive/capacity.js';
import { usageError } from '../errors.js';
import { createGitHubClient, type GitHubClient } from '../github/client.js';
import {
  checkForkSafety,
  classifyEvent,
  type EventClass,
  type GitHubContext,
} from '../github/event.js';
import { readActionInputs } from '../inputs.js';
import type { Baseline } from '../baseline/types.js';
import { Deadline, networkLimits, type NetworkLimits } from '../net/deadline.js';
import { ActionLogger } from '../publish/action-logger.js';
import { configuredStore, type ConfiguredStore } from './baseline-stores.js';
import { planDashboard } from './dashboard.js';
import { gateKey } from './gate-key.js';
import { applyOpenRegressions, readGateHistory, type GateHistory } from './gate-history.js';
import { withNightlyRuns } from './nightly-runs.js';
import type { GitHubSettings } from './settings.js';

/** Everything the later phases share. */
export interface GateSetup {
  github: GitHubContext;
  settings: GitHubSettings;
  workspace: string;
  event: EventClass;
  log: ActionLogger;
  config: GateConfig;
  key: string;
  limits: NetworkLimits;
  /** Started when the benchmarks are done: everything after them has a deadline. */
  publishing: Deadline;
  octokit?: GitHubClient;
  defaultBranch?: string;
  configured: ConfiguredStore;
  dashboard: ReturnType<typeof planDashboard>;
  history?: GateHistory;
  baseline: Baseline | undefined;
  /** The workflow run's page, for the report's link. */
  runUrl?: string;
}

/** The setup, or undefined when the event asks for nothing (the verdict output says so). */
export async function setUpGate(
  github: GitHubContext,
  settings: GitHubSettings,
  workspace: string,
): Promise<GateSetup | undefined> {
  // A fork's code never reaches this runner: checked before anything else happens.
  const forkProblem = checkForkSafety(github, { allowForkPrs: settings.allowForkPrs });
  if (forkProblem) throw usageError(forkProblem);
  const event = classifyEvent(github, { otherEvents: settings.otherEvents });
  const log = new ActionLogger();
  if (!event.compare) {
    core.info(`neuron-perf-gate: nothing to do: ${event.reason}`);
    core.setOutput('verdict', 'skipped');
    return undefined;
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
  const setup = { github, settings, workspace, event, log, config, key, limits, publishing };
  const stores = await readStores({ ...setup, ...(octokit ? { octokit } : {}), defaultBranch });
  const url = runUrlOf(github);
  return {
    ...setup,
    ...(octokit ? { octokit } : {}),
    ...(defaultBranch ? { defaultBranch } : {}),
    ...stores,
    ...(url ? { runUrl: url } : {}),
  };
}

type StoreParts = Pick<GateSetup, 'configured' | 'dashboard' | 'history' | 'baseline'>;

/** The store, the dashboard's plan, the history and the baseline, in that order. */
async function readStores(
  setup: Omit<GateSetup, keyof StoreParts | 'defaultBranch'> & {
    defaultBranch?: string | undefined;
  },
): Promise<StoreParts> {
  const { github, config, key, workspace, log, octokit, settings, defaultBranch } = setup;
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
    networkTimeoutMs: setup.limits.networkTimeoutMs,
    publishTimeoutMs: setup.limits.publishTimeoutMs,
    deadline: setup.publishing,
  });
  try {
    return await readConfiguredStore(setup, configured, defaultBranch);
  } catch (error) {
    // The gate stops here: a store's connections (postgres) must not hold the process open.
    await configured.close?.().catch(() => undefined);
    throw error;
  }
}

/** The dashboard's plan, the history and the baseline of the opened store. */
async function readConfiguredStore(
  setup: Parameters<typeof readStores>[0],
  configured: ConfiguredStore,
  defaultBranch: string | undefined,
): Promise<StoreParts> {
  const { github, config, key, log, settings } = setup;
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
    ? await readGateHistory(configured.history, key, defaultBranch, thresholdsByName(config), log)
    : undefined;
  if (history) {
    applyOpenRegressions(configured, history, {
      branch: github.refName,
      pullRequestBase: github.pullRequest?.baseRef,
    });
  }
  // Read before the (long) benchmarks run, so that a broken store stops the gate early.
  const baseline = await configured.store.load();
  for (const warning of baseline?.warnings ?? []) log.warning(warning);
  return { configured, dashboard, ...(history ? { history } : {}), baseline };
}

/**
 * Each configured benchmark's thresholds (a sweep's variants are benchmarks of their own,
 * and so is the capacity of a sweep with an SLO, under the sweep's thresholds).
 */
export function thresholdsByName(config: {
  benchmarks: readonly Pick<BenchmarkSpec, 'name' | 'thresholds' | 'sweep' | 'slo'>[];
}) {
  const byName = new Map(config.benchmarks.map((b) => [b.name, b.thresholds]));
  for (const b of config.benchmarks) {
    if (b.sweep && b.slo) byName.set(capacityName(b.sweep.name), b.thresholds);
  }
  return (benchmark: string) => byName.get(benchmark);
}

function runUrlOf(github: GitHubContext): string | undefined {
  if (!github.serverUrl || !github.repository.owner || !github.runId) return undefined;
  return `${github.serverUrl.replace(/\/$/, '')}/${github.repository.owner}/${github.repository.repo}/actions/runs/${github.runId}`;
}
