import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import { judgeResults } from '../../src/compare/judge.js';
import type { BenchmarkResult } from '../../src/model.js';
import {
  caughtGateError,
  expectInputError,
  fixtureJson,
  fixturePath,
  metricIds,
  metricOf,
  benchmarkResults,
} from './support.js';

const FORMAT = 'guidellm';

type Report = { benchmarks: { metrics: Record<string, Record<string, unknown>> }[] };

describe('guidellm', () => {
  it('makes one uniquely named benchmark per benchmarks[] entry, from its strategy', async () => {
    const result = await parseResultFile(fixturePath('guidellm/several-benchmarks.json'), FORMAT);
    expect(result.benchmarks.map((b) => b.name)).toEqual([
      'synchronous',
      'concurrent-4',
      'constant@1.5-2',
      'constant@1.5-3',
    ]);
    expect(result.benchmarks[1]!.info).toEqual({ strategy: { type_: 'concurrent', streams: 4 } });
  });

  it('reads the successful distributions: request latency in seconds → ms, *_ms as they are', async () => {
    const result = await parseResultFile(fixturePath('guidellm/several-benchmarks.json'), FORMAT);
    const sync = result.benchmarks[0];
    expect(metricIds(sync)).toEqual([
      'throughput',
      'tokens_per_second',
      'total_tokens_per_second',
      ...['latency', 'ttft', 'tpot', 'itl'].flatMap((m) => [
        `${m}_p50`,
        `${m}_p95`,
        `${m}_p99`,
        `${m}_mean`,
      ]),
    ]);
    expect(metricOf(sync, 'throughput')).toEqual({
      id: 'throughput',
      unit: 'requests/s',
      direction: 'higher-is-better',
      value: 0.16,
    });
    expect(metricOf(sync, 'tokens_per_second')).toMatchObject({ unit: 'tokens/s', value: 20.7 });
    expect(metricOf(sync, 'latency_p95')).toEqual({
      id: 'latency_p95',
      unit: 'ms',
      direction: 'lower-is-better',
      value: 6400,
      percentile: 95,
    });
    expect(metricOf(sync, 'latency_mean').value).toBeCloseTo(6150, 9);
    expect(metricOf(sync, 'ttft_p99').value).toBe(350);
    expect(metricOf(sync, 'itl_p50').value).toBe(45.5);
    expect(metricOf(sync, 'tpot_p95').value).toBe(49);
  });

  it('reads an older report: no metadata, strategy under args, no TPOT', async () => {
    const result = await parseResultFile(
      fixturePath('guidellm/no-metadata-args-strategy.json'),
      'auto',
    );
    expect(result.format).toBe(FORMAT);
    const [benchmark] = result.benchmarks;
    expect(benchmark!.name).toBe('poisson@2');
    expect(metricIds(benchmark).some((id) => id.startsWith('tpot_'))).toBe(false);
    expect(metricOf(benchmark, 'latency_p50').value).toBe(6400);
  });

  it('reads the skeleton with elided distributions: only what is there', async () => {
    const result = await parseResultFile(fixturePath('guidellm/skeleton.json'), 'auto');
    expect(result.format).toBe(FORMAT);
    const [benchmark] = result.benchmarks;
    expect(benchmark!.name).toBe('benchmark-0');
    expect(metricIds(benchmark)).toEqual(['throughput']);
  });

  it('uses the median when percentiles.p50 is missing, and leaves out missing P95', () => {
    const data = fixtureJson<Report>('guidellm/several-benchmarks.json');
    const ttft = data.benchmarks[0]!.metrics.time_to_first_token_ms!.successful as {
      percentiles: Record<string, unknown>;
    };
    delete ttft.percentiles.p50;
    delete ttft.percentiles.p95;
    const [benchmark] = parseResultText(JSON.stringify(data), 'g.json', FORMAT).benchmarks;
    expect(metricOf(benchmark, 'ttft_p50').value).toBe(310);
    expect(metricIds(benchmark)).not.toContain('ttft_p95');
  });

  it.each([
    [
      'a percentile as a string',
      (d: Report) =>
        ((
          d.benchmarks[0]!.metrics.request_latency!.successful as Record<
            string,
            Record<string, unknown>
          >
        ).percentiles!.p99 = 'x'),
      'benchmarks[0].metrics.request_latency.successful.percentiles.p99 is the string "x"',
    ],
    [
      'metrics missing',
      (d: Report) => delete (d.benchmarks[2] as Partial<Report['benchmarks'][0]>).metrics,
      'benchmarks[2].metrics is missing',
    ],
    [
      'no successful request',
      (d: Report) => (d.benchmarks[0]!.metrics.request_totals!.successful = 0),
      'benchmarks[0].metrics.request_totals.successful is 0',
    ],
    [
      'a distribution as a number',
      (d: Report) => (d.benchmarks[0]!.metrics.inter_token_latency_ms = 3 as never),
      'benchmarks[0].metrics.inter_token_latency_ms is 3',
    ],
    ['no benchmarks', (d: Report) => (d.benchmarks = []), 'benchmarks is empty'],
  ])('names the field: %s', (_label, edit, fragment) => {
    const data = fixtureJson<Report>('guidellm/several-benchmarks.json');
    edit(data);
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'g.json', FORMAT));
    expectInputError(error, 'g.json', fragment);
  });

  it('needs at least one metric per benchmark', () => {
    const data = { benchmarks: [{ type_: 'generative_benchmark', metrics: {} }] };
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'g.json', FORMAT));
    expectInputError(
      error,
      'g.json',
      'benchmarks[0].metrics.requests_per_second.successful is missing',
    );
  });
});

