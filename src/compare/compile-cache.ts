// The compile cache's own verdict. A run that compiles graphs its baseline loaded from the
// Neuron compile cache is a regression in its own right, however fast it then runs: a
// compiler or SDK upgrade that changes the cache keys makes every cold start recompile
// (minutes to an hour), and nothing in the steady-state figures shows it. It is a count,
// not a noisy measurement: no interval, no share of the false-alarm budget.

import type { BenchmarkResult, Comparison, Metric } from '../model.js';
import { COMPILE_TIME, GRAPHS_CACHED, GRAPHS_COMPILED } from '../observe/compile-metrics.js';
import { formatDuration } from '../text/duration.js';
import { notMeasuredRow } from './not-measured-row.js';

/** Metrics judged here, by rule, rather than by an interval against a threshold. */
export const RULE_JUDGED_METRICS: readonly string[] = [GRAPHS_COMPILED];

/** How many graphs a comparison's reason names before "and N more". */
const NAMED_GRAPHS = 5;

const lowest = (metric: Metric | undefined) =>
  metric && metric.values.length > 0 ? Math.min(...metric.values) : undefined;
const highest = (metric: Metric | undefined) =>
  metric && metric.values.length > 0 ? Math.max(...metric.values) : undefined;

/**
 * The graphs this run compiled that its baseline loaded from the cache: beyond the fewest
 * the baseline's records compiled, at most as many as the most they loaded from it.
 */
export function recompiledGraphs(current: BenchmarkResult, baseline: BenchmarkResult): number {
  const now = current.metrics.find((m) => m.id === GRAPHS_COMPILED)?.values[0];
  const before = lowest(baseline.metrics.find((m) => m.id === GRAPHS_COMPILED));
  const loaded = highest(baseline.metrics.find((m) => m.id === GRAPHS_CACHED)) ?? 0;
  if (now === undefined || before === undefined) return 0;
  return Math.max(0, Math.min(now - before, loaded));
}

/**
 * The comparison of a rule-judged metric, or undefined for any other metric (or when a
 * side lacks it: then it is new or missing like any metric).
 */
export function compileCacheComparison(
  id: string,
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
  threshold: number | null,
  confidence: number,
  { baselineName }: { baselineName: string } = { baselineName: 'the baseline' },
): Comparison | undefined {
  if (id === COMPILE_TIME) return compileTimeMissing(current, baseline, threshold, confidence);
  if (id !== GRAPHS_COMPILED || !baseline) return undefined;
  const now = current.metrics.find((m) => m.id === id);
  const before = baseline.metrics.find((m) => m.id === id);
  if (!now || !before) return undefined;
  const currentValue = now.values[0]!;
  const baselineValue = lowest(before)!;
  const recompiled = recompiledGraphs(current, baseline);
  const loaded = highest(baseline.metrics.find((m) => m.id === GRAPHS_CACHED)) ?? 0;
  // The threshold is the share of the baseline's cached graphs that may be recompiled.
  const gated = threshold !== null && recompiled > 0 && recompiled / loaded >= threshold;
  return {
    id,
    unit: now.unit,
    direction: now.direction,
    baseline: baselineValue,
    current: currentValue,
    change: baselineValue > 0 ? currentValue / baselineValue - 1 : null,
    ci: null,
    method: 'none',
    confidence,
    threshold,
    verdict: gated ? 'regression' : 'unchanged',
    reason: compiledReason(current, recompiled, currentValue, gated, baselineName),
  };
}

function compiledReason(
  current: BenchmarkResult,
  recompiled: number,
  compiled: number,
  gated: boolean,
  baselineName: string,
): string {
  if (recompiled === 0) {
    return compiled === 0
      ? 'every graph came from the compile cache'
      : `compiled ${compiled} graph${compiled === 1 ? '' : 's'}, as ${baselineName} did (its cache held none of them)`;
  }
  const summary = current.compileCache;
  const time = summary?.compileSeconds;
  const entries = summary?.compiled ?? [];
  const named = entries.slice(0, NAMED_GRAPHS).join(', ');
  const more = entries.length > NAMED_GRAPHS ? ` and ${entries.length - NAMED_GRAPHS} more` : '';
  return (
    `recompiled ${recompiled} graph${recompiled === 1 ? '' : 's'} ${baselineName} loaded from cache` +
    (time !== undefined ? ` (compile time ${formatDuration(time * 1000)})` : '') +
    (named ? `: ${named}${more}` : '') +
    (gated ? '' : '; below its threshold or not gated')
  );
}

/**
 * compile_time is measured only when something was compiled: a run served wholly from the
 * cache has none, which is no loss to warn about.
 */
function compileTimeMissing(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
  threshold: number | null,
  confidence: number,
): Comparison | undefined {
  const before = baseline?.metrics.find((m) => m.id === COMPILE_TIME);
  if (!before || !current.compileCache || current.metrics.some((m) => m.id === COMPILE_TIME)) {
    return undefined;
  }
  return notMeasuredRow(
    COMPILE_TIME,
    before,
    threshold,
    confidence,
    'nothing was compiled in this run: every graph came from the compile cache',
  );
}
