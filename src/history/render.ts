// The history for people (text for the terminal, markdown for the regression issue) and
// for scripts (JSON). Names from records (gate keys, benchmarks, versions) come from the
// data branch: escaped in markdown, never turned into links.

import { describeDifference } from '../environment/fingerprint.js';
import { codeSpan, escapeMarkdown } from '../report/escape.js';
import { displayUnit, inUnit } from '../report/display-unit.js';
import { formatChange, formatInterval, formatValue } from '../report/numbers.js';
import type { HistoryAnalysis } from './analyze.js';
import type { ChangePoint, PointRef } from './changepoints.js';
import { pValueText } from './p-value-text.js';
import { confidencePercent } from '../text/percent.js';
import type { Regression, RegressionChange } from './regressions.js';

export const HISTORY_JSON_VERSION = 1;

/** `2026-01-31 abc1234 run 123` */
export function describeRecord(ref: Pick<PointRef, 'createdAt' | 'commit' | 'runId'>): string {
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
  return `${cp.direction} ${found}, ${confidencePercent(cp.confidence)} interval ${formatInterval(cp.interval)}, ${pValueText(cp)} [${cp.detector}]; first bad ${describeRecord(cp.firstBad)}, last good ${describeRecord(cp.lastGood)}${env}`;
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
      `  ${regression.status.padEnd(8)} ${regression.id}: first bad ${describeRecord(regression.firstBad)} (${agreeingText(regression)} on it), last good ${describeRecord(regression.lastGood)}; ${regression.changes.length} series of ${regression.benchmarks.join(', ')}${regression.belowThreshold > 0 ? `, and ${belowPhrase(regression)}` : ''}${regression.environmentChanges.length > 0 ? `; environment: ${regression.environmentChanges.map(describeDifference).join(', ')}` : ''}`,
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
    `- **Where its series put it:** ${agreementMarkdown(regression)}`,
  ];
  if (regression.environmentChanges.length > 0) {
    lines.push(
      `- **Environment changed between them:** ${regression.environmentChanges.map((d) => escapeMarkdown(describeDifference(d))).join(', ')}`,
    );
  }
  lines.push(
    `- **Benchmarks:** ${regression.benchmarks.map(codeSpan).join(', ')}`,
    '',
    '| benchmark | metric | change | 95% interval | before → after | first bad night (how sure) | found by | status |',
    '|---|---|---|---|---|---|---|---|',
    ...regression.changes.map((change) => changeRow(change, regression)),
    ...(regression.belowThreshold > 0
      ? ['', `${belowPhrase(regression)}: counted, not listed.`]
      : []),
    '',
    'Found by the history of the data branch (change points over every stored run). The records from the first bad one on are kept out of the baseline until a later change point restores the level or someone accepts it: `neuron-perf-gate baseline accept PATH`.',
  );
  if (context.runUrl) lines.push('', `Updated by [this run](${context.runUrl}).`);
  return lines.join('\n');
}

/** "3 more series moved on the same night within their thresholds": they only help name it. */
function belowPhrase(regression: Regression): string {
  const n = regression.belowThreshold;
  const within = n === 1 ? 'its threshold' : 'their thresholds';
  return `${n} more series moved on the same night within ${within} (a smaller step, or not gated)`;
}

/** "18 of 19 series agree" */
function agreeingText(regression: Regression): string {
  const { agreeing, series } = regression.consensus;
  return agreeing === series
    ? `all ${series} series agree`
    : `${agreeing} of ${series} series agree`;
}

/**
 * How far the series agree on the first bad record: the weight of their votes, and the
 * series that put it elsewhere (the first few; the table's "first bad night" says all).
 */
function agreementMarkdown(regression: Regression): string {
  const { agreeing, series, weight, locations, runId } = regression.consensus;
  const sure = `their shares of this night sum to ${weight.toFixed(1)} of ${series}`;
  if (agreeing === series) {
    const least = Math.min(...locations.map((l) => l.share));
    return `${agreeingText(regression)} on this record (${sure}; the least sure ${formatShare(least)}).`;
  }
  const elsewhere = locations.filter((l) => l.runId !== runId);
  const named = elsewhere
    .slice(0, OUTVOTED_NAMED)
    .map(
      (l) =>
        `${escapeMarkdown(`${l.benchmark} · ${l.metric}`)} on ${escapeMarkdown(describeRecord(l))}: ${formatShare(l.share)} sure of it, ${formatShare(l.agreedShare)} on this record`,
    );
  const more =
    elsewhere.length > OUTVOTED_NAMED ? `; and ${elsewhere.length - OUTVOTED_NAMED} more` : '';
  return `${agreeing} of ${series} series put it on this record (${sure}). Outvoted: ${named.join('; ')}${more}.`;
}

/** Outvoted series named in the agreement line; the table shows every one. */
const OUTVOTED_NAMED = 5;

/** Where one series put the first bad night, and how sure it is, against the agreed one. */
function locationCell(change: RegressionChange, regression: Regression): string {
  const own = change.change.firstBad;
  const sure = formatShare(change.change.location.share);
  if (own.runId === regression.consensus.runId) return `this record (${sure})`;
  const here =
    change.change.location.nights.find((n) => n.runId === regression.consensus.runId)?.share ?? 0;
  return `**${escapeMarkdown(describeRecord(own))}** (${sure}; ${formatShare(here)} on this record)`;
}

/** A likelihood share as a percent that never claims certainty: ">99%", "<1%". */
function formatShare(share: number): string {
  if (share >= 0.995) return '>99%';
  if (share < 0.005) return '<1%';
  return `${Math.round(share * 100)}%`;
}

function changeRow(change: RegressionChange, regression: Regression): string {
  const cp = change.change;
  const status =
    change.status === 'restored' && change.restoredBy
      ? `restored on ${escapeMarkdown(describeRecord(change.restoredBy.firstBad))}`
      : change.status === 'accepted' && change.acceptedBy
        ? `accepted${change.acceptedBy.by ? ` by ${escapeMarkdown(change.acceptedBy.by)}` : ''}`
        : change.status;
  const shown = displayUnit(change.unit, [cp.before.value, cp.after.value]);
  return `| ${escapeMarkdown(change.benchmark)} | ${escapeMarkdown(change.metric)} | ${formatChange(cp.change)} | ${formatInterval(cp.interval)} | ${formatValue(inUnit(cp.before.value, shown))} → ${formatValue(inUnit(cp.after.value, shown))} ${escapeMarkdown(shown.unit)} | ${locationCell(change, regression)} | ${cp.kind} (${cp.detector}) | ${status} |`;
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
