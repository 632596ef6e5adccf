// The history for people (text for the terminal, markdown for the regression issue) and
// for scripts (JSON). Names from records (gate keys, benchmarks, versions) come from the
// data branch: escaped in markdown, never turned into links; the issue's links are made
// by commit-range.ts from checked bases, hex shas and numeric ids only.

import { describeDifference } from '../environment/fingerprint.js';
import { codeSpan, escapeMarkdown } from '../report/escape.js';
import { displayUnit, inUnit } from '../report/display-unit.js';
import { formatChange, formatInterval, formatValue } from '../report/numbers.js';
import type { HistoryAnalysis } from './analyze.js';
import type { ChangePoint, PointRef } from './changepoints.js';
import { pValueText } from './p-value-text.js';
import { confidencePercent } from '../text/percent.js';
import type { Regression, RegressionChange } from './regressions.js';
import {
  artifactLink,
  bisectCommand,
  commitLink,
  compareLink,
  isCommitSha,
  numericRunId,
  repositoryBase,
  runLink,
  seriesLink,
} from './commit-range.js';

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

/** What an issue links to and names beside the regression itself; every field optional. */
export interface RegressionIssueContext {
  /** This run's page: "Updated by this run". */
  runUrl?: string;
  /** `https://github.com/owner/repo`: commits, the range, runs and artifacts below it (checked). */
  repositoryUrl?: string;
  /** The dashboard page (GitHub Pages), whose `#series=<id>` anchor opens one chart (checked). */
  dashboardUrl?: string;
  /** Artifact ids of the first bad night's run, by benchmark: its profile, logs and results. */
  profileArtifacts?: ReadonlyMap<string, number>;
  /** The model a benchmark measured, where its record or the config names one. */
  models?: ReadonlyMap<string, string>;
  /** The config file for `bisect --config` when not the default one. */
  configFile?: string;
  /** How many benchmarks the gate has: with several, `bisect` needs `--benchmark`. */
  benchmarkCount?: number;
}

/**
 * The body of a regression's issue (without its marker line): what moved, the commit range
 * and its links, the night's run and profile, the environment, how it was found, the next
 * step, then every series. The parts an engineer acts on come first, so a cut body keeps them.
 */
export function renderRegressionMarkdown(
  regression: Regression,
  context: RegressionIssueContext = {},
): string {
  const worst = worstChange(regression);
  const instance = regression.firstBad.environment.instanceType;
  const lines = [
    `## Performance regression in ${codeSpan(regression.gateKey)}${instance ? ` on ${escapeMarkdown(instance)}` : ''}`,
    '',
    STATUS_LINE[regression.status],
    '',
    ...(worst ? [worstLine(worst), ''] : []),
    `- **Commits:** ${commitsMarkdown(regression, context)}`,
    `- **First bad night:** ${nightMarkdown(regression, context)}`,
    `- **Environment:** ${environmentMarkdown(regression, worst, context)}`,
    ...(regression.environmentChanges.length > 0
      ? [
          `- **Environment changed between the nights:** ${regression.environmentChanges.map((d) => escapeMarkdown(describeDifference(d))).join(', ')}`,
        ]
      : []),
    ...(worst ? [`- **How it was found:** ${howFound(worst.change)}.`] : []),
    `- **Series:** ${agreementSentence(regression)}${dashboardMarkdown(worst, context)}`,
    '',
    ...nextSteps(regression, worst, context),
    '',
    '### Series past their thresholds',
    '',
    ...seriesTable(regression),
    ...outvotedDetails(regression),
    '',
    'The records from the first bad night on are kept out of the baseline until a later change point brings the level back or someone accepts it.',
  ];
  if (context.runUrl) lines.push('', `Updated by [this run](${context.runUrl}).`);
  return lines.join('\n');
}

const STATUS_LINE: Record<Regression['status'], string> = {
  open: 'Open: the level has not come back and nobody has accepted it.',
  restored: 'Restored: a later change point brought the level back.',
  accepted: 'Accepted as the new normal (`baseline accept` or accept-current).',
};

