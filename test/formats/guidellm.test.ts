import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import {
  caughtGateError,
  expectInputError,
  fixtureJson,
  fixturePath,
  metricIds,
  metricOf,
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
