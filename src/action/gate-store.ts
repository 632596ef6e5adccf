// The store phase: whether this run's results become stored records (the event, the
// policy, the verdict, accept-current), what they are, and writing them; a stored night
// updates the regression issues the history keeps, and finds its missing series.

import { decideBaselineUpdate, planRecords, type UpdateDecision } from '../baseline/update.js';
import { errorMessage } from '../errors.js';
import type { AbSummary, GateReport } from '../model.js';
import { createRecord } from '../baseline/record-create.js';
import { saveBaselineIfAllowed } from '../publish/files.js';
import type { ConfiguredStore } from './baseline-stores.js';
import { publishRegressionIssues, withNewRecords, type GateHistory } from './gate-history.js';
import { runEventOf } from './gate-measure.js';
import { missingSeriesOfNight, type MissingOutcome } from './missing-series.js';
import type { GateSetup } from './gate-setup.js';

export interface StorePlan {
  decision: UpdateDecision;
  /** workflow_dispatch with accept-current: a regression replaces the stored results too. */
  acceptCurrent: boolean;
  records?: ReturnType<typeof planRecords>;
  /** The report with the acceptances the plan makes. */
  report: GateReport;
}

/** What to store, decided before anything is written. */
export function planStore(setup: GateSetup, report: GateReport): StorePlan {
  if (report.ab) return planAbStore(setup, report, report.ab);
  const { github, config, settings, key, defaultBranch, configured, history, baseline } = setup;
  const decision = decideBaselineUpdate(config.updateBaseline, runEventOf(setup), report);
  // accept-current is a deliberate, manual act: only a workflow_dispatch run may use it.
  const acceptCurrent = settings.acceptCurrent && github.eventName === 'workflow_dispatch';
  const records =
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
  return {
    decision,
    acceptCurrent,
    ...(records ? { records } : {}),
    report: records ? withAcceptances(report, records.accepted) : report,
  };
}

/**
 * An A/B comparison is stored as records of its own (record.ts: AbRecordPart) on the
 * events and policy that store any run, and only where records are kept (the git-branch,
 * s3 and postgres stores): never a baseline, shown by the dashboard as changes.
 */
function planAbStore(setup: GateSetup, report: GateReport, ab: AbSummary): StorePlan {
  const { github, config, key, configured } = setup;
  const event = decideBaselineUpdate(config.updateBaseline, runEventOf(setup), {
    verdict: report.verdict,
  });
  const base = { decision: event, acceptCurrent: false, report };
  if (!event.write) return base;
  if (!configured.writer.appendRecords) {
    const reason =
      'an A/B comparison is kept only as records of a record store (git-branch, s3 or postgres)';
    return { ...base, decision: { write: false, reason } };
  }
  const now = new Date();
  const records = report.benchmarks.flatMap((benchmark) => {
    const result = benchmark.result;
    if (benchmark.verdict === 'error' || !result || result.metrics.length === 0) return [];
    const changes = Object.fromEntries(
      benchmark.metrics.flatMap((m) =>
        m.method === 'paired-t' && m.change !== null && m.ci
          ? [[m.id, { change: m.change, low: m.ci[0], high: m.ci[1] }]]
          : [],
      ),
    );
    return [
      createRecord({
        gateKey: key,
        result,
        commit: github.sha,
        branch: github.refName ?? github.ref,
        event: github.eventName,
        runId: `${github.runId}-${github.runAttempt}`,
        verdict: benchmark.verdict,
        createdAt: now,
        ab: {
          base: {
            label: ab.base.label,
            ...(ab.base.commit ? { commit: ab.base.commit } : {}),
            environment: ab.base.environment,
          },
          blocks: ab.blocks[benchmark.name] ?? 1,
          changes,
        },
      }),
    ];
  });
  return { ...base, records: { records, accepted: new Map() } };
}

export interface StoreOutcome {
  notes: string[];
  stored: boolean;
  /** The history with the records this run stored (record stores). */
  history?: GateHistory;
  /** Records that should have been stored and were not: the step fails. */
  lostRecords?: string;
  /** The issue of each of the gate's regressions that has one, by regression id. */
  issues?: ReadonlyMap<string, number>;
  /** A stored night's series that stopped reporting, and their issue (missing-series.ts). */
  missing?: MissingOutcome;
}