/** The change to act on: the largest step of the open series (of any, when none is open). */
function worstChange(regression: Regression): RegressionChange | undefined {
  const open = regression.changes.filter((c) => c.status === 'open');
  const pool = open.length > 0 ? open : regression.changes;
  const size = (c: RegressionChange) => Math.abs(Math.log1p(c.change.change));
  return pool.reduce<RegressionChange | undefined>(
    (worst, c) => (!worst || size(c) > size(worst) ? c : worst),
    undefined,
  );
}

function worstLine(worst: RegressionChange): string {
  const cp = worst.change;
  const shown = displayUnit(worst.unit, [cp.before.value, cp.after.value]);
  return `**${escapeMarkdown(worst.benchmark)} · ${escapeMarkdown(worst.metric)} ${formatChange(cp.change)}** (${confidencePercent(cp.confidence)} interval ${formatInterval(cp.interval)}), ${formatValue(inUnit(cp.before.value, shown))} → ${formatValue(inUnit(cp.after.value, shown))} ${escapeMarkdown(shown.unit)}`;
}

/** "the culprit is in the commits after [a1b2c3d] (last good, …) up to [e4f5a6b] (first bad, …): compare" */
function commitsMarkdown(regression: Regression, context: RegressionIssueContext): string {
  const base = repositoryBase(context.repositoryUrl);
  const { lastGood, firstBad } = regression;
  const digits = shortShaLength(lastGood.commit, firstBad.commit);
  const commit = (ref: PointRef) => {
    const sha = isCommitSha(ref.commit);
    const text = codeSpan(sha ? ref.commit.slice(0, digits) : ref.commit || 'none');
    const link = commitLink(base, ref.commit);
    return link ? `[${text}](${link})` : text;
  };
  if (lastGood.commit === firstBad.commit) {
    return `both nights measured ${commit(firstBad)}: the commits did not change, so look at the environment and the runner.`;
  }
  const range = compareLink(base, lastGood.commit, firstBad.commit);
  return `the culprit is in the commits after ${commit(lastGood)} (last good, ${day(lastGood)}) up to ${commit(firstBad)} (first bad, ${day(firstBad)})${range ? `: [compare the range](${range})` : ''}.`;
}

/** Seven digits, or as many as it takes to tell the two commits apart (as git abbreviates). */
function shortShaLength(a: string, b: string): number {
  let digits = 7;
  while (digits < 40 && a.slice(0, digits) === b.slice(0, digits) && a !== b) digits += 1;
  return digits;
}

/** The first bad night's date, its workflow run and its profile artifacts. */
function nightMarkdown(regression: Regression, context: RegressionIssueContext): string {
  const base = repositoryBase(context.repositoryUrl);
  const { firstBad } = regression;
  const runId = numericRunId(firstBad.runId);
  const link = runLink(base, firstBad.runId);
  const run = link ? `[workflow run ${runId}](${link})` : `run ${codeSpan(firstBad.runId)}`;
  const artifacts = regression.benchmarks.flatMap((benchmark) => {
    const id = context.profileArtifacts?.get(benchmark);
    const url = id === undefined ? undefined : artifactLink(base, firstBad.runId, id);
    return url ? [`[profile and logs of ${escapeMarkdown(benchmark)}](${url})`] : [];
  });
  const profile = artifacts.length > 0 ? `; ${artifacts.join(', ')}` : '';
  return `${day(firstBad)}, ${run}${profile}.`;
}

/** "inf2.xlarge, Neuron SDK 2.21.0, model `Qwen/Qwen3-8B` (gate key `x`, series environment `…`)" */
function environmentMarkdown(
  regression: Regression,
  worst: RegressionChange | undefined,
  context: RegressionIssueContext,
): string {
  const env = regression.firstBad.environment;
  const models = [
    ...new Set(regression.benchmarks.flatMap((b) => context.models?.get(b) ?? [])),
  ].slice(0, 3);
  const parts = [
    env.instanceType ? escapeMarkdown(env.instanceType) : 'instance type not recorded',
    env.neuronSdkVersion
      ? `Neuron SDK ${escapeMarkdown(env.neuronSdkVersion)}`
      : 'Neuron SDK not recorded',
    ...(models.length > 0 ? [`model ${models.map(codeSpan).join(', ')}`] : []),
  ];
  const series = worst ? `, series environment ${codeSpan(worst.environmentKey)}` : '';
  return `${parts.join(', ')} (gate key ${codeSpan(regression.gateKey)}${series}).`;
}

