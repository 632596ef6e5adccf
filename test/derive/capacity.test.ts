// Capacity under the SLO from a sweep's variants, as the pipeline hands them over (parsed,
// aggregated and derived): one capacity per run index, "at least" when the sweep never
// crosses, no value when the lowest load fails already, and the curve a chart draws.
import { describe, expect, it } from 'vitest';
import type { SloSpec } from '../../src/config/slo.js';
import { deriveCapacity } from '../../src/derive/capacity.js';
import { deriveSloMetrics } from '../../src/derive/slo-metrics.js';
import { capacityCurveOf, curveOf } from '../../src/derive/stored-curve.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { parseResultText } from '../../src/formats/index.js';
import type { BenchmarkResult } from '../../src/model.js';
import { serveResult, type ServeRunOptions } from '../support/serve-result.js';
import { cleanRuns } from '../support/clean-runs.js';

const RATES = [1, 2, 4, 6, 8];

/** One variant of the sweep: `runs` result files at `rate`, through parse and derive. */
function variant(
  rate: number,
  slo: SloSpec,
  runs: number,
  options: Partial<ServeRunOptions> = {},
): BenchmarkResult {
  const parsed = Array.from({ length: runs }, (_, run) => {
    const text = JSON.stringify(
      serveResult({ rate, saturation: 10, seed: `${rate}-${run}`, ...options }),
    );
    return { file: `run-${run}.json`, benchmarks: parseResultText(text, 'f', 'auto').benchmarks };
  });
  const [aggregated] = aggregateRuns(parsed, `serve/rate-${rate}`);
  const result: BenchmarkResult = {
    ...aggregated!,
    format: 'vllm-bench-serve',
    runs: cleanRuns(runs),
    sweep: { name: 'serve', variant: `rate-${rate}`, params: { request_rate: rate } },
  };
  return deriveSloMetrics(result, slo).result;
}

function sweep(slo: SloSpec, options: Partial<ServeRunOptions> = {}, runs = 3) {
  return RATES.map((rate) => ({
    variant: `rate-${rate}`,
    result: variant(rate, slo, runs, options),
  }));
}

const LIMIT = 450;
const P99_TTFT: SloSpec = {
  objectives: [{ metric: 'ttft', limitMs: LIMIT, percentile: 99 }],
  attainment: 0.9,
};
const PER_REQUEST: SloSpec = { objectives: [{ metric: 'ttft', limitMs: 300 }], attainment: 0.9 };

