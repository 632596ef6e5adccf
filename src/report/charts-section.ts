// A benchmark's small charts in the comment and the job summary: where its gated metrics
// went over the recent default-branch records (this run last), how this run's request
// latencies sit against the baseline's, percentile by percentile, and, for a sweep's
// capacity, latency against load with the SLO (capacity-chart.ts).

import type { BenchmarkReport, MetricTrends, PercentileCurve } from '../model.js';
import { capacitySection } from './capacity-chart.js';
import { escapeMarkdown } from './escape.js';
import { PALETTE, formatNumber, thinnedLabels, xyChartBlock } from './mermaid.js';

/** The charts of a benchmark as one markdown part; undefined when there is nothing to draw. */
export function chartsSection(benchmark: BenchmarkReport): string | undefined {
  const parts = [
    capacitySection(benchmark),
    benchmark.trend ? trendChart(benchmark, benchmark.trend) : undefined,
    benchmark.latencyCurve ? curveChart(benchmark.latencyCurve) : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/**
 * Each gated metric as its change from this run's baseline, in percent, so that metrics of
 * different units share one axis and the baseline is the zero line.
 */
function trendChart(benchmark: BenchmarkReport, trend: MetricTrends): string | undefined {
  const lines = trend.metrics.flatMap((metric) => {
    const base = benchmark.metrics.find((m) => m.id === metric.id)?.baseline;
    if (typeof base !== 'number' || !Number.isFinite(base) || base === 0) return [];
    if (!metric.values.every(Number.isFinite)) return [];
    return [{ id: metric.id, values: metric.values.map((v) => (v / base - 1) * 100) }];
  });
  const shown = lines.slice(0, PALETTE.length);
  if (shown.length === 0 || trend.at.length < 2) return undefined;
  const labels = uniqueLabels(
    trend.at.map((at, index) => (index === trend.at.length - 1 ? 'this run' : dayOf(at))),
  );
  const chart = xyChartBlock({
    title: `${benchmark.name} · change from baseline`,
    x: thinnedLabels(labels),
    yLabel: '% vs baseline',
    lines: shown.map((line) => line.values),
  });
  const legend = shown
    .map((line, index) => `${PALETTE[index]!.square} ${escapeMarkdown(line.id)}`)
    .join(' · ');
  const records = trend.at.length - 1;
  return `${chart}\n\n<sub>Trend: ${legend}, the last ${records} stored record${records === 1 ? '' : 's'} and this run (right).</sub>`;
}

/** Baseline and this run, one line each, over the same percentiles. */
function curveChart(curve: PercentileCurve): string | undefined {
  const n = curve.percentiles.length;
  if (n < 2 || curve.baseline.length !== n || curve.current.length !== n) return undefined;
  if (![...curve.baseline, ...curve.current].every(Number.isFinite)) return undefined;
  const [before, now] = [PALETTE[0]!, PALETTE[3]!];
  const chart = xyChartBlock({
    title: `${curve.id} request latency percentiles`,
    x: curve.percentiles.map((p) => `p${formatNumber(p)}`),
    yLabel: curve.unit,
    lines: [curve.baseline, curve.current],
    colors: [before.color, now.color],
  });
  return `${chart}\n\n<sub>Latency: ${before.square} baseline · ${now.square} this run.</sub>`;
}

/** `MM-DD` of an ISO time, or the text itself when it is no date. */
function dayOf(at: string): string {
  const match = /^\d{4}-(\d{2})-(\d{2})T/.exec(at);
  return match ? `${match[1]}-${match[2]}` : at;
}

/** A category axis merges equal labels: the second "11-02" becomes "11-02 (2)". */
function uniqueLabels(labels: string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((label) => {
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    return count === 1 ? label : `${label} (${count})`;
  });
}
