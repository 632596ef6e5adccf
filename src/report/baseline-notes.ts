import type { BenchmarkReport, RecordStamp } from '../model.js';
import { isStamp } from './open-regressions.js';
import { codeSpan, escapeMarkdown, markdownLink } from './escape.js';
import { NOT_COMPARED } from '../environment/fingerprint.js';

/**
 * What the report reads of `BenchmarkReport.baselineInfo`. Read defensively, field by
 * field: a report.json from another version may lack it or hold something else.
 */
export interface BaselineInfoView {
  source?: string;
  commit?: string;
  commitUrl?: string;
  records?: number;
  /** The oldest and newest record pooled (record stores). */
  span?: { oldest: RecordStamp; newest: RecordStamp };
  environmentNotes: string[];
  accepted?: string;
}

export function baselineInfoOf(benchmark: BenchmarkReport): BaselineInfoView | undefined {
  const info: unknown = (benchmark as { baselineInfo?: unknown }).baselineInfo;
  if (typeof info !== 'object' || info === null) return undefined;
  const field = (key: string): unknown => (info as Record<string, unknown>)[key];
  const text = (key: string) => {
    const value = field(key);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const records = field('records');
  const notes = field('environmentNotes');
  const span = field('span') as { oldest?: unknown; newest?: unknown } | undefined;
  return {
    ...(span && isStamp(span.oldest) && isStamp(span.newest)
      ? { span: { oldest: span.oldest, newest: span.newest } }
      : {}),
    source: text('source'),
    commit: text('commit'),
    commitUrl: text('commitUrl'),
    records: typeof records === 'number' && Number.isFinite(records) ? records : undefined,
    environmentNotes: Array.isArray(notes)
      ? notes.filter((n): n is string => typeof n === 'string')
      : [],
    accepted: text('accepted'),
  };
}

/**
 * "Baseline: `perf-gate-data @ 1a2b3c4`, 5 records from 2026-03-27 (`abc1234`) to
 * 2026-03-31 ([`def5678`](…))": which records, commits and nights it was formed from.
 */
export function baselineLine(info: BaselineInfoView): string | undefined {
  const facts: string[] = [];
  if (info.source) facts.push(codeSpan(info.source));
  const records =
    info.records !== undefined ? `${info.records} record${info.records === 1 ? '' : 's'}` : '';
  const commit = commitLink(info);
  if (info.span && commit) {
    const { oldest, newest } = info.span;
    const to = `${dayOf(newest)}(${commit})`;
    const range =
      oldest.commit === newest.commit && oldest.createdAt === newest.createdAt
        ? `, ${to}`
        : ` from ${dayOf(oldest)}(${codeSpan(shortCommit(oldest.commit))}) to ${to}`;
    facts.push(`${records || 'records'}${range}`);
  } else {
    if (records) facts.push(records);
    if (commit) facts.push(`commit ${commit}`);
  }
  return facts.length > 0 ? `Baseline: ${facts.join(', ')}` : undefined;
}

/** "2026-03-31 " of a record, or nothing when its time is no date. */
function dayOf(record: RecordStamp): string {
  const day = /^\d{4}-\d{2}-\d{2}/.exec(record.createdAt)?.[0];
  return day ? `${day} ` : '';
}

function commitLink(info: BaselineInfoView): string | undefined {
  const label = info.commit ? codeSpan(shortCommit(info.commit)) : undefined;
  if (info.commitUrl) return markdownLink(label ?? 'link', info.commitUrl);
  return label;
}

function shortCommit(commit: string): string {
  return /^[0-9a-f]{40}$/i.test(commit) ? commit.slice(0, 7) : commit;
}

/**
 * "⚠️ Baseline measured on a different environment: Neuron SDK 2.26 → 2.27"; "ℹ️ Environment
 * not fully compared" when one side only lacks some fields; or, with no baseline at all, why
 * none of the stored records matched.
 */
export function environmentNotesBlock(
  benchmark: BenchmarkReport,
  info: BaselineInfoView,
): string | undefined {
  const notes = info.environmentNotes.map(escapeMarkdown);
  if (notes.length === 0) return undefined;
  const onlyUnknown = info.environmentNotes.every((note) => note.endsWith(NOT_COMPARED));
  const lead =
    benchmark.verdict === 'no-baseline'
      ? '⚠️ No baseline from the same environment'
      : onlyUnknown
        ? 'ℹ️ Environment not fully compared with the baseline'
        : '⚠️ Baseline measured on a different environment';
  if (notes.length === 1) return `> ${lead}: ${notes[0]}`;
  return [`> ${lead}:`, ...notes.map((note) => `> - ${note}`)].join('\n');
}

/** "📌 Accepted as the new normal: the regression persisted for 3 runs". */
export function acceptedNote(info: BaselineInfoView): string | undefined {
  return info.accepted
    ? `> 📌 **Accepted as the new normal:** ${escapeMarkdown(info.accepted)}`
    : undefined;
}
