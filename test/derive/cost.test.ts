// Cost per million tokens and requests from result files in the shapes upstream tools
// write: one value per run, at the run's price, the baseline restated at the same price.
import { describe, expect, it } from 'vitest';
import {
  COST_PER_MILLION_REQUESTS,
  COST_PER_MILLION_TOKENS,
  withCostMetrics,
} from '../../src/derive/cost.js';
import { parseResultFile } from '../../src/formats/index.js';
import { CAPACITY_FORMAT } from '../../src/model.js';
import type { BenchmarkResult, CostBasis, Metric } from '../../src/model.js';
import { benchmarkResults, fixturePath } from '../formats/support.js';

const INF2_XLARGE: CostBasis = { instanceType: 'inf2.xlarge', usdPerHour: 0.7582, source: 'table' };

async function resultsOf(fixture: string, format = 'auto'): Promise<BenchmarkResult[]> {
  const file = fixturePath(fixture);
  return benchmarkResults(await parseResultFile(file, format), file, 'bench');
}

function metric(result: BenchmarkResult | undefined, id: string): Metric | undefined {
  return result?.metrics.find((m) => m.id === id);
}

describe('withCostMetrics on vllm bench serve results', () => {
  it('prices each run of output tokens: price / (tokens/s × 3600) × 1e6', async () => {
    // Three runs appended at request rates 1, 4 and inf: one benchmark per rate.
    const results = await resultsOf('vllm-bench-serve/append-rate-sweep.jsonl');
    const { results: priced } = withCostMetrics(results, undefined, INF2_XLARGE);
    const rate4 = priced.find((r) => r.name.includes('4'));
    expect(metric(rate4, 'tokens_per_second')?.values).toEqual([482.62, 476.79, 464.61]);
    const cost = metric(rate4, COST_PER_MILLION_TOKENS);
    expect(cost).toMatchObject({ unit: 'USD', direction: 'lower-is-better' });
    // 0.7582 USD/h ÷ 3600 s/h = 210.61 µUSD/s; ÷ 482.62 tokens/s → 0.43639 USD per 1M tokens.
    expect(cost?.values[0]).toBeCloseTo(0.436391, 5);
    expect(cost?.values[1]).toBeCloseTo(0.441727, 5);
    expect(cost?.values[2]).toBeCloseTo(0.453307, 5);
    // A generative result is priced by its tokens; the request rate adds no second cost.
    expect(metric(rate4, COST_PER_MILLION_REQUESTS)).toBeUndefined();
    expect(priced.every((r) => metric(r, COST_PER_MILLION_TOKENS))).toBe(true);
    // The parsed results are left as they were.
    expect(results.some((r) => metric(r, COST_PER_MILLION_TOKENS))).toBe(false);
  });

  it('scales with the price: 17 times the cost on an inf2.48xlarge', async () => {
    const results = await resultsOf('vllm-bench-serve/reference.json');
    const at = (usdPerHour: number) =>
      metric(
        withCostMetrics(results, undefined, { usdPerHour }).results[0],
        COST_PER_MILLION_TOKENS,
      )?.values[0];
    expect(at(0.7582)).toBeCloseTo(10.149933, 5);
    expect(at(12.98127)).toBeCloseTo(173.778715, 5);
  });
});

describe('the rate a format is priced by', () => {
  it('prices a reranker (offline-benchmark) and vllm bench throughput per request', async () => {
    for (const fixture of [
      'offline-benchmark/reference.json',
      'vllm-bench-throughput/reference.json',
    ]) {
      const [result] = withCostMetrics(await resultsOf(fixture), undefined, INF2_XLARGE).results;
      const throughput = metric(result, 'throughput')!;
      const cost = metric(result, COST_PER_MILLION_REQUESTS);
      expect(cost?.values, fixture).toEqual(
        throughput.values.map((rate) => (0.7582 / (rate * 3600)) * 1e6),
      );
      // vllm bench throughput's tokens_per_second counts prompt tokens too: not priced.
      expect(metric(result, COST_PER_MILLION_TOKENS), fixture).toBeUndefined();
    }
  });

  it("prices guidellm's output tokens, and nothing of a micro-benchmark or a custom file", async () => {
    const [guidellm] = withCostMetrics(
      await resultsOf('guidellm/several-benchmarks.json'),
      undefined,
      INF2_XLARGE,
    ).results;
    expect(metric(guidellm, COST_PER_MILLION_TOKENS)).toBeDefined();
    // ops/s of a micro-benchmark are calls, not requests.
    const pytest = await resultsOf('pytest-benchmark/reference.json');
    expect(pytest.length).toBeGreaterThan(0);
    // A custom file says nothing of what its numbers count, whatever it names them.
    const custom: BenchmarkResult = {
      name: 'custom',
      format: 'custom-bigger-is-better',
      runs: [],
      metrics: [
        { id: 'throughput', unit: 'requests/s', direction: 'higher-is-better', values: [5] },
      ],
    };
    for (const result of withCostMetrics([...pytest, custom], undefined, INF2_XLARGE).results) {
      expect(
        result.metrics.some((m) => m.id.startsWith('cost_')),
        result.name,
      ).toBe(false);
    }
  });

  it('says a cost is not measured when a run served nothing', async () => {
    const [result] = await resultsOf('vllm-bench-serve/reference.json');
    const idle = {
      ...result!,
      metrics: result!.metrics.map((m) =>
        m.id === 'tokens_per_second' ? { ...m, values: [20.75, 0] } : m,
      ),
    };
    const [priced] = withCostMetrics([idle], undefined, INF2_XLARGE).results;
    expect(metric(priced, COST_PER_MILLION_TOKENS)).toBeUndefined();
    expect(priced?.notMeasured?.[COST_PER_MILLION_TOKENS]).toEqual({
      reason: 'a run served no output tokens (tokens_per_second 0), so they have no cost',
      unit: 'USD',
      direction: 'lower-is-better',
    });
  });
});