/** Stores the planned results (and a stored night's regression issues), and save-baseline. */
export async function storeResults(
  setup: GateSetup,
  plan: StorePlan,
  report: GateReport,
): Promise<StoreOutcome> {
  const outcome = plan.decision.write
    ? await writeStore(setup, plan, report)
    : notStored(setup, plan.decision);
  const { config, workspace, log } = setup;
  if (config.saveBaseline) {
    const saved = await saveBaselineIfAllowed(config.saveBaseline, report, workspace);
    if (saved.saved) log.info(`baseline saved to ${config.saveBaseline}`);
    else log.warning(`baseline not saved: ${saved.reason}`);
  }
  return outcome;
}

function notStored(
  setup: GateSetup,
  decision: Extract<UpdateDecision, { write: false }>,
): StoreOutcome {
  setup.log.info(`baseline not updated: ${decision.reason}`);
  return { notes: [], stored: false };
}

async function writeStore(
  setup: GateSetup,
  plan: StorePlan,
  report: GateReport,
): Promise<StoreOutcome> {
  const { configured, log, github, defaultBranch, history, settings } = setup;
  const notes = await writeRecords(configured, report, plan, log);
  const outcome: StoreOutcome = { notes: [...notes], stored: notes.length === 0 };
  if (notes.length > 0 && configured.writer.appendRecords && plan.records) {
    outcome.lostRecords = notes.join('; ');
  }
  // Every stored night of the default branch updates the regression issues (one per
  // regression the history finds), in place of the per-night issue of the other stores.
  const storedNight =
    history !== undefined &&
    (github.eventName === 'schedule' ||
      (github.eventName === 'push' &&
        github.refName !== undefined &&
        github.refName === defaultBranch));
  if (history && outcome.stored) {
    outcome.history = withNewRecords(history, plan.records?.records ?? [], defaultBranch);
  }
  if (storedNight && outcome.history && settings.nightlyIssue) {
    const issues = await regressionIssues(setup, outcome.history, report);
    outcome.notes.push(...issues.notes);
    outcome.issues = issues.issues;
  }
  if (storedNight && outcome.history?.branch !== undefined) {
    const found = await missingSeriesOfNight(setup, outcome.history, new Date(report.createdAt));
    outcome.missing = found.missing;
    outcome.notes.push(...found.notes);
  }
  return outcome;
}

async function regressionIssues(
  setup: GateSetup,
  history: GateHistory,
  report: GateReport,
): Promise<{ notes: string[]; issues: ReadonlyMap<string, number> }> {
  const { octokit, github, key, log, runUrl, config, dashboard } = setup;
  if (!octokit) {
    return { notes: ['no regression issues: github-token is empty'], issues: new Map() };
  }
  const { owner, repo } = github.repository;
  return publishRegressionIssues(history, {
    octokit,
    owner,
    repo,
    gateKey: key,
    ...(runUrl ? { runUrl } : {}),
    repositoryUrl: `${github.serverUrl.replace(/\/+$/, '')}/${owner}/${repo}`,
    ...(dashboard?.setting === 'pages' ? { dashboardBranch: dashboard.branch } : {}),
    thisRun: {
      runId: `${github.runId}-${github.runAttempt}`,
      artifacts: new Map(
        report.benchmarks.flatMap((b) => (b.artifact?.id ? [[b.name, b.artifact.id]] : [])),
      ),
    },
    ...(isConfigFile(config.source) ? { configFile: config.source } : {}),
    benchmarkCount: config.benchmarks.length,
    configModels: new Map(
      config.benchmarks.flatMap((b) => (b.accuracy?.model ? [[b.name, b.accuracy.model]] : [])),
    ),
    log,
  });
}

/** A config file other than the default one, which `bisect --config` must be told. */
function isConfigFile(source: string): boolean {
  return /\.ya?ml$/.test(source) && source !== '.github/perf-gate.yml';
}

/**
 * Writes this run's results to the store; a failure is a note, never a changed verdict
 * (a git-branch store's failure then fails the step, see runGateMode).
 */
async function writeRecords(
  configured: ConfiguredStore,
  report: GateReport,
  plan: StorePlan,
  log: GateSetup['log'],
): Promise<string[]> {
  const { writer } = configured;
  try {
    if (writer.appendRecords && plan.records) {
      if (plan.records.records.length === 0) return [];
      log.info(await writer.appendRecords(plan.records.records));
      return [];
    }
    // File and artifact stores hold one set of results: only accepted ones replace it
    // (the file at baseline-path, or this run's perf-gate-baseline artifact).
    const accepted = report.benchmarks.filter(
      (b) => b.verdict !== 'error' && (b.verdict !== 'regression' || plan.acceptCurrent),
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
