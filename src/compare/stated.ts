// The spread each side's file states for a metric (a github-action-benchmark `range`,
// formats/stated-spread.ts), kept by the parser in the benchmark's info as a relative SD
// (`spread`): the last noise estimate a value alone a side has, when neither runs,
// requests nor stored records give one.

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
  const currentSpread = sideSpread(current, now.id);
  const baselineSpread = sideSpread(baseline, before.id);
  return currentSpread !== undefined && baselineSpread !== undefined
    ? { current: currentSpread, baseline: baselineSpread }
    : undefined;
}

function sideSpread(result: BenchmarkResult, id: string): number | undefined {
  const metrics = result.info?.metrics;
  const details = isObject(metrics) ? metrics[id] : undefined;
  const spread = isObject(details) ? details.spread : undefined;
  return typeof spread === 'number' && Number.isFinite(spread) && spread > 0 ? spread : undefined;
}
