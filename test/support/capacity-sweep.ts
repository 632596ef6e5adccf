// A sweep's capacity benchmark as the gate derives it: vllm bench serve result files of a
// server whose latency grows with load (serve-result.ts), parsed, aggregated per variant,
// given their SLO metrics, and the sweep's capacity derived from them; and that result
// judged against a baseline's with the chart's curve attached, as pipeline.ts does.
import type { SloSpec } from '../../src/config/slo.js';
import { judgeResults } from '../../src/compare/judge.js';
import { deriveCapacity } from '../../src/derive/capacity.js';
import { deriveSloMetrics } from '../../src/derive/slo-metrics.js';
import { capacityCurveOf } from '../../src/derive/stored-curve.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { parseResultText } from '../../src/formats/index.js';
import type { BenchmarkReport, BenchmarkResult } from '../../src/model.js';
import { serveResult, type ServeRunOptions } from './serve-result.js';
import { cleanRuns } from './clean-runs.js';

export const RATES = [1, 2, 4, 6, 8];

/** Per request TTFT ≤ 300 ms for 90% of requests, and P99 E2E latency ≤ 1500 ms. */
export const SERVE_SLO: SloSpec = {
  objectives: [
    { metric: 'ttft', limitMs: 300 },
    { metric: 'e2el', limitMs: 1500, percentile: 99 },
  ],
  attainment: 0.9,
};

export interface SweepOptions extends Partial<ServeRunOptions> {
  saturation: number;
  slo?: SloSpec;
  rates?: number[];
  runs?: number;
  sweep?: string;
}

function variant(rate: number, options: SweepOptions): BenchmarkResult {
  const sweep = options.sweep ?? 'serve';
  const runs = options.runs ?? 3;
  const parsed = Array.from({ length: runs }, (_, run) => {
    const text = JSON.stringify(
      serveResult({
        rate,
        seed: `${sweep}-${rate}-${run}`,
        runFactor: 1 + 0.03 * Math.sin(rate * 7 + run * 3),
        ...options,
      }),
    );
    return { file: `run-${run}.json`, benchmarks: parseResultText(text, 'f', 'auto').benchmarks };
  });
  const [aggregated] = aggregateRuns(parsed, `${sweep}/rate-${rate}`);
  const result: BenchmarkResult = {
    ...aggregated!,
    format: 'vllm-bench-serve',
    runs: cleanRuns(runs),
    sweep: { name: sweep, variant: `rate-${rate}`, params: { request_rate: rate } },
  };
  return deriveSloMetrics(result, options.slo ?? SERVE_SLO).result;
}

/** The `<sweep>/capacity` result of one sweep. */
export function capacityResult(options: SweepOptions): BenchmarkResult {
  const variants = (options.rates ?? RATES).map((rate) => ({
    variant: `rate-${rate}`,
    result: variant(rate, options),
  }));
  return deriveCapacity(options.sweep ?? 'serve', options.slo ?? SERVE_SLO, variants).result;
}

/** The capacity benchmark judged against a baseline, with its chart's curve. */
export function judgedCapacity(
  current: BenchmarkResult,
  baseline: BenchmarkResult | undefined,
): BenchmarkReport {
  const [report] = judgeResults(
    [current],
    baseline ? { source: 'baseline.json', benchmarks: [baseline] } : undefined,
    () => ({ capacity: 0.05 }),
    { confidence: 0.95, failOnInconclusive: false },
  );
  const capacityCurve = capacityCurveOf(current, baseline);
  return { ...report!, ...(capacityCurve ? { capacityCurve } : {}) };
}
