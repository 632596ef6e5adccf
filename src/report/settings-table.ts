// The comment's "Server settings" table of an entry with `sweep: settings:`: one row per
// setting (capacity with its interval, goodput and cost at capacity, verdict against its
// own baseline), the best one marked, and a line on the best setting's capacity against
// the stored best's.

import { markdownTable } from 'markdown-table';
import { codeSpan, escapeMarkdown, labelOf } from './escape.js';
import { formatChange, formatValue } from './numbers.js';
import type { ServerSettingRow, ServerSettingsView } from '../model.js';

const VERDICTS: Record<ServerSettingRow['verdict'], string> = {
  pass: '✅ pass',
  regression: '❌ regression',
  'no-baseline': '🆕 no baseline',
  error: '💥 error',
  'not-measured': '⚪ not measured',
};

export function settingsTable(view: ServerSettingsView): string {
  const unit = escapeMarkdown(view.unit);
  const header = [
    'Setting',
    'Parameters',
    `Capacity (${unit})`,
    `${Number((view.confidence * 100).toPrecision(3))}% interval`,
    `Goodput at capacity (requests/s)`,
    'USD per 1M output tokens at capacity',
    'Change',
    'Verdict',
  ];
  const rows = view.rows.map((row) => [
    `${escapeMarkdown(row.setting)}${row.best ? ' ★ best' : ''}`,
    codeSpan(parametersText(row.params)),
    row.capacity === null ? '—' : `${row.atLeast ? '≥ ' : ''}${formatValue(row.capacity)}`,
    row.interval ? `${formatValue(row.interval[0])} to ${formatValue(row.interval[1])}` : '—',
    formatValue(row.goodput),
    row.costPerMillionTokens === null ? '—' : `$${formatValue(row.costPerMillionTokens)}`,
    formatChange(row.change),
    labelOf(VERDICTS, row.verdict),
  ]);
  const table = markdownTable([header, ...rows], {
    align: ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'l'],
  });
  const reasons = view.rows
    .filter((row) => row.notMeasured !== undefined)
    .map((row) => `- ${escapeMarkdown(row.setting)}: ${escapeMarkdown(row.notMeasured!)}`);
  return [
    `### Server settings of ${escapeMarkdown(view.entry)}: capacity under the SLO`,
    table,
    ...(reasons.length > 0 ? [`Not measured:\n${reasons.join('\n')}`] : []),
    bestLine(view),
  ].join('\n\n');
}

/** `{ max-num-seqs: 8 }` as `max-num-seqs=8`, several joined with a space. */
function parametersText(params: Record<string, unknown>): string {
  return Object.entries(params)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
}

/** "**Best setting** max-num-seqs-16: … the best setting's capacity fell 10.2% …". */
function bestLine(view: ServerSettingsView): string {
  const { best, unit } = view;
  if (best.setting === null) {
    return `**Best setting**: none, as no setting's capacity was measured (${escapeMarkdown(best.benchmark)}).`;
  }
  const runnerUp = best.runnerUp
    ? `; runner-up ${escapeMarkdown(best.runnerUp.setting)}, ${formatValue(best.runnerUp.capacity)}`
    : '';
  const head = `**Best setting** ${escapeMarkdown(best.setting)}: capacity ${formatValue(best.current)} ${escapeMarkdown(unit)}${runnerUp}.`;
  if (best.change === null || best.baseline === null) {
    return `${head} No stored best setting to compare with yet (${escapeMarkdown(best.benchmark)}).`;
  }
  const moved =
    Math.abs(best.change) < 0.0005
      ? 'held'
      : `${best.change < 0 ? 'fell' : 'rose'} ${formatChange(Math.abs(best.change)).slice(1)}`;
  return `${head} The best setting's capacity ${moved} against the stored best's ${formatValue(best.baseline)} (${escapeMarkdown(best.benchmark)}: ${labelOf(VERDICTS, best.verdict)}).`;
}