/** How the history found the change, in plain words; the test's name in parentheses. */
export function howFound(cp: ChangePoint): string {
  // "p ≤ 0.005 (none of 199 permutations as large)" reads inside parentheses as "…; none …".
  const p = pValueText(cp)
    .replace(/^p (\d)/, 'p = $1')
    .replace(/ \((.*)\)$/, '; $1');
  const nights = (n: number) => `${n} night${n === 1 ? '' : 's'}`;
  if (cp.detector === 'creep') {
    return `a slow drift: the newest ${nights(cp.after.nights)} sit ${formatChange(cp.change)} off the first ${nights(cp.before.nights)} of the level, though no single night stepped (one-sided trend test, ${p})`;
  }
  if (cp.detector === 'tail') {
    return `a step in the newest nights: the newest ${nights(cp.after.nights)} against the ${nights(cp.before.nights)} before them, each odd night counted at most three of its deviations (tail test, ${p})`;
  }
  return `a step between two nights, found by comparing the nights before and after every night: the ${nights(cp.before.nights)} before against the ${nights(cp.after.nights)} from the first bad one (permutation test, ${p})`;
}

/** "3 of 3 series agree on this night", or "18 of 19 …; the other one is listed below" */
function agreementSentence(regression: Regression): string {
  const { agreeing, series } = regression.consensus;
  const others = series - agreeing;
  const rest =
    others === 0
      ? ''
      : `; the other ${others === 1 ? 'one is' : `${others} are`} listed below the table`;
  return `${agreeing} of ${series} series agree on this night${rest}.`;
}

function dashboardMarkdown(
  worst: RegressionChange | undefined,
  context: RegressionIssueContext,
): string {
  const link = worst && seriesLink(context.dashboardUrl, worst.seriesId);
  return link ? ` [See the chart of the worst series on the dashboard](${link}).` : '';
}

/** The bisect command with both ends filled in, then accepting it as the alternative. */
function nextSteps(
  regression: Regression,
  worst: RegressionChange | undefined,
  context: RegressionIssueContext,
): string[] {
  const several = (context.benchmarkCount ?? regression.benchmarks.length) > 1;
  const command = bisectCommand(regression.lastGood.commit, regression.firstBad.commit, {
    ...(context.configFile && isCommandWord(context.configFile)
      ? { config: context.configFile }
      : {}),
    ...(worst && several && isCommandWord(worst.benchmark) ? { benchmark: worst.benchmark } : {}),
    ...(worst && isCommandWord(worst.metric) ? { metric: worst.metric } : {}),
  });
  const accepts = acceptCommands(regression);
  return [
    '### Next step',
    '',
    ...(command
      ? [
          'Find the commit that did it: in a clone, on a runner like the one above, run',
          '',
          '```sh',
          command,
          '```',
        ]
      : [
          'There is no range of commits to bisect (the two nights name no two commits): compare the environments and runners of the two nights.',
        ]),
    '',
    accepts.length > 0
      ? 'If the change is intended, accept it as the new normal instead (or run the nightly workflow by hand with accept-current):'
      : 'If the change is intended, accept it as the new normal instead: `neuron-perf-gate baseline accept RECORD` with the first bad record of each benchmark, or run the nightly workflow by hand with accept-current.',
    ...(accepts.length > 0 ? ['', '```sh', ...accepts, '```'] : []),
  ];
}

/** A name that can go into a one-line command in a code block (no line break, no backtick). */
function isCommandWord(word: string): boolean {
  return word.length > 0 && ![...word].some((c) => c === '`' || c < ' ' || c === '\u007f');
}

/** `baseline accept <first bad record>` for each benchmark, when its path is plain. */
function acceptCommands(regression: Regression): string[] {
  const paths = new Map<string, string>();
  for (const change of regression.changes) {
    if (change.status !== 'open' || paths.has(change.benchmark)) continue;
    paths.set(change.benchmark, change.change.firstBad.path);
  }
  const plain = [...new Set(paths.values())].filter((path) => /^[A-Za-z0-9._@+=/-]+$/.test(path));
  return plain.length === new Set(paths.values()).size
    ? plain.map((path) => `neuron-perf-gate baseline accept ${path}`)
    : [];
}

