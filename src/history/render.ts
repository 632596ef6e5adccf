// The history for people (text for the terminal, markdown for the regression issue) and
// for scripts (JSON). Names from records (gate keys, benchmarks, versions) come from the
// data branch: escaped in markdown, never turned into links.

import { describeDifference } from '../environment/fingerprint.js';
import { codeSpan, escapeMarkdown } from '../report/escape.js';
import { displayUnit, inUnit } from '../report/display-unit.js';
import { formatChange, formatInterval, formatValue } from '../report/numbers.js';
import type { HistoryAnalysis } from './analyze.js';
import { DEFAULT_DETECT_OPTIONS, type ChangePoint, type PointRef } from './changepoints.js';
import { confidencePercent } from '../text/percent.js';
import type { Regression, RegressionChange } from './regressions.js';

export const HISTORY_JSON_VERSION = 1;

/** `2026-01-31 abc1234 run 123` */
export function describeRecord(ref: PointRef): string {
  const date = ref.createdAt.slice(0, 10);
  const commit = ref.commit ? ref.commit.slice(0, 7) : 'no commit';
  return `${date} ${commit} (run ${ref.runId})`;
}

function describeChange(cp: ChangePoint): string {
  const found =
    cp.kind === 'creep'
      ? `creep ${formatChange(cp.change)} (newest 3 nights against the first ${cp.before.nights} of the level)`
      : `step ${formatChange(cp.change)}`;
  const env =
    cp.environmentChanges.length > 0
      ? `; environment: ${cp.environmentChanges.map(describeDifference).join(', ')}`
      : '';
  return `${cp.direction} ${found}, ${confidencePercent(cp.confidence)} interval ${formatInterval(cp.interval)}, ${formatP(cp)} [${cp.detector}]; first bad ${describeRecord(cp.firstBad)}, last good ${describeRecord(cp.lastGood)}${env}`;
}

/**
 * A segmentation split's p-value is resampled: 1 / (permutations + 1) is the least it can
 * be, and every large step sits there, so it reads "p ≤ 0.005", not as a measured 0.005.
 * The other detectors' normal p-values read "p < 0.001" when tiny.
 */
function formatP(cp: ChangePoint): string {
  const { permutations } = DEFAULT_DETECT_OPTIONS;
  const least = 1 / (permutations + 1);
  if (cp.detector === 'segmentation' && Math.abs(cp.pValue - least) < 1e-12) {
    return `p ≤ ${least.toFixed(3)} (none of ${permutations} permutations as large)`;
  }
  return cp.pValue < 0.001 ? 'p < 0.001' : `p ${cp.pValue.toFixed(3)}`;
}

/** The terminal view: one line per series, its change points under it, then the regressions. */
export function renderHistoryText(analysis: HistoryAnalysis, source: string): string {
  const out: string[] = [`history of ${source}`, ''];
  if (analysis.analyses.length === 0) out.push('no series: no stored records match');
  for (const { series, changePoints, noise } of analysis.analyses) {
    const last = series.points[series.points.length - 1]!;
    const runs = series.points.reduce((s, p) => s + p.values.length, 0);
    const shown = displayUnit(
      series.unit,
      series.points.map((p) => p.mean),
    );
    out.push(
      `${series.gateKey} · ${series.benchmark} · ${series.metric} (${series.unit}, ${series.environmentKey}): ${series.points.length} nights, ${runs} runs; newest ${formatValue(inUnit(last.mean, shown))} ${shown.unit}; run CV ${pct(noise.run)}, night-to-night ${pct(noise.night)}${drift(noise.nightCorrelation)}`,
    );
    for (const cp of changePoints) out.push(`  ${describeChange(cp)}`);
  }
  out.push('', `regressions: ${analysis.regressions.length}`);
  for (const regression of analysis.regressions) {
    out.push(
      `  ${regression.status.padEnd(8)} ${regression.id}: first bad ${describeRecord(regression.firstBad)}, last good ${describeRecord(regression.lastGood)}; ${regression.changes.length} series of ${regression.benchmarks.join(', ')}${regression.environmentChanges.length > 0 ? `; environment: ${regression.environmentChanges.map(describeDifference).join(', ')}` : ''}`,
    );
  }
  return `${out.join('\n')}\n`;
}