describe('the baseline', () => {
  it('is priced at this run’s price, whatever price it was stored with', async () => {
    const [stored] = withCostMetrics(
      await resultsOf('vllm-bench-serve/reference.json'),
      undefined,
      { usdPerHour: 5 },
    ).results;
    const older = { ...metric(stored, 'tokens_per_second')!, olderRecords: [[41.5]], records: [1] };
    const baseline = {
      source: 'perf-gate-data',
      benchmarks: [
        { ...stored!, metrics: stored!.metrics.map((m) => (m.id === older.id ? older : m)) },
      ],
    };
    const priced = withCostMetrics([], baseline, INF2_XLARGE).baseline!;
    expect(priced.source).toBe('perf-gate-data');
    const cost = metric(priced.benchmarks[0], COST_PER_MILLION_TOKENS);
    expect(cost?.values[0]).toBeCloseTo(10.149933, 5);
    expect(cost?.olderRecords?.[0]?.[0]).toBeCloseTo(5.074967, 5);
    expect(cost?.records).toEqual([1]);
    // Only one cost metric: the stored one is replaced, not kept beside.
    expect(
      priced.benchmarks[0]?.metrics.filter((m) => m.id === COST_PER_MILLION_TOKENS),
    ).toHaveLength(1);
  });

  it('loses its stored cost when this run has no price, as the run has none', async () => {
    const [stored] = withCostMetrics(
      await resultsOf('vllm-bench-serve/reference.json'),
      undefined,
      INF2_XLARGE,
    ).results;
    const unpriced = withCostMetrics([stored!], { benchmarks: [stored!] }, { note: 'unknown' });
    expect(metric(unpriced.results[0], COST_PER_MILLION_TOKENS)).toBeUndefined();
    expect(metric(unpriced.baseline?.benchmarks[0], COST_PER_MILLION_TOKENS)).toBeUndefined();
  });
});

describe('the capacity point', () => {
  const capacity = (unit: string, values: number[]): BenchmarkResult => ({
    name: 'serve/capacity',
    format: CAPACITY_FORMAT,
    metrics: [{ id: 'capacity', unit, direction: 'higher-is-better', values }],
    runs: [],
  });

  it('prices a request served at the highest rate that meets the SLO, both sides alike', () => {
    const { results, baseline } = withCostMetrics(
      [capacity('requests/s', [4, 5])],
      { benchmarks: [capacity('requests/s', [6])] },
      INF2_XLARGE,
    );
    // 0.7582 USD/h over 4 requests/s: 52.65 USD per million requests.
    expect(metric(results[0], COST_PER_MILLION_REQUESTS)?.values).toEqual([
      expect.closeTo(52.652778, 5),
      expect.closeTo(42.122222, 5),
    ]);
    expect(metric(baseline?.benchmarks[0], COST_PER_MILLION_REQUESTS)?.values).toEqual([
      expect.closeTo(35.101852, 5),
    ]);
    expect(metric(results[0], COST_PER_MILLION_TOKENS)).toBeUndefined();
  });

  it('has no cost for a capacity in concurrency, which is no rate', () => {
    const { results } = withCostMetrics([capacity('concurrency', [8])], undefined, INF2_XLARGE);
    expect(results[0]?.metrics.map((m) => m.id)).toEqual(['capacity']);
  });
});
