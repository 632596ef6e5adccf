// The history's part in a gate run on a record store (git-branch, s3, postgres): before the benchmarks,
// the open regressions it finds are kept out of the baseline (and out of accept-after);
// after a stored night (schedule, push to the default branch), every regression gets its
// one issue, updated while it lasts and closed when it is restored or accepted.
// Nothing here changes the verdict: a failure is a warning and a note.

import { type BaselineRecord } from '../baseline/record.js';
import { pathOfRecord } from '../baseline/record-paths.js';
import { errorMessage } from '../errors.js';
import type { GitHubClient } from '../github/client.js';
import { isPermissionError } from '../github/sticky-comment.js';
import { syncRegressionIssues } from '../publish/regression-issues.js';
import { dashboardPagesUrl } from '../publish/pages-url.js';
import type { ThisRunArtifacts } from '../publish/regression-artifacts.js';
import { tokenLogin } from '../github/sticky-comment.js';
import { analyzeHistory, type HistoryAnalysis } from '../history/analyze.js';
import type { StoredRecordSource } from '../history/read.js';
import { heldOutRecords, seenTheNightBefore } from '../history/regressions.js';
import { buildSeries, type BuildSeriesOptions, type StoredRecordRef } from '../history/series.js';
import type { Logger } from '../log.js';
import { openRegressionsByBenchmark } from '../history/open-regressions.js';
import type { ConfiguredStore } from './baseline-stores.js';

export interface GateHistory {
  /** Every stored record of the gate, with its path. */
  records: StoredRecordRef[];
  /** The configured thresholds of each benchmark: a regression issue needs a step this large. */
  thresholdsOf: ThresholdsOf;
  analysis: HistoryAnalysis;
  /** Per benchmark, the records open regressions keep out of the baseline. */
  heldOut: Map<string, Set<string>>;
  /** The branch whose records the history is of (the default branch). */
  branch?: string;
}

/**
 * What the open regressions do to this run's baseline. The branch's own nights (a push
 * to it, a schedule, a run by hand on it) are judged against the level before them, so
 * that a regression keeps failing until it is fixed or accepted. Code built on the branch
 * as it is (a pull request into it, another branch) carries the regression: it is
 * compared with the branch's records since, or it would be charged with the regression
 * (docs/pr-comment.md#when-the-baseline-branch-has-an-open-regression).
 */
export function applyOpenRegressions(
  store: Pick<ConfiguredStore, 'holdOut' | 'compareWithCurrentLevel'>,
  history: GateHistory,
  run: { branch: string | undefined; pullRequestBase: string | undefined },
): void {
  const branch = history.branch;
  if (branch === undefined) return;
  const open = openRegressionsByBenchmark(history.analysis);
  const measuresBranch = run.pullRequestBase === undefined && run.branch === branch;
  if (measuresBranch) {
    const by = new Map([...open].map(([name, o]) => [name, { ...o.oldest, branch }]));
    store.holdOut?.(history.heldOut, by);
    return;
  }
  // A pull request into another branch is compared with that branch: nothing here.
  if (run.pullRequestBase !== undefined && run.pullRequestBase !== branch) return;
  store.compareWithCurrentLevel?.(
    new Map(
      [...open].map(([name, o]) => [
        name,
        { paths: o.sinceNewest, regression: { ...o.newest, branch } },
      ]),
    ),
  );
}

type ThresholdsOf = NonNullable<BuildSeriesOptions['thresholdsOf']>;

/**
 * Reads and analyses the gate's stored records. A store that cannot be read stops the gate
 * here, before the benchmarks, with the store's own message: the baseline read next would
 * wait out the same retries only to fail the same way. An analysis that fails is a
 * warning (undefined): the gate goes on without holding regressions out of the baseline.
 */
export async function readGateHistory(
  source: StoredRecordSource,
  gateKey: string,
  defaultBranch: string | undefined,
  thresholdsOf: ThresholdsOf,
  log: Logger,
): Promise<GateHistory | undefined> {
  const read = await source.readStoredRecords(gateKey);
  try {
    return analyzeRecords(read.records, defaultBranch, thresholdsOf);
  } catch (error) {
    log.warning(
      `the stored history could not be analysed, so no regression is held out of the baseline: ${errorMessage(error)}`,
    );
    return undefined;
  }
}

