// The compile cache's own verdict. A run that compiles graphs its baseline loaded from the
// Neuron compile cache is a regression in its own right, however fast it then runs: a
// change of the model, the flags or the SDK that changes the cache keys makes every cold
// start recompile (minutes to an hour), and nothing in the steady-state figures shows it.
// It is a count, not a noisy measurement: no interval, no share of the false-alarm budget.
// A new compiler version is the exception: the cache is keyed by it, so every compiler
// release recompiles every graph once. That is reported, not failed; whether the new
// compiler compiles slower is compile_time's question (and cold_startup's). So is a cache
// that held nothing of the compiler before the gate run (a new or wiped runner: the
// observer's coldBefore): everything had to be compiled, and the keys cannot be told.

import type { BenchmarkResult, Comparison, Metric } from '../model.js';
import { compilerFolder } from '../observe/compile-cache.js';
import { COMPILE_TIME, GRAPHS_CACHED, GRAPHS_COMPILED } from '../observe/compile-metrics.js';
import { COLD_COMPILE_TIME } from '../observe/startup-metrics.js';
import { median } from '../stats/percentile.js';
import { formatDuration } from '../text/duration.js';
import { notMeasuredRow } from './not-measured-row.js';

/** Metrics judged here, by rule, rather than by an interval against a threshold. */
export const RULE_JUDGED_METRICS: readonly string[] = [GRAPHS_COMPILED];

/** What a reason says of a recompile under a new compiler version (the report shows it). */
export const NEW_COMPILER_KEYS = "(a new compiler's cache keys)";

/** What a reason says of a recompile on a cold cache (the report shows it). */
export const COLD_CACHE = '(a new or wiped runner)';

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
  const compiler = compilerChange(current, baseline);
  // A cache that held nothing of this compiler had to compile everything: keys unknown.
  const cold = !compiler && recompiled > 0 && current.compileCache?.coldBefore === true;
  // The threshold is the share of the baseline's cached graphs that may be recompiled.
  const gated =
    !compiler && !cold && threshold !== null && recompiled > 0 && recompiled / loaded >= threshold;
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
    reason:
      compiler && recompiled > 0
        ? newCompilerReason(current, baseline, recompiled, compiler, baselineName)
        : cold
          ? coldCacheReason(current, baseline, currentValue, baselineName)
          : compiledReason(current, recompiled, currentValue, gated, baselineName),
  };
}

/**
 * `2.21.0 → 2.22.0` when both sides name their neuronx-cc and the versions differ;
 * undefined when they match or either is unknown (then the rule holds as it is).
 */
function compilerChange(current: BenchmarkResult, baseline: BenchmarkResult): string | undefined {
  const before = baseline.environment?.compilerVersion;
  const after = current.environment?.compilerVersion;
  return before && after && before !== after ? `${before} → ${after}` : undefined;
}

function newCompilerReason(
  current: BenchmarkResult,
  baseline: BenchmarkResult,
  recompiled: number,
  compiler: string,
  baselineName: string,
): string {
  return (
    `recompiled ${recompiled} graph${recompiled === 1 ? '' : 's'} under neuronx-cc ${compiler} ` +
    `${NEW_COMPILER_KEYS}${compileTimes(current, baseline, baselineName)}`
  );
}

/**
 * A recompile on a cache that held nothing of this compiler before the gate run (a new or
 * re-imaged runner, a wiped /var/tmp): everything had to be compiled, changed keys or not.
 */
function coldCacheReason(
  current: BenchmarkResult,
  baseline: BenchmarkResult,
  compiled: number,
  baselineName: string,
): string {
  const versions = [
    ...new Set(
      (current.compileCache?.compiled ?? []).map((e) =>
        compilerFolder(e).replace(/^neuronxcc-/, ''),
      ),
    ),
  ];
  const compiler = versions.length > 0 ? `neuronx-cc ${versions.join(', ')}` : 'this compiler';
  return (
    `compiled ${compiled} graph${compiled === 1 ? '' : 's'} on a compile cache that held none ` +
    `for ${compiler} before the run ${COLD_CACHE}: whether the cache keys changed ` +
    `cannot be told${compileTimes(current, baseline, baselineName)}`
  );
}

/**
 * `, compile time 5 min 10 s → 5 min 30 s`: the first of compile_time and cold_compile_time
 * both sides measured (the baseline's median), else this run's compile time alone.
 */
function compileTimes(
  current: BenchmarkResult,
  baseline: BenchmarkResult,
  baselineName: string,
): string {
  const shown = (seconds: number) => formatDuration(seconds * 1000);
  const values = (result: BenchmarkResult, id: string) =>
    result.metrics.find((m) => m.id === id)?.values ?? [];
  for (const [id, label] of [
    [COMPILE_TIME, 'compile time'],
    [COLD_COMPILE_TIME, 'cold compile time'],
  ] as const) {
    const [now, before] = [values(current, id), values(baseline, id)];
    if (now.length > 0 && before.length > 0) {
      return `, ${label} ${shown(median(before))} → ${shown(median(now))}`;
    }
  }
  const now = current.compileCache?.compileSeconds;
  return now === undefined
    ? ''
    : `, compile time ${shown(now)} (${baselineName} compiled nothing to compare it with)`;
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
