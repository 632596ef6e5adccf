// Threshold keys that name no metric: `thruput: 5%` would gate nothing, silently. A key
// that no benchmark of the gate reports is refused when it is not even the name of a
// metric the built-in formats make (a typo: it says which metric was meant), and warned
// about otherwise (`latency_p99` on a vLLM serve file without E2EL percentiles).

import { DEFAULT_KEY } from '../config/default-thresholds.js';
import { editDistance } from '../config/did-you-mean.js';
import type { BenchmarkResult } from '../model.js';

const TIMES = ['latency', 'ttft', 'tpot', 'itl', 'e2el'];
const NAMES = [
  'throughput',
  'tokens_per_second',
  'total_tokens_per_second',
  'goodput',
  'mfu',
  'mbu',
];
const TIME_METRIC = new RegExp(`^(${TIMES.join('|')})_(p\\d{1,3}(_\\d+)?|mean|min|max|geomean)$`);

/** Whether `id` is a metric name the built-in formats (not the custom ones) can report. */
export function isBuiltInMetricName(id: string): boolean {
  return NAMES.includes(id) || TIME_METRIC.test(id);
}

export interface ThresholdKeyProblems {
  /** Keys refused: they name no metric at all; with the metric meant, when one is close. */
  errors: string[];
  /** Keys that name a metric no benchmark reports: they gate nothing. */
  warnings: string[];
}

/**
 * The configured keys of `result` (thresholdsFor) that name none of `reported`, the ids
 * every benchmark of the gate has on either side (or notes as not measured).
 */
export function thresholdKeyProblems(
  configured: Readonly<Record<string, number>>,
  result: BenchmarkResult,
  reported: ReadonlySet<string>,
): ThresholdKeyProblems {
  const problems: ThresholdKeyProblems = { errors: [], warnings: [] };
  const custom = result.format.startsWith('custom-');
  for (const key of Object.keys(configured)) {
    if (key === DEFAULT_KEY || reported.has(key)) continue;
    const meant = closestMetric(key, reported);
    if (!custom && !isBuiltInMetricName(key)) {
      problems.errors.push(
        `thresholds: '${key}' is not a metric${meant ? `; did you mean '${meant}'?` : ''} ` +
          `(${result.name} reports ${[...reported].sort().join(', ')}); ` +
          'fix the key, or remove it',
      );
    } else {
      problems.warnings.push(
        `thresholds: '${key}' is set, but no benchmark reports it, so it gates nothing` +
          (meant ? ` (did you mean '${meant}'?)` : ''),
      );
    }
  }
  return problems;
}

/** The reported id a key most likely meant: at most a third of the longer name apart. */
function closestMetric(key: string, reported: ReadonlySet<string>): string | undefined {
  let best: { id: string; distance: number } | undefined;
  for (const id of reported) {
    const distance = editDistance(key, id);
    const limit = Math.max(2, Math.floor(Math.max(key.length, id.length) / 3));
    if (distance <= limit && (!best || distance < best.distance)) {
      best = { id, distance };
    }
  }
  return best?.id;
}

/** Every metric id the results and their baselines have, or note as not measured. */
export function reportedMetricIds(
  members: readonly { current: BenchmarkResult; baseline: BenchmarkResult | undefined }[],
): Set<string> {
  const ids = new Set<string>();
  for (const { current, baseline } of members) {
    for (const side of [current, baseline]) {
      for (const metric of side?.metrics ?? []) ids.add(metric.id);
      for (const id of Object.keys(side?.notMeasured ?? {})) ids.add(id);
    }
  }
  return ids;
}