/** The history with this run's new records added. */
export function withNewRecords(
  history: GateHistory,
  records: readonly BaselineRecord[],
  defaultBranch: string | undefined,
): GateHistory {
  const added = records.map((record) => ({ path: pathOfRecord(record), record }));
  return analyzeRecords([...history.records, ...added], defaultBranch, history.thresholdsOf);
}

function analyzeRecords(
  records: StoredRecordRef[],
  defaultBranch: string | undefined,
  thresholdsOf: ThresholdsOf,
): GateHistory {
  const set = buildSeries(records, {
    thresholdsOf,
    ...(defaultBranch !== undefined ? { defaultBranch } : {}),
  });
  const analysis = analyzeHistory(set);
  return {
    records,
    thresholdsOf,
    analysis,
    heldOut: heldOutRecords(analysis.regressions, analysis.analyses),
    ...(defaultBranch !== undefined ? { branch: defaultBranch } : {}),
  };
}

export interface RegressionIssueContext {
  octokit: GitHubClient;
  owner: string;
  repo: string;
  gateKey: string;
  runUrl?: string;
  /** `https://github.com/owner/repo`: the issue's commit, range, run and artifact links. */
  repositoryUrl?: string;
  /** `dashboard: pages`: the branch whose GitHub Pages site the issue links a chart on. */
  dashboardBranch?: string;
  /** This run's uploaded artifacts, for a regression whose first bad night is this run. */
  thisRun?: ThisRunArtifacts;
  /** The config file, for `bisect --config` (left out when it is the default). */
  configFile?: string;
  benchmarkCount?: number;
  /** The model each benchmark serves by the config (`accuracy.model`), when records name none. */
  configModels?: ReadonlyMap<string, string>;
  log: Logger;
}

/**
 * Brings the gate's regression issues in line with its history; returns notes on failure
 * and the issue of each regression that has one (the dashboard links them).
 */
export async function publishRegressionIssues(
  history: GateHistory,
  context: RegressionIssueContext,
): Promise<{ notes: string[]; issues: ReadonlyMap<string, number> }> {
  try {
    const dashboardUrl = context.dashboardBranch
      ? await dashboardPagesUrl(context.octokit, {
          owner: context.owner,
          repo: context.repo,
          branch: context.dashboardBranch,
          log: context.log,
        })
      : undefined;
    const outcome = await syncRegressionIssues(context.octokit, {
      owner: context.owner,
      repo: context.repo,
      gateKey: context.gateKey,
      author: await tokenLogin(context.octokit),
      regressions: history.analysis.regressions,
      seenTheNightBefore: (regression) => seenTheNightBefore(history.analysis.analyses, regression),
      ...(context.runUrl ? { runUrl: context.runUrl } : {}),
      links: {
        ...(context.repositoryUrl ? { repositoryUrl: context.repositoryUrl } : {}),
        ...(dashboardUrl ? { dashboardUrl } : {}),
        models: modelsOf(history.records, context.configModels),
        ...(context.configFile ? { configFile: context.configFile } : {}),
        ...(context.benchmarkCount !== undefined ? { benchmarkCount: context.benchmarkCount } : {}),
      },
      ...(context.thisRun ? { thisRun: context.thisRun } : {}),
      log: context.log,
    });
    const open = history.analysis.regressions.filter((r) => r.status === 'open').length;
    context.log.info(
      `history: ${open} open regression(s); issues opened ${outcome.opened.length}, updated ${outcome.updated.length}, closed ${outcome.closed.length}`,
    );
    return { notes: [], issues: outcome.issues };
  } catch (error) {
    const hint = isPermissionError(error) ? ' Give the job "permissions: issues: write".' : '';
    return {
      notes: [`the regression issues could not be updated: ${errorMessage(error)}.${hint}`],
      issues: new Map(),
    };
  }
}

/**
 * The model each benchmark measured: its newest record's (`model_id` or `model` of the
 * result file's settings, as vLLM's bench and the offline benchmark write them), else the
 * config's.
 */
export function modelsOf(
  records: readonly StoredRecordRef[],
  configModels: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const models = new Map(configModels);
  const newestFirst = [...records].sort((a, b) =>
    b.record.createdAt.localeCompare(a.record.createdAt),
  );
  const seen = new Set<string>();
  for (const { record } of newestFirst) {
    if (seen.has(record.benchmark)) continue;
    const info = record.result.info ?? {};
    const model = [info.model_id, info.model].find(
      (value): value is string => typeof value === 'string' && value.trim() !== '',
    );
    if (model === undefined) continue;
    seen.add(record.benchmark);
    models.set(record.benchmark, model);
  }
  return models;
}
