// The text of report.json. Its measured results (each benchmark's `result`, so that a
// report.json can serve as a later baseline) carry their per-request samples the way a
// stored baseline record does: each sample set once, reduced with percentiles preserved
// (src/baseline/stored-samples.ts). A 250 MB `vllm bench serve --save-detailed` result
// then adds kilobytes, not three copies of its 6.4 M inter-token latencies.

import { SampleRunsJson, withStoredSamples } from '../baseline/stored-samples.js';
import { MAX_RECORD_SAMPLES } from '../baseline/reduce-samples.js';
import type { BenchmarkReport, GateReport, Metric } from '../model.js';

/**
 * Samples in all of report.json, about 10 bytes each: with many benchmarks each gets a
 * share, so the file stays well under the 5 MB a comment job reads whatever the input.
 */
export const MAX_REPORT_SAMPLES = 200_000;

/** report.json as written: pretty JSON, samples reduced, one line per run of samples. */
export function reportJsonText(report: GateReport): string {
  const json = new SampleRunsJson();
  // A report this gate did not build (the comment job's tests feed hand-made ones) is
  // written as it is where its shape is not a report's.
  if (!Array.isArray(report.benchmarks)) return json.stringify(report);
  const sampled = report.benchmarks.filter((b) => wellFormedMetrics(b)?.some((m) => m.samples));
  const perResult = Math.min(
    MAX_RECORD_SAMPLES,
    Math.floor(MAX_REPORT_SAMPLES / Math.max(1, sampled.length)),
  );
  const benchmarks = report.benchmarks.map((benchmark) => {
    const metrics = wellFormedMetrics(benchmark);
    if (!metrics) return benchmark;
    return {
      ...benchmark,
      result: { ...benchmark.result, metrics: json.metrics(withStoredSamples(metrics, perResult)) },
    };
  });
  return json.stringify({ ...report, benchmarks });
}

/** The result's metrics when each is an object whose samples, if any, are runs of numbers. */
function wellFormedMetrics(benchmark: BenchmarkReport): Metric[] | undefined {
  const metrics: unknown = benchmark?.result?.metrics;
  if (!Array.isArray(metrics)) return undefined;
  // Array.from: every() skips the holes of a sparse array, which the samples code would not.
  const ok = Array.from(metrics).every(
    (metric: unknown) =>
      typeof metric === 'object' &&
      metric !== null &&
      (!('samples' in metric) ||
        metric.samples === undefined ||
        (Array.isArray(metric.samples) &&
          metric.samples.every(
            (run: unknown) =>
              ArrayBuffer.isView(run) ||
              (Array.isArray(run) && run.every((v: unknown) => typeof v === 'number')),
          ))),
  );
  return ok ? (metrics as Metric[]) : undefined;
}
