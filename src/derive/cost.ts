// Cost per million tokens and per million requests: what serving them costs on this
// instance at the throughput a run measured, at the hourly price of prices.ts. One value
// per clean run (price / (rate × 3600) × 1e6), so the gate's intervals apply as they do to
// the rate itself; lower is better. Pure: results in, results out.

import { CAPACITY_FORMAT } from '../model.js';
import type { BenchmarkResult, CostBasis, Metric, NotMeasuredNote } from '../model.js';

export const COST_PER_MILLION_TOKENS = 'cost_per_million_tokens';
export const COST_PER_MILLION_REQUESTS = 'cost_per_million_requests';
export const COST_METRIC_IDS: readonly string[] = [
  COST_PER_MILLION_TOKENS,
  COST_PER_MILLION_REQUESTS,
];
const COST_UNIT = 'USD';

/**
 * Formats whose tokens_per_second counts output (generated) tokens only: vLLM's and
 * SGLang's output_throughput, guidellm's output_tokens_per_second. `vllm bench throughput`
 * counts prompt tokens too, so its results get a cost per request instead.
 */
const OUTPUT_TOKEN_FORMATS = new Set(['vllm-bench-serve', 'sglang-bench-serving', 'guidellm']);

/** Units of a `throughput` that counts requests; a reranker's queries are its requests. */
const REQUEST_UNITS = new Set(['requests/s', 'queries/s']);

/** Which rate a result's cost comes from: `id` is the cost metric, `rate` the rate's id. */
interface CostSource {
  id: string;
  rate: string;
  /** For a note: `output tokens`, `requests`. */
  counted: string;
}

/** USD per million units served at `perSecond` units a second on an instance of `usdPerHour`. */
export function costPerMillion(usdPerHour: number, perSecond: number): number {
  return (usdPerHour / (perSecond * 3600)) * 1e6;
}

/**
 * Where a result's cost comes from: its output-token rate, else (a non-generative workload
 * such as a reranker, or a format without one) its request rate; undefined when it has
 * neither (a micro-benchmark's ops/s, a custom file, latency alone).
 */
function costSource(result: BenchmarkResult): CostSource | undefined {
  const known = (id: string) => result.metrics.find((m) => m.id === id) ?? result.notMeasured?.[id];
  // A sweep's capacity under its SLO, as a request rate: what a request costs served at the
  // highest rate that still meets the objectives (a capacity in concurrency has no rate).
  const capacity = result.format === CAPACITY_FORMAT ? known('capacity') : undefined;
  if (capacity) {
    return capacity.unit === 'requests/s'
      ? { id: COST_PER_MILLION_REQUESTS, rate: 'capacity', counted: 'requests at capacity' }
      : undefined;
  }
  if (OUTPUT_TOKEN_FORMATS.has(result.format) && known('tokens_per_second')) {
    return { id: COST_PER_MILLION_TOKENS, rate: 'tokens_per_second', counted: 'output tokens' };
  }
  const throughput = known('throughput');
  if (!result.format.startsWith('custom-') && throughput && REQUEST_UNITS.has(throughput.unit)) {
    return { id: COST_PER_MILLION_REQUESTS, rate: 'throughput', counted: 'requests' };
  }
  return undefined;
}

/** Whether a result has a rate a cost metric can come from. */
export function costApplies(result: BenchmarkResult): boolean {
  return costSource(result) !== undefined;
}

/**
 * The results and their baseline with cost metrics at this run's price: both sides priced
 * alike, so a new price (a table update, a new price-per-hour) never reads as a regression;
 * a baseline's stored cost is restated from its own rate. Without a price, neither side has
 * one, and the report's cost line says why.
 */
export function withCostMetrics<B extends { benchmarks: BenchmarkResult[] }>(
  results: BenchmarkResult[],
  baseline: B | undefined,
  cost: CostBasis,
): { results: BenchmarkResult[]; baseline: B | undefined } {
  const price = cost.usdPerHour;
  const stored = (b: BenchmarkResult) => priced(b, price, false);
  return {
    results: results.map((result) => priced(result, price, true)),
    baseline: baseline && { ...baseline, benchmarks: baseline.benchmarks.map(stored) },
  };
}

/** The result with its cost metric at `usdPerHour` in place of any it had. */
function priced(
  result: BenchmarkResult,
  usdPerHour: number | undefined,
  current: boolean,
): BenchmarkResult {
  const metrics = result.metrics.filter((m) => !COST_METRIC_IDS.includes(m.id));
  const source = costSource(result);
  if (usdPerHour === undefined || !source) {
    return metrics.length === result.metrics.length ? result : { ...result, metrics };
  }
  const rate = result.metrics.find((m) => m.id === source.rate);
  const cost = rate ? costMetric(source.id, rate, usdPerHour) : undefined;
  if (cost) return { ...result, metrics: [...metrics, cost] };
  if (!current) return { ...result, metrics };
  const note: NotMeasuredNote = {
    reason: rate
      ? `a run served no ${source.counted} (${source.rate} 0), so they have no cost`
      : `${source.rate} is not measured, so neither is the cost of its ${source.counted}`,
    unit: COST_UNIT,
    direction: 'lower-is-better',
  };
  return { ...result, metrics, notMeasured: { ...result.notMeasured, [source.id]: note } };
}

/** The cost of each of the rate's values (runs, stored records); undefined if one is not > 0. */
function costMetric(id: string, rate: Metric, usdPerHour: number): Metric | undefined {
  if (rate.values.length === 0 || !rate.values.every((v) => v > 0 && Number.isFinite(v))) {
    return undefined;
  }
  const costs = (values: readonly number[]) =>
    values.map((value) => (value > 0 ? costPerMillion(usdPerHour, value) : Number.NaN));
  return {
    id,
    unit: COST_UNIT,
    direction: 'lower-is-better',
    values: rate.values.map((value) => costPerMillion(usdPerHour, value)),
    ...(rate.records ? { records: [...rate.records] } : {}),
    ...(rate.blocks ? { blocks: [...rate.blocks] } : {}),
    ...(rate.olderRecords ? { olderRecords: rate.olderRecords.map(costs) } : {}),
    ...(rate.newestLeftOut ? { newestLeftOut: costs(rate.newestLeftOut) } : {}),
  };
}
