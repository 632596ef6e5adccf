import { markdownTable } from 'markdown-table';
import type { Comparison, MetricVerdict } from '../model.js';
import { displayUnit, inUnit, metricLabel } from './display-unit.js';
import { escapeMarkdown, labelOf } from './escape.js';
import { formatChange, formatFigure, formatInterval, formatThreshold } from './numbers.js';
import { confidencePercent } from '../text/percent.js';
import { estimateOf, estimatorLegend, type EstimatedRow } from './percentile-estimates.js';

const METRIC_BADGES: Record<MetricVerdict, string> = {
  regression: '❌ regression',
  improvement: '🚀 improvement',
  unchanged: '✅ unchanged',
  inconclusive: '⚠️ inconclusive',
  new: '🆕 new',
  missing: '⚪ missing',
};

/**
 * A row a shortened report can do without: nothing happened to the metric. MFU stays,
 * because the profile block and readers look for it.
 */
export function isDroppableRow(metric: Comparison): boolean {
  return metric.verdict === 'unchanged' && metric.id !== 'mfu' && !isAtThreshold(metric);
}

/** Metric, baseline, current, change, interval, threshold, verdict: one row per metric. */
export function metricsTable(metrics: Comparison[]): string {
  const confidence = metrics[0]?.confidence ?? 0.95;
  const rows = metrics.map((m) => {
    const figures = shownFigures(m);
    // Each metric in the unit its figures read best in (ns for a tiny pytest round).
    const shown = displayUnit(m.unit, [figures.baseline, figures.current]);
    return [
      metricLabel(m.id, shown.unit),
      formatFigure(inUnit(figures.baseline, shown), shown.unit),
      formatFigure(inUnit(figures.current, shown), shown.unit),
      formatChange(m.change),
      intervalCell(m),
      formatThreshold(m.threshold),
      verdictCell(m),
    ];
  });
  const header = [
    'Metric',
    'Baseline',
    'Current',
    'Change',
    `${confidencePercent(confidence)} CI`,
    'Threshold',
    'Verdict',
  ];
  return markdownTable([header, ...rows], { align: ['l', 'r', 'r', 'r', 'c', 'r', 'l'] });
}

/**
 * The Baseline and Current a row shows: the figures its change is the ratio of, so that
 * Current ÷ Baseline − 1 is the Change beside them (Comparison.basis), else the sides'
 * own figures (then the change is their ratio, or paired within A/B blocks).
 */
export function shownFigures(m: Comparison): { baseline: number | null; current: number | null } {
  const basis = basisOf(m);
  return basis ?? { baseline: m.baseline, current: m.current };
}

/**
 * Under the table: what Baseline and Current are, since Change and its interval are
 * computed from them; undefined when every row is a plain ratio of the sides' figures.
 */
export function basisLegend(metrics: Comparison[]): string | undefined {
  const ids = (estimator: string) =>
    metrics.filter((m) => basisOf(m)?.estimator === estimator).map((m) => m.id);
  const geometric = ids('geometric-mean');
  const percentile = ids('request-percentile');
  const paired = metrics.filter((m) => m.method === 'paired-t').map((m) => m.id);
  // Rows are named only where the table mixes kinds; the rows without an interval are
  // a plain ratio of their own figures either way.
  const mixed = [geometric, percentile, paired].filter((list) => list.length > 0).length > 1;
  const named = (list: string[]) => (mixed ? ` (${list.map(escapeMarkdown).join(', ')})` : '');
  const parts = [
    geometric.length > 0 ? `the geometric mean of each side's runs${named(geometric)}` : '',
    percentile.length > 0 ? `the percentile of each side's requests${named(percentile)}` : '',
  ].filter(Boolean);
  const sentences = [
    parts.length > 0
      ? `Change = Current ÷ Baseline − 1, its interval computed from the same figures: ${parts.join('; ')}.`
      : '',
    paired.length > 0
      ? `A/B${named(paired)}: Change is the mean of each block's change (its head runs against its base runs), so it can differ from Current ÷ Baseline.`
      : '',
  ].filter(Boolean);
  return sentences.length > 0 ? `<sub>${sentences.join(' ')}</sub>` : undefined;
}

