// The result file of offline_benchmark.py and the summary it prints, from the per-query
// times. Metrics are in seconds and computed as the script computes them: total_time is
// Python's sum() of the times, the average and percentiles come from numpy.
import { numpyMean, numpyPercentile, pythonSum } from './numpy-stats.mjs';

export function buildResult(configuration, rawTimes) {
  const totalTime = pythonSum(rawTimes);
  return {
    configuration,
    metrics: {
      avg_time_per_query: numpyMean(rawTimes),
      min_time_per_query: rawTimes.reduce((a, b) => Math.min(a, b)),
      max_time_per_query: rawTimes.reduce((a, b) => Math.max(a, b)),
      p50_time: numpyPercentile(rawTimes, 50),
      p95_time: numpyPercentile(rawTimes, 95),
      p99_time: numpyPercentile(rawTimes, 99),
      total_queries: rawTimes.length,
      total_time: totalTime,
      throughput_queries_per_sec: rawTimes.length / totalTime,
    },
    raw_times: rawTimes,
  };
}

/** The results block the script prints at the end of a run. */
export function summaryLines(metrics) {
  const rule = '='.repeat(50);
  const s = (value) => `${value.toFixed(4)} s`;
  return [
    rule,
    'BENCHMARK RESULTS',
    rule,
    `Total queries: ${metrics.total_queries}`,
    `Total time: ${s(metrics.total_time)}`,
    `Throughput: ${metrics.throughput_queries_per_sec.toFixed(4)} queries/sec`,
    `Average time per query: ${s(metrics.avg_time_per_query)}`,
    `Min time per query: ${s(metrics.min_time_per_query)}`,
    `Max time per query: ${s(metrics.max_time_per_query)}`,
    `P50 latency: ${s(metrics.p50_time)}`,
    `P95 latency: ${s(metrics.p95_time)}`,
    `P99 latency: ${s(metrics.p99_time)}`,
    rule,
  ];
}
