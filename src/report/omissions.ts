import type { BenchmarkReport, BenchmarkVerdict } from '../model.js';
import type { SectionOmissions } from './benchmark-section.js';
import { isDroppableRow } from './metrics-table.js';
import { isNotMeasured } from './benchmark-verdict.js';

/** What a report shortened to fit a size limit leaves out, least important first. */
export interface Omissions extends SectionOmissions {
  config: boolean;
  /** Indexes into `report.benchmarks` of the benchmarks left out entirely. */
  benchmarks: ReadonlySet<number>;
  rankings: boolean;
  /** The last resort: trailing blocks were cut. */
  tail: boolean;
}

export const NOTHING_LEFT_OUT: Omissions = {
  charts: false,
  runValues: false,
  config: false,
  unchangedRows: false,
  benchmarks: new Set(),
  rankings: false,
  tail: false,
};

/**
 * The benchmarks a shortened report may leave out, in the order it does so: passes where
 * nothing moved, then passes with an improvement or an inconclusive metric, then those
 * without a baseline, then those with nothing gated measured; later ones first within each
 * group. Regressions and errors stay.
 */
export function droppableBenchmarks(benchmarks: BenchmarkReport[]): number[] {
  const notable = (b: BenchmarkReport) =>
    b.metrics.some((m) => m.verdict === 'improvement' || m.verdict === 'inconclusive');
  const measured = (b: BenchmarkReport) => !isNotMeasured(b);
  const groups: ((b: BenchmarkReport) => boolean)[] = [
    (b) => b.verdict === 'pass' && measured(b) && !notable(b),
    (b) => b.verdict === 'pass' && measured(b) && notable(b),
    (b) => b.verdict === 'no-baseline' && measured(b),
    (b) => isNotMeasured(b),
  ];
  const indexes = benchmarks.map((_, index) => index).reverse();
  return groups.flatMap((inGroup) => indexes.filter((index) => inGroup(benchmarks[index]!)));
}

const DROPPED_BENCHMARKS: Record<BenchmarkVerdict, [string, string]> = {
  pass: ['benchmark that passed', 'benchmarks that passed'],
  'no-baseline': ['benchmark without a baseline', 'benchmarks without a baseline'],
  regression: ['regressed benchmark', 'regressed benchmarks'],
  error: ['failed benchmark', 'failed benchmarks'],
};

export interface NoteContext {
  benchmarks: BenchmarkReport[];
  hasConfig: boolean;
  /** Markdown naming where the full report is: "the [job summary](…)". */
  fullReport: string;
}

/** "✂️ Shortened to fit GitHub's size limit. Left out: …. The full report is in …". */
export function shortenedNote(omit: Omissions, context: NoteContext): string | undefined {
  const { benchmarks } = context;
  const shown = benchmarks.filter((_, index) => !omit.benchmarks.has(index));
  const left: string[] = [];
  if (omit.charts && shown.some((b) => b.trend || b.latencyCurve || b.capacityCurve))
    left.push('the charts');
  if (omit.runValues && shown.some((b) => (b.result?.runs.length ?? 0) > 0)) {
    left.push('the per-run values');
  }
  if (omit.config && context.hasConfig) left.push('the configuration');
  if (omit.unchangedRows) {
    const rows = shown.reduce((sum, b) => sum + b.metrics.filter(isDroppableRow).length, 0);
    if (rows > 0) left.push(count(rows, ['unchanged metric row', 'unchanged metric rows']));
  }
  const dropped = benchmarks.filter((_, index) => omit.benchmarks.has(index));
  for (const verdict of ['pass', 'no-baseline', 'error', 'regression'] as const) {
    const n = dropped.filter((b) => b.verdict === verdict && !isNotMeasured(b)).length;
    if (n > 0) left.push(count(n, DROPPED_BENCHMARKS[verdict]));
  }
  const unmeasured = dropped.filter(isNotMeasured).length;
  if (unmeasured > 0)
    left.push(count(unmeasured, ['benchmark not measured', 'benchmarks not measured']));
  if (omit.rankings) left.push('the sweep rankings');
  if (omit.tail) left.push('the end of the report');
  if (left.length === 0) return undefined;
  const ranked =
    !omit.rankings && dropped.some((b) => b.sweep)
      ? ' Sweep variants left out are still ranked in their sweep table.'
      : '';
  return `> ✂️ **Shortened to fit GitHub's size limit.** Left out: ${left.join(', ')}.${ranked} The full report is in ${context.fullReport}.`;
}

function count(n: number, [one, many]: [string, string]): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
