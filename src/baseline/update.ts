// When a run may write its results to the baseline store, and what it writes.
//
// Only events that cannot carry pull-request code write: a push, a schedule, a manual run
// (on the default branch; on any branch with update-baseline: always). A run whose event
// is about a pull request never writes, whatever the policy (a branch must not move the
// baseline of the one it merges into, and a comment on a pull request is not a record of
// main); neither does a run that errored (a failed run never replaces a baseline).

import type { UpdateBaselineSetting } from '../config/types.js';
import type { BenchmarkReport, GateReport } from '../model.js';
import { type Acceptance, type BaselineRecord } from './record.js';
import { createRecord } from './record-create.js';
import { pathOfRecord } from './record-paths.js';
import { persistentRegression } from './select.js';

/** The run, as far as the update policy cares. */
export interface RunEvent {
  /** GITHUB_EVENT_NAME, or `local`. */
  name: string;
  /** The branch the run measured, when it is one. */
  branch?: string;
  /** The repository's default branch, when known. */
  defaultBranch?: string;
  /** The event's payload names a pull request (see GitHubContext.carriesPullRequest). */
  carriesPullRequest?: boolean;
}

export type UpdateDecision = { write: true } | { write: false; reason: string };

/** The only events that may store: none of them runs or names pull-request code. */
const STORING_EVENTS: ReadonlySet<string> = new Set(['push', 'schedule', 'workflow_dispatch']);

/** Whether this run writes its results to the store, and if not, why. */
export function decideBaselineUpdate(
  policy: UpdateBaselineSetting,
  event: RunEvent,
  report: Pick<GateReport, 'verdict' | 'ab'>,
): UpdateDecision {
  if (policy === 'never') return { write: false, reason: 'update-baseline is never' };
  if (report.ab) {
    return {
      write: false,
      reason: 'an A/B comparison measures two sides beside each other and is never stored',
    };
  }
  if (event.carriesPullRequest === true) {
    return { write: false, reason: `a pull request never updates the baseline (${event.name})` };
  }
  if (!STORING_EVENTS.has(event.name)) {
    return {
      write: false,
      reason: `only push, schedule and workflow_dispatch store results; this run is ${event.name || 'of no event'}`,
    };
  }
  if (report.verdict === 'error') {
    return {
      write: false,
      reason: 'a benchmark failed to run, so the baseline was left as it was',
    };
  }
  if (policy === 'always') return { write: true };
  const onDefault =
    event.branch !== undefined &&
    event.defaultBranch !== undefined &&
    event.branch === event.defaultBranch;
  if (event.name === 'schedule') return { write: true };
  if ((event.name === 'push' || event.name === 'workflow_dispatch') && onDefault) {
    return { write: true };
  }
  const where = event.branch ? ` on ${event.branch}` : '';
  return {
    write: false,
    reason: `update-baseline is auto, which writes on push to ${event.defaultBranch ?? 'the default branch'}, schedule and workflow_dispatch on the default branch; this run is ${event.name}${where}`,
  };
}

export interface RecordsToWrite {
  records: BaselineRecord[];
  /** Benchmarks whose regression this run accepts as the new normal, with why. */
  accepted: Map<string, string>;
}

export interface PlanRecordsOptions {
  gateKey: string;
  commit: string;
  branch: string;
  event: string;
  runId: string;
  actor?: string;
  now?: Date;
  /** `workflow_dispatch` with `accept-current: true`. */
  acceptCurrent: boolean;
  acceptAfter: number;
  defaultBranch?: string;
  /** The stored records of a benchmark, newest first (for the regression streak). */
  history: (benchmark: string) => BaselineRecord[];
  /**
   * True while the history holds an open regression of the benchmark: accept-after then
   * accepts nothing, since only a restoring change point or an explicit acceptance may
   * close it.
   */
  openRegression?: (benchmark: string) => boolean;
}

/**
 * One record per measured benchmark. A regression is accepted as the new normal when the
 * run asks for it (accept-current) or when it is the `acceptAfter`-th in a row.
 */
export function planRecords(
  reports: BenchmarkReport[],
  options: PlanRecordsOptions,
): RecordsToWrite {
  const now = options.now ?? new Date();
  const accepted = new Map<string, string>();
  const records: BaselineRecord[] = [];
  for (const report of reports) {
    const result = report.result;
    if (report.verdict === 'error' || !result || result.metrics.length === 0) continue;
    const acceptance =
      report.verdict === 'regression' ? acceptanceOf(report, options, now) : undefined;
    if (acceptance) accepted.set(report.name, acceptance.message);
    records.push(
      createRecord({
        gateKey: options.gateKey,
        result,
        commit: options.commit,
        branch: options.branch,
        event: options.event,
        runId: options.runId,
        verdict: report.verdict,
        createdAt: now,
        ...(acceptance ? { acceptance: acceptance.acceptance } : {}),
      }),
    );
  }
  return { records, accepted };
}

/** Whether this regressed benchmark is accepted as the new normal, and the report's words. */
function acceptanceOf(
  report: BenchmarkReport,
  options: PlanRecordsOptions,
  now: Date,
): { acceptance: Acceptance; message: string } | undefined {
  const at = now.toISOString();
  if (options.acceptCurrent) {
    return {
      acceptance: { reason: 'accept-current', at, ...(options.actor ? { by: options.actor } : {}) },
      message: `accepted as the new normal by ${options.actor ?? 'this run'} (workflow_dispatch with accept-current); later runs compare with it`,
    };
  }
  if (options.acceptAfter < 1 || options.openRegression?.(report.name)) return undefined;
  const streak = persistentRegression(options.history(report.name), {
    acceptAfter: options.acceptAfter,
    ...(options.defaultBranch ? { defaultBranch: options.defaultBranch } : {}),
    environment: report.result?.environment ?? {},
  });
  if (!streak || !['push', 'schedule'].includes(options.event)) return undefined;
  return {
    acceptance: { reason: 'accept-after', at, records: streak.map(pathOfRecord) },
    message: `the regression persisted for ${options.acceptAfter} runs in a row on ${options.branch} (accept-after: ${options.acceptAfter}), so it is accepted as the new normal; later runs compare with it`,
  };
}