describe('capacity of a sweep over request rates', () => {
  it('gives one capacity per run, between the rates that bracket the crossing', () => {
    const { result, warnings } = deriveCapacity('serve', P99_TTFT, sweep(P99_TTFT));
    expect(result.name).toBe('serve/capacity');
    expect(result.format).toBe('capacity');
    const [capacity] = result.metrics;
    expect(capacity).toMatchObject({
      id: 'capacity',
      unit: 'requests/s',
      direction: 'higher-is-better',
    });
    expect(capacity!.values).toHaveLength(3);
    // TTFT grows as 1 / (1 − rate / 10): P99 ≈ 100 ms × 1.4 × queue factor crosses 450 ms
    // between 6 and 8 req/s in every run.
    for (const value of capacity!.values) {
      expect(value).toBeGreaterThan(6);
      expect(value).toBeLessThan(8);
    }
    expect(warnings).toEqual([]);
    expect(result.runs.map((r) => r.durationMs)).toEqual([5000, 5000, 5000]);
  });

  it('interpolates the P99 each run gives at the bracketing rates', () => {
    const variants = sweep(P99_TTFT, {}, 1);
    const p99 = (rate: number) =>
      variants
        .find((v) => v.variant === `rate-${rate}`)!
        .result.metrics.find((m) => m.id === 'ttft_p99')!.values[0]!;
    const [below, above] = [6, 8];
    expect(p99(below)).toBeLessThanOrEqual(LIMIT);
    expect(p99(above)).toBeGreaterThan(LIMIT);
    const expected = below + ((LIMIT - p99(below)) / (p99(above) - p99(below))) * (above - below);
    const { result } = deriveCapacity('serve', P99_TTFT, variants);
    expect(result.metrics[0]!.values[0]).toBeCloseTo(expected, 12);
  });

  it('uses the attainment of per-request objectives against the configured share', () => {
    const strict = deriveCapacity('serve', PER_REQUEST, sweep(PER_REQUEST)).result;
    const lenient = deriveCapacity(
      'serve',
      { ...PER_REQUEST, attainment: 0.5 },
      sweep(PER_REQUEST),
    ).result;
    const mean = (r: BenchmarkResult) =>
      r.metrics[0]!.values.reduce((s, v) => s + v, 0) / r.metrics[0]!.values.length;
    expect(mean(strict)).toBeGreaterThan(1);
    expect(mean(lenient)).toBeGreaterThan(mean(strict));
  });

  it('says "at least" the highest rate when the sweep never crosses', () => {
    const loose: SloSpec = {
      ...P99_TTFT,
      objectives: [{ metric: 'ttft', limitMs: 5000, percentile: 99 }],
    };
    const { result, warnings } = deriveCapacity('serve', loose, sweep(loose));
    expect(result.metrics[0]!.values).toEqual([8, 8, 8]);
    expect(warnings).toEqual([
      'capacity is at least 8 requests/s, the highest load of the sweep: the SLO held at every load in run(s) 1, 2, 3; add higher loads to find where it stops',
    ]);
    expect(curveOf(result)?.capacity).toEqual({ value: 8, atLeast: true });
  });

  it('has no value, and says why, when even the lowest rate fails', () => {
    const tight: SloSpec = {
      ...P99_TTFT,
      objectives: [{ metric: 'ttft', limitMs: 50, percentile: 99 }],
    };
    const { result } = deriveCapacity('serve', tight, sweep(tight));
    expect(result.metrics).toEqual([]);
    expect(result.notMeasured?.capacity).toEqual({
      reason:
        'the SLO fails at the lowest load of the sweep already (request_rate 1): the capacity is below it; add lower loads to the sweep',
      unit: 'requests/s',
      direction: 'higher-is-better',
    });
    expect(curveOf(result)?.capacity).toBeNull();
  });

  it('is not measured when a variant lacks the per-request data its attainment needs', () => {
    const variants = sweep(PER_REQUEST);
    variants[2] = { variant: 'rate-4', result: variant(4, PER_REQUEST, 3, { summaryOnly: true }) };
    const { result } = deriveCapacity('serve', PER_REQUEST, variants);
    expect(result.metrics).toEqual([]);
    expect(result.notMeasured?.capacity?.reason).toMatch(
      /^serve\/rate-4 has no slo_attainment: run 1's result lists no requests one by one/,
    );
  });

  it('is not measured when a variant failed, or the loads cannot be told apart', () => {
    const variants = sweep(P99_TTFT, {}, 1);
    const failed = deriveCapacity('serve', P99_TTFT, [...variants.slice(1), { variant: 'rate-1' }]);
    expect(failed.result.notMeasured?.capacity?.reason).toBe(
      'variant rate-1 was not measured, and capacity needs every load of the sweep',
    );
    const same = variants.map((v) => ({
      ...v,
      result: { ...v.result, info: { ...v.result.info, request_rate: 'inf' }, sweep: undefined },
    }));
    expect(deriveCapacity('serve', P99_TTFT, same).result.notMeasured?.capacity?.reason).toMatch(
      /^each variant needs its own request_rate or max_concurrency/,
    );
  });

  it('keeps the latency–load curve, and pairs it with the baseline’s for the chart', () => {
    const before = deriveCapacity('serve', P99_TTFT, sweep(P99_TTFT)).result;
    const slower = deriveCapacity('serve', P99_TTFT, sweep(P99_TTFT, { ttftMs: 115 })).result;
    const curve = capacityCurveOf(slower, before)!;
    expect(curve.load).toBe('request_rate');
    expect(curve.unit).toBe('requests/s');
    const [series] = curve.series;
    expect(series).toMatchObject({
      metric: 'ttft_p99',
      unit: 'ms',
      limit: LIMIT,
      holds: 'at-most',
    });
    expect(series!.current.map((p) => p.load)).toEqual(RATES);
    expect(series!.baseline.map((p) => p.load)).toEqual(RATES);
    series!.current.forEach((p, i) => expect(p.value).toBeGreaterThan(series!.baseline[i]!.value));
    expect(curve.capacity.current!.value).toBeLessThan(curve.capacity.baseline!.value);
    // A stored curve is untrusted: a malformed one is no baseline.
    const broken = {
      ...before,
      info: { capacity: { ...curveOf(before), series: [{ metric: 1 }] } },
    };
    expect(capacityCurveOf(slower, broken)!.capacity.baseline).toBeNull();
  });
});