/** Rows of the series table at most: a history of hundreds of series keeps the body short. */
const TABLE_ROWS = 40;

function seriesTable(regression: Regression): string[] {
  const shown = regression.changes.slice(0, TABLE_ROWS);
  const more = regression.changes.length - shown.length;
  return [
    '| benchmark | metric | change | 95% interval | before → after | first bad night (how sure) | found as | status |',
    '|---|---|---|---|---|---|---|---|',
    ...shown.map((change) => changeRow(change, regression)),
    ...(more > 0
      ? ['', `and ${more} more series (\`neuron-perf-gate history\` lists every one).`]
      : []),
    ...(regression.belowThreshold > 0
      ? ['', `${belowPhrase(regression)}: counted, not listed.`]
      : []),
  ];
}

/** The series that put the first bad night elsewhere, folded: each with where and how sure. */
function outvotedDetails(regression: Regression): string[] {
  const { locations, runId } = regression.consensus;
  const elsewhere = locations.filter((l) => l.runId !== runId);
  if (elsewhere.length === 0) return [];
  const shown = elsewhere.slice(0, TABLE_ROWS);
  const more = elsewhere.length - shown.length;
  const one = elsewhere.length === 1;
  return [
    '',
    `<details><summary>${elsewhere.length} series put${one ? 's' : ''} the first bad night elsewhere</summary>`,
    '',
    ...shown.map(
      (l) =>
        `- ${escapeMarkdown(`${l.benchmark} · ${l.metric}`)}: ${escapeMarkdown(describeRecord(l))}, ${formatShare(l.share)} sure of it, ${formatShare(l.agreedShare)} on this night`,
    ),
    ...(more > 0 ? [`- and ${more} more`] : []),
    '',
    '</details>',
  ];
}

/** "2026-01-31" */
function day(ref: Pick<PointRef, 'createdAt'>): string {
  return escapeMarkdown(ref.createdAt.slice(0, 10));
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

/** Where one series put the first bad night, and how sure it is, against the agreed one. */
function locationCell(change: RegressionChange, regression: Regression): string {
  const own = change.change.firstBad;
  const sure = formatShare(change.change.location.share);
  if (own.runId === regression.consensus.runId) return `this night (${sure})`;
  const here =
    change.change.location.nights.find((n) => n.runId === regression.consensus.runId)?.share ?? 0;
  return `**${escapeMarkdown(describeRecord(own))}** (${sure}; ${formatShare(here)} on this night)`;
}

/** A likelihood share as a percent that never claims certainty: ">99%", "<1%". */
function formatShare(share: number): string {
  if (share >= 0.995) return '>99%';
  if (share < 0.005) return '<1%';
  return `${Math.round(share * 100)}%`;
}

/** The table's "found as": the kind of change in plain words. */
const FOUND_AS: Record<ChangePoint['detector'], string> = {
  segmentation: 'step',
  tail: 'step in the newest nights',
  creep: 'slow drift',
};

function changeRow(change: RegressionChange, regression: Regression): string {
  const cp = change.change;
  const status =
    change.status === 'restored' && change.restoredBy
      ? `restored on ${escapeMarkdown(describeRecord(change.restoredBy.firstBad))}`
      : change.status === 'accepted' && change.acceptedBy
        ? `accepted${change.acceptedBy.by ? ` by ${escapeMarkdown(change.acceptedBy.by)}` : ''}`
        : change.status;
  const shown = displayUnit(change.unit, [cp.before.value, cp.after.value]);
  return `| ${escapeMarkdown(change.benchmark)} | ${escapeMarkdown(change.metric)} | ${formatChange(cp.change)} | ${formatInterval(cp.interval)} | ${formatValue(inUnit(cp.before.value, shown))} → ${formatValue(inUnit(cp.after.value, shown))} ${escapeMarkdown(shown.unit)} | ${locationCell(change, regression)} | ${FOUND_AS[cp.detector]} | ${status} |`;
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
