// A metric both sides give in different units (47 ms in the baseline, 0.047 s now): the
// baseline's figures are converted to the current unit when both units are of one known
// kind (formats/units.ts); otherwise the two cannot be compared and the benchmark fails
// with an error naming both, instead of a +99,900% change.

import { unitFactor } from '../formats/units.js';
import type { BenchmarkResult, Metric, SampleRun } from '../model.js';

export interface ReconciledBaseline {
  baseline: BenchmarkResult | undefined;
  /** One line per metric whose units could not be reconciled. */
  errors: string[];
  /** One line per metric converted, for the report. */
  notes: string[];
}

/** The baseline with every metric in the current result's unit for it. */
export function reconcileUnits(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
): ReconciledBaseline {
  const errors: string[] = [];
  const notes: string[] = [];
  if (!baseline) return { baseline, errors, notes };
  const metrics = baseline.metrics.flatMap((before) => {
    const now = current.metrics.find((m) => m.id === before.id);
    if (!now || now.unit === before.unit) return [before];
    const factor = unitFactor(before.unit, now.unit);
    if (factor === undefined) {
      errors.push(
        `${before.id}: the baseline gives it in '${before.unit}' and this run in '${now.unit}', ` +
          'which cannot be converted into each other; give both files the same unit, or rename ' +
          'the metric when it measures something else now',
      );
      // Figures of another kind are no baseline: the row shows none, not a made-up change.
      return [];
    }
    notes.push(
      `${before.id}: the baseline's figures in '${before.unit}' are compared in '${now.unit}'`,
    );
    return [scaled(before, now.unit, factor)];
  });
  const converted = notes.length > 0 || errors.length > 0 ? { ...baseline, metrics } : baseline;
  return { baseline: converted, errors, notes };
}

function scaled(metric: Metric, unit: string, factor: number): Metric {
  const times = (values: readonly number[]) => values.map((v) => v * factor);
  const copy: Metric = { ...metric, unit, values: times(metric.values) };
  if (metric.samples) {
    copy.samples = metric.samples.map((run): SampleRun =>
      Float64Array.from(run, (v) => v * factor),
    );
  }
  if (metric.olderRecords) copy.olderRecords = metric.olderRecords.map(times);
  if (metric.newestLeftOut) copy.newestLeftOut = times(metric.newestLeftOut);
  return copy;
}
