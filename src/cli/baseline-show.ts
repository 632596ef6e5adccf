// The output of `baseline show`: one record's facts and a table of its metric summaries.

import type { BaselineRecord } from '../baseline/record.js';
import { displayUnit, inUnit } from '../report/display-unit.js';
import { formatValue } from '../report/numbers.js';
import { alignColumns } from './baseline-table.js';

export function renderRecord(
  path: string,
  record: BaselineRecord,
  acceptedBy: readonly string[],
): string {
  const facts: [string, string][] = [
    ['record', path],
    ['gate', record.gateKey],
    ['benchmark', record.benchmark],
    ['created', record.createdAt],
    ['branch', record.branch || '-'],
    ['commit', record.commit || '-'],
    ['event', record.event],
    ['run id', record.runId],
    ['verdict', record.verdict],
    ['config hash', record.configHash ?? '-'],
    ['tool', `${record.tool.name} ${record.tool.version}`],
    ['acceptance', acceptanceText(record)],
  ];
  if (acceptedBy.length > 0) facts.push(['accepted by', acceptedBy.join(', ')]);
  const environment = Object.entries(record.environment).filter(([, v]) => v !== undefined);
  const lines = [
    ...alignColumns(facts),
    '',
    'environment',
    ...(environment.length > 0
      ? alignColumns(environment.map(([key, value]) => [key, String(value)])).map((l) => `  ${l}`)
      : ['  (none recorded)']),
    '',
    ...metricTable(record),
  ];
  return `${lines.join('\n')}\n`;
}

function acceptanceText(record: BaselineRecord): string {
  const acceptance = record.acceptance;
  if (!acceptance) return '-';
  const parts = [`${acceptance.reason} at ${acceptance.at}`];
  if (acceptance.by) parts.push(`by ${acceptance.by}`);
  if (acceptance.note) parts.push(`(${acceptance.note})`);
  if (acceptance.records?.length) parts.push(`accepting ${acceptance.records.join(', ')}`);
  return parts.join(' ');
}

const METRIC_HEADER = ['metric', 'unit', 'mean', 'min', 'max', 'runs', 'p50', 'p95', 'p99'];

function metricTable(record: BaselineRecord): string[] {
  const units = new Map(record.result.metrics.map((m) => [m.id, m.unit]));
  const rows = Object.entries(record.summary).map(([id, s]) => {
    // In the unit the figures read best in, as in the report (ns for a tiny pytest round).
    const shown = displayUnit(units.get(id) ?? '', [s.mean, s.min, s.max, s.p50, s.p95, s.p99]);
    const value = (v: number | undefined) =>
      v === undefined ? '-' : formatValue(inUnit(v, shown));
    return [
      id,
      shown.unit,
      value(s.mean),
      value(s.min),
      value(s.max),
      String(s.runs),
      value(s.p50),
      value(s.p95),
      value(s.p99),
    ];
  });
  if (rows.length === 0) return ['metrics: none recorded'];
  return alignColumns([METRIC_HEADER, ...rows], [2, 3, 4, 5, 6, 7, 8]);
}