function pct(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

/** The body of a regression's issue (without its marker line). */
export function renderRegressionMarkdown(
  regression: Regression,
  context: { runUrl?: string; now?: Date } = {},
): string {
  const statusLine: Record<Regression['status'], string> = {
    open: 'Open: the level has not come back and nobody has accepted it.',
    restored: 'Restored: a later change point brought the level back.',
    accepted: 'Accepted as the new normal (`baseline accept` or accept-current).',
  };
  const lines = [
    `## Performance regression in ${codeSpan(regression.gateKey)}`,
    '',
    statusLine[regression.status],
    '',
    `- **First bad record:** ${recordMarkdown(regression.firstBad)}`,
    `- **Last good record:** ${recordMarkdown(regression.lastGood)}`,
  ];
  if (regression.environmentChanges.length > 0) {
    lines.push(
      `- **Environment changed between them:** ${regression.environmentChanges.map((d) => escapeMarkdown(describeDifference(d))).join(', ')}`,
    );
  }
  lines.push(
    `- **Benchmarks:** ${regression.benchmarks.map(codeSpan).join(', ')}`,
    '',
    '| benchmark | metric | change | 95% interval | before → after | found by | status |',
    '|---|---|---|---|---|---|---|',
    ...regression.changes.map(changeRow),
    '',
    'Found by the history of the data branch (change points over every stored run). The records from the first bad one on are kept out of the baseline until a later change point restores the level or someone accepts it: `neuron-perf-gate baseline accept PATH`.',
  );
  if (context.runUrl) lines.push('', `Updated by [this run](${context.runUrl}).`);
  return lines.join('\n');
}

function changeRow(change: RegressionChange): string {
  const cp = change.change;
  const status =
    change.status === 'restored' && change.restoredBy
      ? `restored on ${escapeMarkdown(describeRecord(change.restoredBy.firstBad))}`
      : change.status === 'accepted' && change.acceptedBy
        ? `accepted${change.acceptedBy.by ? ` by ${escapeMarkdown(change.acceptedBy.by)}` : ''}`
        : change.status;
  const shown = displayUnit(change.unit, [cp.before.value, cp.after.value]);
  return `| ${escapeMarkdown(change.benchmark)} | ${escapeMarkdown(change.metric)} | ${formatChange(cp.change)} | ${formatInterval(cp.interval)} | ${formatValue(inUnit(cp.before.value, shown))} → ${formatValue(inUnit(cp.after.value, shown))} ${escapeMarkdown(shown.unit)} | ${cp.kind} (${cp.detector}) | ${status} |`;
}

function recordMarkdown(ref: PointRef): string {
  return `${escapeMarkdown(ref.createdAt)}, commit ${codeSpan(ref.commit || 'none')}, run ${codeSpan(ref.runId)}, ${codeSpan(ref.path)}`;
}

/** `neuron-perf-gate history --json`: the series with every run, change points, regressions. */
export function historyJson(
  analysis: HistoryAnalysis,
  meta: { source: string; commit?: string; warnings: string[] },
) {
  return {
    schemaVersion: HISTORY_JSON_VERSION,
    source: meta.source,
    ...(meta.commit ? { commit: meta.commit } : {}),
    series: analysis.analyses.map(({ series, changePoints, noise }) => ({
      ...series,
      noise,
      changePoints,
    })),
    regressions: analysis.regressions,
    warnings: meta.warnings,
  };
}

/** How alike consecutive nights are, when the history fitted a drift. */
function drift(correlation: number): string {
  return correlation > 0 ? ` (drifting: consecutive nights ${correlation.toFixed(2)} alike)` : '';
}
