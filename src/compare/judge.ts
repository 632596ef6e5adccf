import type { Baseline } from '../baseline/types.js';
import type { BenchmarkReport, BenchmarkResult } from '../model.js';
import { compareBenchmark } from './benchmark.js';
import { familyLevel } from './family.js';

/**
 * Judges measured results against a baseline, benchmark by benchmark, matching by name.
 * `thresholdsFor` gives the thresholds of the configured benchmark a result came from.
 */
export interface JudgeOptions {
  /** Confidence level of the intervals as a fraction (0.95). */
  confidence: number;
  /** Count an inconclusive metric as failing the benchmark. */
  failOnInconclusive: boolean;
  /**
   * The chance of a false alarm these results together may raise (one-sided), shared by
   * all their gated metrics (family.ts). Without it each metric is tested on its own.
   */
  falseAlarmRate?: number;
}

export function judgeResults(
  results: BenchmarkResult[],
  baseline: Baseline | undefined,
  thresholdsFor: (result: BenchmarkResult) => Record<string, number>,
  options: JudgeOptions,
): BenchmarkReport[] {
  const baselineOf = (result: BenchmarkResult) =>
    baseline?.benchmarks.find((b) => b.name === result.name);
  const testLevel =
    options.falseAlarmRate === undefined
      ? undefined
      : familyLevel(
          results.map((result) => ({
            current: result,
            baseline: baselineOf(result),
            thresholds: thresholdsFor(result),
          })),
          options.falseAlarmRate,
        ).level;
  return results.map((result) => {
    const before = baselineOf(result);
    const notMeasured = result.profile?.note ?? 'not measured: no profiled run';
    const { metrics, verdict } = compareBenchmark(result, before, thresholdsFor(result), {
      confidence: options.confidence,
      failOnInconclusive: options.failOnInconclusive,
      ...(testLevel === undefined ? {} : { testLevel }),
      // Seeded by name: the same results always give the same intervals.
      seed: result.name,
      notMeasuredReason: notMeasured.startsWith('not measured')
        ? notMeasured
        : `not measured: ${notMeasured}`,
    });
    return {
      name: result.name,
      ...(result.source ? { source: result.source } : {}),
      ...(result.sweep ? { sweep: result.sweep } : {}),
      format: result.format,
      verdict,
      metrics,
      result,
      ...(result.profile ? { profile: result.profile } : {}),
      warnings: [],
    };
  });
}