/**
 * Under the table, when its percentile rows' Baseline and Current come from different
 * estimators (a pooled P95 beside a P99 that is the median of the runs' own): which is which.
 */
export function metricsEstimatorLegend(metrics: Comparison[]): string | undefined {
  return estimatorLegend(
    metrics.flatMap((m): EstimatedRow[] => {
      const estimate = estimateOf(m);
      if (!estimate) return [];
      // The shown figures are the basis's where it has them (shownFigures).
      const basis = basisOf(m)?.estimator;
      const estimator =
        basis === 'geometric-mean'
          ? 'geometric-mean'
          : basis === 'request-percentile'
            ? 'pooled-requests'
            : estimate.of;
      return [{ id: m.id, estimator, estimate }];
    }),
  );
}

/** Comparison.basis read defensively: a report.json from a pull request's run is untrusted. */
function basisOf(m: Comparison): NonNullable<Comparison['basis']> | undefined {
  const basis: unknown = m.basis;
  if (typeof basis !== 'object' || basis === null) return undefined;
  const { estimator, baseline, current } = basis as Record<string, unknown>;
  if (estimator !== 'geometric-mean' && estimator !== 'request-percentile') return undefined;
  if (typeof baseline !== 'number' || typeof current !== 'number') return undefined;
  return { estimator, baseline, current };
}

/** Why each notable verdict was given, one line per metric. */
export function verdictReasons(metrics: Comparison[]): string | undefined {
  const reasons = metrics
    .filter(
      (m) =>
        (m.verdict !== 'unchanged' || isNotJudged(m)) && m.verdict !== 'new' && !isNotMeasured(m),
    )
    .map((m) => `- **${escapeMarkdown(m.id)}**: ${escapeMarkdown(m.reason)}`);
  return reasons.length > 0 ? reasons.join('\n') : undefined;
}

function intervalCell(metric: Comparison): string {
  if (metric.ci) return formatInterval(metric.ci);
  return metric.change === null ? '—' : 'low confidence';
}

function verdictCell(metric: Comparison): string {
  if (isNotMeasured(metric)) return '⚪ not measured';
  if (isNotJudged(metric)) return '➖ not judged';
  if (metric.threshold === null && metric.verdict === 'unchanged') return 'not gated';
  if (metric.verdict === 'unchanged' && isAtThreshold(metric)) return '✅ at threshold, not beyond';
  if (metric.verdict === 'unchanged' && isRealChange(metric)) return '✅ within threshold';
  return labelOf(METRIC_BADGES, metric.verdict);
}

/**
 * A change that reads as the threshold itself (+15.0% against 15%): not beyond it, so no
 * regression, but "unchanged" beside "+15.0%" would misstate it.
 */
function isAtThreshold(metric: Comparison): boolean {
  const { change, threshold } = metric;
  if (change === null || threshold === null || threshold <= 0) return false;
  // Within half the shown precision (0.1%): the change column rounds it to the threshold.
  return Math.abs(Math.abs(change) - threshold) < 0.0005;
}

/** A change whose whole interval is on one side of zero: real, but not beyond the threshold. */
function isRealChange(metric: Comparison): boolean {
  const { ci } = metric;
  return ci !== null && metric.change !== 0 && (ci[0] > 0 || ci[1] < 0);
}

/**
 * Measured on both sides, but no relative change exists (a baseline of 0, a negative
 * delta): not judged, which "unchanged" would misstate; its reason says why.
 */
function isNotJudged(metric: Comparison): boolean {
  return (
    metric.verdict === 'unchanged' &&
    metric.change === null &&
    metric.baseline !== null &&
    metric.current !== null
  );
}

/** Absent on both sides; the profile line says why. */
function isNotMeasured(metric: Comparison): boolean {
  return metric.verdict === 'missing' && metric.reason.startsWith('not measured');
}
