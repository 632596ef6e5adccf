// Goodput as the gate counts it, on a vllm bench serve --save-detailed file: every request
// checked against the per-request objectives, failed ones never good, TPOT 0 for a
// one-token request as vLLM counts it; the file's own request_goodput gives way.
import { describe, expect, it } from 'vitest';
import type { SloSpec } from '../../src/config/slo.js';
import { deriveSloMetrics } from '../../src/derive/slo-metrics.js';
import { aggregateRuns, type ParsedRun } from '../../src/formats/aggregate.js';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import type { BenchmarkResult } from '../../src/model.js';
import { serveResult } from '../support/serve-result.js';
import { fixturePath } from '../formats/support.js';

const FIXTURE = fixturePath('vllm-bench-serve/detailed-goodput.json');

/** Runs as the gate aggregates them (runner/measured.ts: parseCleanRuns). */
function resultOf(runs: ParsedRun[]): BenchmarkResult {
  const [benchmark] = aggregateRuns(runs, 'serve');
  return { ...benchmark!, format: 'vllm-bench-serve', runs: [] };
}

async function fixtureRuns(times: number): Promise<ParsedRun[]> {
  const parsed = await parseResultFile(FIXTURE, 'vllm-bench-serve');
  return Array.from({ length: times }, () => ({ file: FIXTURE, benchmarks: parsed.benchmarks }));
}

const slo = (objectives: SloSpec['objectives']): SloSpec => ({ objectives, attainment: 0.9 });
const metric = (result: BenchmarkResult, id: string) => result.metrics.find((m) => m.id === id);

describe('goodput and attainment from per-request objectives', () => {
  it('counts the requests meeting every objective, as vllm bench serve --goodput does', async () => {
    const measured = resultOf(await fixtureRuns(2));
    const { result, warnings } = deriveSloMetrics(
      measured,
      slo([
        { metric: 'ttft', limitMs: 300 },
        { metric: 'tpot', limitMs: 50 },
      ]),
    );
    // 5 of the 10 requests sent (one failed) in 5 s: the file's own request_goodput agrees.
    expect(metric(result, 'slo_attainment')).toEqual({
      id: 'slo_attainment',
      unit: '%',
      direction: 'higher-is-better',
      values: [50, 50],
    });
    expect(metric(result, 'goodput')?.values).toEqual([1, 1]);
    expect(result.metrics.filter((m) => m.id === 'goodput')).toHaveLength(1);
    expect(warnings).toEqual([
      "goodput is the gate's: requests meeting ttft ≤ 300 ms per request, tpot ≤ 50 ms per request per second, in place of the file's request_goodput (from vllm bench serve --goodput)",
    ]);
    expect(result).not.toHaveProperty('requests');
  });

  it('checks every gap of a request against a per-request ITL objective', async () => {
    const { result } = deriveSloMetrics(
      resultOf(await fixtureRuns(1)),
      slo([
        { metric: 'ttft', limitMs: 300 },
        { metric: 'tpot', limitMs: 50 },
        { metric: 'itl', limitMs: 50 },
      ]),
    );
    expect(metric(result, 'slo_attainment')?.values).toEqual([40]);
    expect(metric(result, 'goodput')?.values).toEqual([0.8]);
  });

  it('leaves the file’s goodput and notes why when a run lists no requests', async () => {
    const detailed = await fixtureRuns(1);
    const summary = JSON.parse(
      JSON.stringify(serveResult({ rate: 2, saturation: 8, seed: 's', summaryOnly: true })),
    );
    summary.request_goodput = 1.5;
    const plain = {
      file: 'run-2.json',
      benchmarks: parseResultText(JSON.stringify(summary), 'run-2.json', 'vllm-bench-serve')
        .benchmarks,
    };
    const { result } = deriveSloMetrics(
      resultOf([...detailed, plain]),
      slo([{ metric: 'ttft', limitMs: 300 }]),
    );
    expect(metric(result, 'slo_attainment')).toBeUndefined();
    expect(metric(result, 'goodput')?.values).toEqual([1, 1.5]);
    expect(result.notMeasured?.slo_attainment?.reason).toBe(
      "run 2's result lists no requests one by one, so the per-request objectives cannot be checked (vllm bench serve writes them with --save-detailed)",
    );
    expect(result.notMeasured?.goodput).toBeUndefined();
    // The rest of the result is intact.
    expect(metric(result, 'ttft_p99')?.values).toHaveLength(2);
  });

  it('adds a percentile objective’s metric the samples give and the file has no key for', async () => {
    const { result } = deriveSloMetrics(
      resultOf(await fixtureRuns(1)),
      slo([{ metric: 'ttft', limitMs: 400, percentile: 75 }]),
    );
    // TTFTs of the 9 successful requests, sorted: 180 200 220 250 280 290 310 450 600 ms;
    // numpy's P75 is the 7th (index 6): 310 ms.
    const p75 = metric(result, 'ttft_p75');
    expect(p75?.values[0]).toBeCloseTo(310, 9);
    expect(p75?.percentile).toBe(75);
    expect(metric(result, 'slo_attainment')).toBeUndefined();
  });

  it('drops the request tables and changes nothing else without an SLO', async () => {
    const measured = resultOf(await fixtureRuns(1));
    expect(measured.requests).toHaveLength(1);
    const { result, warnings } = deriveSloMetrics(measured, undefined);
    expect(result).not.toHaveProperty('requests');
    expect(result.metrics).toEqual(measured.metrics);
    expect(warnings).toEqual([]);
  });
});
