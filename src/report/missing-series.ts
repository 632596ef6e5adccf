// Series that stopped reporting (src/history/missing.ts), in a stored night's report after
// the open regressions, and in the body of the gate's one issue about them. Series of one
// benchmark on one environment last seen in the same record share a line: a benchmark
// removed by mistake is one line, not one per metric. Read defensively, field by field:
// a report.json is read back as untrusted input.

import type { GateReport, MissingSeriesView } from '../model.js';
import { codeSpan, escapeMarkdown, markdownLink } from './escape.js';
import { isStamp, stamp } from './open-regressions.js';

export type MissingSeries = NonNullable<GateReport['missingSeries']>;

/** Lines listed in the report; more are counted (the issue lists them all). */
const MAX_LISTED = 8;

/** The report's missing series, when it has any that read as they should. */
export function missingSeriesOf(report: GateReport): MissingSeries | undefined {
  const missing: unknown = (report as { missingSeries?: unknown }).missingSeries;
  if (typeof missing !== 'object' || missing === null) return undefined;
  const { branch, after, series, issue } = missing as Record<string, unknown>;
  if (typeof branch !== 'string' || !isCount(after) || !Array.isArray(series)) return undefined;
  const valid = series.filter(isView);
  if (valid.length === 0) return undefined;
  return { branch, after, series: valid, ...(isIssue(issue) ? { issue } : {}) };
}

/** "📭 3 series of `main` stopped reporting …", one line per benchmark and environment. */
export function missingSeriesBlock(missing: MissingSeries): string {
  const count = missing.series.length;
  const issue = missing.issue
    ? ` (${markdownLink(escapeMarkdown(`#${missing.issue.number}`), missing.issue.url)})`
    : '';
  const lead =
    `> 📭 **${count} series of ${codeSpan(missing.branch)} stopped reporting**${issue}: ` +
    `the gate ran on ${missing.after} or more later days without them ` +
    '(a runner down, a benchmark removed?):';
  const lines = missingSeriesLines(missing.series);
  const shown = lines.slice(0, MAX_LISTED).map((line) => `> ${line}`);
  if (lines.length > MAX_LISTED) shown.push(`> - and ${lines.length - MAX_LISTED} more`);
  return [lead, ...shown].join('\n');
}

/**
 * "- `bench` on inf2.xlarge/2 cores: latency_p50, throughput; last seen `abc1234`
 * (2026-11-20), 4 nights missed", one per benchmark, environment and last record.
 */
export function missingSeriesLines(series: readonly MissingSeriesView[]): string[] {
  const groups = new Map<string, { first: MissingSeriesView; metrics: string[] }>();
  for (const view of series) {
    const key = JSON.stringify([
      view.benchmark,
      view.environment,
      view.lastSeen.commit,
      view.lastSeen.createdAt,
    ]);
    const group = groups.get(key) ?? { first: view, metrics: [] };
    group.metrics.push(view.metric);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ first, metrics }) => {
    const nights = `${first.nightsMissed} night${first.nightsMissed === 1 ? '' : 's'} missed`;
    return (
      `- ${codeSpan(first.benchmark)} on ${escapeMarkdown(first.environment)}: ` +
      `${metrics.map(escapeMarkdown).join(', ')}; last seen ${stamp(first.lastSeen)}, ${nights}`
    );
  });
}

function isView(value: unknown): value is MissingSeriesView {
  if (typeof value !== 'object' || value === null) return false;
  const { benchmark, metric, environment, lastSeen, nightsMissed } = value as Record<
    string,
    unknown
  >;
  return (
    typeof benchmark === 'string' &&
    typeof metric === 'string' &&
    typeof environment === 'string' &&
    isStamp(lastSeen) &&
    isCount(nightsMissed)
  );
}

function isIssue(value: unknown): value is { number: number; url: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { number, url } = value as Record<string, unknown>;
  return isCount(number) && typeof url === 'string';
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
