// The baseline branch's open regressions in the report: a block under the headline (they
// are there whatever this run's verdict, with their issue), and a note in each benchmark
// whose baseline one of them shaped (compared with the branch as it is now, or held out).
// Read defensively, field by field: a report.json from a pull request's run is untrusted.

import type { BenchmarkReport, GateReport, OpenRegressionView, RecordStamp } from '../model.js';
import { codeSpan, escapeMarkdown, markdownLink } from './escape.js';
import { formatChange } from './numbers.js';

/** Regressions listed one by one; more are counted. */
const MAX_LISTED = 5;
/** Changes named per regression; more are counted. */
const MAX_CHANGES = 4;

export interface OpenRegressions {
  branch: string;
  regressions: OpenRegressionView[];
  issuesUnread?: true;
}

/** The report's open regressions, when it has any that read as they should. */
export function openRegressionsOf(report: GateReport): OpenRegressions | undefined {
  const open: unknown = (report as { openRegressions?: unknown }).openRegressions;
  if (typeof open !== 'object' || open === null) return undefined;
  const { branch, regressions, issuesUnread } = open as Record<string, unknown>;
  if (typeof branch !== 'string' || !Array.isArray(regressions)) return undefined;
  const valid = regressions.flatMap((r) => (isView(r) ? [r] : []));
  if (valid.length === 0) return undefined;
  return { branch, regressions: valid, ...(issuesUnread === true ? { issuesUnread } : {}) };
}

/** "⚠️ `main` has 1 open performance regression: …", one line per regression. */
export function openRegressionsBlock(open: OpenRegressions): string {
  const count = open.regressions.length;
  const lead =
    `> ⚠️ **${codeSpan(open.branch)} has ${count} open performance regression${count === 1 ? '' : 's'}**, ` +
    'found by the history of its stored records and neither restored nor accepted:';
  const lines = open.regressions
    .slice(0, MAX_LISTED)
    .map((r) => `> - ${regressionLine(r, open.issuesUnread === true)}`);
  if (count > MAX_LISTED) lines.push(`> - and ${count - MAX_LISTED} more`);
  if (open.issuesUnread) {
    lines.push("> Their issues could not be read: give the job's token `issues: read`.");
  }
  return [lead, ...lines].join('\n');
}

/**
 * Under a benchmark's baseline line: what an open regression did to its baseline, with
 * the regression's issue when the report knows it.
 */
export function openRegressionNote(
  benchmark: BenchmarkReport,
  open: OpenRegressions | undefined,
): string | undefined {
  const note = noteOf(benchmark);
  if (!note) return undefined;
  const view = open?.regressions.find((r) => r.id === note.id);
  const issue = view?.issue ? ` (${issueLink(view.issue)})` : '';
  const branch = codeSpan(note.branch);
  const since = `${stamp(note.firstBad)}${issue}`;
  if (note.use === 'since') {
    return (
      `> ℹ️ **Compared with ${branch} as it is now**, its open regression included: the ` +
      `baseline is taken from the ${count(note.records, 'record')} since the regression's ` +
      `first bad commit ${since}, which this change is built on, so it is not charged with it.`
    );
  }
  return (
    `> ℹ️ ${branch}'s open regression since ${since} is held out of this baseline ` +
    `(${count(note.records, 'record')}): ${branch}'s own runs are judged against the level ` +
    'before it until it is restored or accepted.'
  );
}

function regressionLine(r: OpenRegressionView, issuesUnread: boolean): string {
  const shown = r.changes
    .slice(0, MAX_CHANGES)
    .map((c) => `${codeSpan(c.benchmark)} ${escapeMarkdown(c.metric)} ${formatChange(c.change)}`);
  if (r.changes.length > MAX_CHANGES) shown.push(`${r.changes.length - MAX_CHANGES} more`);
  const issue = r.issue ? `${issueLink(r.issue)}: ` : '';
  const noIssue =
    r.issue || issuesUnread
      ? ''
      : r.persistent
        ? ' (no issue found)'
        : ` (no issue yet: one is opened when two nights in a row show it${r.oneValueANight ? ', four with one value a night' : ''})`;
  return `${issue}since ${stamp(r.firstBad)}: ${shown.join(', ')}${noIssue}`;
}

/** "#12" as a link; escaped, so that GitHub makes no cross-reference of it on each update. */
function issueLink(issue: { number: number; url: string }): string {
  return markdownLink(escapeMarkdown(`#${issue.number}`), issue.url);
}

/** "`abc1234` (2026-03-31)". */
export function stamp(record: RecordStamp): string {
  const commit = /^[0-9a-f]{40}$/i.test(record.commit) ? record.commit.slice(0, 7) : record.commit;
  const day = /^\d{4}-\d{2}-\d{2}/.exec(record.createdAt)?.[0];
  return `${codeSpan(commit || 'no commit')}${day ? ` (${day})` : ''}`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

type Note = NonNullable<NonNullable<BenchmarkReport['baselineInfo']>['openRegression']>;

function noteOf(benchmark: BenchmarkReport): Note | undefined {
  const info: unknown = (benchmark as { baselineInfo?: unknown }).baselineInfo;
  const note: unknown =
    typeof info === 'object' && info !== null
      ? (info as { openRegression?: unknown }).openRegression
      : undefined;
  if (typeof note !== 'object' || note === null) return undefined;
  const { id, branch, firstBad, use, records } = note as Record<string, unknown>;
  if (typeof id !== 'string' || typeof branch !== 'string' || !isStamp(firstBad)) return undefined;
  if ((use !== 'since' && use !== 'held-out') || !isCount(records)) return undefined;
  return { id, branch, firstBad, use, records };
}

function isView(value: unknown): value is OpenRegressionView {
  if (typeof value !== 'object' || value === null) return false;
  const { id, firstBad, changes, persistent, oneValueANight, issue } = value as Record<
    string,
    unknown
  >;
  return (
    typeof id === 'string' &&
    isStamp(firstBad) &&
    typeof persistent === 'boolean' &&
    (oneValueANight === undefined || oneValueANight === true) &&
    Array.isArray(changes) &&
    changes.every(isChange) &&
    (issue === undefined || isIssue(issue))
  );
}

function isChange(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { benchmark, metric, change } = value as Record<string, unknown>;
  return typeof benchmark === 'string' && typeof metric === 'string' && isFiniteNumber(change);
}

function isIssue(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { number, url } = value as Record<string, unknown>;
  return isCount(number) && typeof url === 'string';
}

export function isStamp(value: unknown): value is RecordStamp {
  if (typeof value !== 'object' || value === null) return false;
  const { commit, createdAt } = value as Record<string, unknown>;
  return typeof commit === 'string' && typeof createdAt === 'string';
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