describe('guidellm: a sweep', () => {
  const text = readFileSync(fixturePath('guidellm/sweep.json'), 'utf8');

  it('names constant points by their position, not by the rate measured this run', () => {
    const names = parseResultText(text, 'sweep.json', 'auto').benchmarks.map((b) => b.name);
    expect(names).toEqual(['synchronous', 'throughput', 'constant#1', 'constant#2']);
    // The next run measures other rates: the names, and so the baseline match, stay.
    const next = text.replace('2.5627449', '2.6104417').replace('3.9254898', '4.0208834');
    expect(parseResultText(next, 'sweep.json', 'auto').benchmarks.map((b) => b.name)).toEqual(
      names,
    );
  });

  it('keeps a configured rate in the name', () => {
    const data = JSON.parse(text);
    for (const entry of data.benchmarks)
      entry.config.profile = { type_: 'constant', rate: [2.5627449, 3.9254898] };
    const names = parseResultText(JSON.stringify(data), 'r.json', 'auto').benchmarks.map(
      (b) => b.name,
    );
    expect(names.slice(2)).toEqual(['constant@2.5627449', 'constant@3.9254898']);
  });
});

describe('guidellm: sweep points matched by where they ran', () => {
  // A sweep of 6: synchronous at 1.2 req/s, throughput at 5.2, then constant rates
  // np.linspace(1.2, 5.2, 5)[1:] (guidellm's SweepProfile), the last at the throughput rate.
  const text = readFileSync(fixturePath('guidellm/sweep-six.json'), 'utf8');
  const namesOf = (data: string) =>
    parseResultText(data, 'sweep.json', 'auto').benchmarks.map((b) => b.name);

  it("names each point by its share of the sweep's range", () => {
    expect(namesOf(text)).toEqual([
      'synchronous',
      'throughput',
      'constant@25%',
      'constant@50%',
      'constant@75%',
      'constant@100%',
    ]);
  });

  it('keeps the names when the next run measures other rates', () => {
    const data = JSON.parse(text);
    const [low, high] = [1.1, 6.1];
    data.benchmarks[0].metrics.requests_per_second.successful.mean = low;
    data.benchmarks[1].metrics.requests_per_second.successful.mean = high;
    data.benchmarks.slice(2).forEach((b: { config: { strategy: { rate: number } } }, i: number) => {
      b.config.strategy.rate = low + ((i + 1) * (high - low)) / 4;
    });
    expect(namesOf(JSON.stringify(data))).toEqual(namesOf(text));
  });

  it('gives a default sweep of 10 the same names whatever rates the run measured', () => {
    // guidellm's default sweep: 8 constant points at k/8 of the range (12.5%, 25%, ...).
    const data = JSON.parse(text);
    const [template] = data.benchmarks.slice(2);
    const seen = new Set<string>();
    let seed = 7;
    const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 300; trial += 1) {
      const low = 0.5 + 5 * next();
      const high = low + 0.5 + 20 * next();
      data.benchmarks[0].metrics.requests_per_second.successful.mean = low;
      data.benchmarks[1].metrics.requests_per_second.successful.mean = high;
      data.benchmarks.splice(2);
      for (let k = 1; k <= 8; k += 1) {
        const point = JSON.parse(JSON.stringify(template));
        point.config.strategy.rate = low + (k * (high - low)) / 8; // np.linspace(low, high, 9)[k]
        data.benchmarks.push(point);
      }
      seen.add(namesOf(JSON.stringify(data)).slice(2).join(' '));
    }
    expect([...seen]).toEqual([
      'constant@12.5% constant@25% constant@37.5% constant@50% constant@62.5% constant@75% constant@87.5% constant@100%',
    ]);
  });

  it('compares the 75% point with the 75% point when the 50% point is missing', () => {
    const before = resultsOf(text);
    const data = JSON.parse(text);
    data.benchmarks.splice(3, 1); // the 50% point failed this time
    const slower = data.benchmarks[3].metrics.request_latency.successful;
    for (const key of ['mean', 'median']) slower[key] *= 1.3;
    for (const p of Object.keys(slower.percentiles)) slower.percentiles[p] *= 1.3;
    const reports = judgeResults(
      resultsOf(JSON.stringify(data)),
      { source: 'baseline.json', benchmarks: before },
      () => ({}),
      { confidence: 0.95, failOnInconclusive: false },
    );
    const verdicts = Object.fromEntries(reports.map((r) => [r.name, r.verdict]));
    expect(verdicts).toEqual({
      synchronous: 'pass',
      throughput: 'pass',
      'constant@25%': 'pass',
      'constant@75%': 'regression',
      'constant@100%': 'pass',
    });
  });
});

function resultsOf(data: string): BenchmarkResult[] {
  return benchmarkResults(parseResultText(data, 'sweep.json', 'guidellm'), 'sweep.json', 'sweep');
}
