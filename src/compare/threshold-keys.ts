// Threshold keys that gate nothing: a real metric name no benchmark of the gate reports
// (`latency_p99` on a vLLM serve file without E2E percentiles). Said once for the gate, from
// every benchmark's results, so a key meant for one benchmark is no warning on the others.
// Keys that are no metric name at all are refused earlier (config/metric-names.ts).

import { DEFAULT_KEY } from '../config/default-thresholds.js';
import { closestName } from '../config/metric-names.js';
import type { BenchmarkReport } from '../model.js';
import { PROFILE_METRIC_IDS } from '../profile/metrics.js';

/** One warning per configured key no benchmark reports, with the metric meant when one is close. */
export function unusedThresholdWarnings(
  keys: Iterable<string>,
  reports: readonly BenchmarkReport[],
): string[] {
  const reported = new Set<string>(PROFILE_METRIC_IDS);
  for (const report of reports) {
    for (const metric of report.metrics) reported.add(metric.id);
    for (const id of Object.keys(report.result?.notMeasured ?? {})) reported.add(id);
  }
  // A gate whose benchmarks all failed reports nothing: no key can be judged.
  if (reports.every((report) => report.metrics.length === 0)) return [];
  const measured = [...reported].filter((id) => !PROFILE_METRIC_IDS.includes(id));
  return [...new Set(keys)]
    .filter((key) => key !== DEFAULT_KEY && !reported.has(key))
    .map((key) => {
      const meant = closestName(key, measured);
      return (
        `thresholds: '${key}' is set, but no benchmark reports it, so it gates nothing` +
        (meant ? ` (did you mean '${meant}'?)` : '')
      );
    });
}
