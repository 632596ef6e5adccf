// The spread each side's file states for a metric (a github-action-benchmark `range`,
// formats/stated-spread.ts), kept by the parser in the benchmark's info: the last noise
// estimate a value alone a side has, when neither runs, requests nor stored records give one.

import { statedSpread } from '../formats/stated-spread.js';
import { isObject } from '../formats/fields.js';
import type { BenchmarkResult, Metric } from '../model.js';
import type { StatedSpreads } from '../stats/interval.js';

/** Both sides' stated relative SDs of a one-value metric; undefined unless both state one. */
export function statedSpreads(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
  now: Metric | undefined,
  before: Metric | undefined,
): StatedSpreads | undefined {
  if (!baseline || now?.values.length !== 1 || before?.values.length !== 1) return undefined;
  const currentSpread = sideSpread(current, now);
  const baselineSpread = sideSpread(baseline, before);
  return currentSpread !== undefined && baselineSpread !== undefined
    ? { current: currentSpread, baseline: baselineSpread }
    : undefined;
}

function sideSpread(result: BenchmarkResult, metric: Metric): number | undefined {
  const metrics = result.info?.metrics;
  const details = isObject(metrics) ? metrics[metric.id] : undefined;
  if (!isObject(details)) return undefined;
  return statedSpread(details.range, metric.values[0]!, metric.unit);
}
