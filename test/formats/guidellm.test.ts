import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import { judgeResults } from '../../src/compare/judge.js';
import { weightedMean, weightedPercentiles } from '../../src/formats/token-weighted.js';
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

// guidellm 0.1.x reports: {benchmarks: [{benchmarks: [{mode, rate, results, errors}], args}]}.
type V01Result = Record<string, unknown> & {
  start_time: number;
  end_time: number;
  first_token_time: number | null;
  output_token_count: number;
  decode_times?: { data: number[] };
  last_token_time?: number | null;
};
type V01Benchmark = { mode: string; rate: number | null; results: V01Result[]; errors: unknown[] };
type V01Report = {
  benchmarks: {
    benchmarks: (V01Benchmark & Record<string, unknown>)[];
    args: Record<string, unknown>;
  }[];
};

const V010_SWEEP = 'guidellm/v0.1-sweep.json';
const V01_MAIN = 'guidellm/v0.1-last-token-time.json';
const TIME_IDS = ['latency', 'ttft', 'tpot', 'itl'].flatMap((m) =>
  ['p50', 'p95', 'p99', 'mean'].map((s) => `${m}_${s}`),
);

/** The first 0.1 benchmark's data of a fixture, edited by `edit`, parsed as `format`. */
function parsedV01(name: string, edit: (report: V01Report) => void, format = 'auto') {
  const data = fixtureJson<V01Report>(name);
  edit(data);
  return parseResultText(JSON.stringify(data), 'g01.json', format);
}

/** Expected [p50, p95, p99, mean] of latency, ttft, tpot, itl (ms), and the two rates. */
function expectFigures(
  benchmark: { metrics: { id: string; value: number }[] } | undefined,
  rates: [number, number],
  times: number[][],
): void {
  expect(metricIds(benchmark)).toEqual(['throughput', 'tokens_per_second', ...TIME_IDS]);
  expect(metricOf(benchmark, 'throughput').value).toBeCloseTo(rates[0], 9);
  expect(metricOf(benchmark, 'tokens_per_second').value).toBeCloseTo(rates[1], 9);
  TIME_IDS.forEach((id, index) =>
    expect(metricOf(benchmark, id).value, id).toBeCloseTo(
      times[Math.floor(index / 4)]![index % 4]!,
      9,
    ),
  );
}

describe('guidellm 0.1.x reports', () => {
  it('detects the 0.1 shape and names benchmarks as the current reader does', async () => {
    const result = await parseResultFile(fixturePath(V010_SWEEP), 'auto');
    expect(result.format).toBe(FORMAT);
    // A 0.1 sweep runs synchronous, throughput, then constant rates at k/9 of the range
    // between the two rates they measured (np.linspace(low, high, 10)[1:]).
    expect(result.benchmarks.map((b) => b.name)).toEqual([
      'synchronous',
      'throughput',
      'constant@11.1111%',
      'constant@22.2222%',
    ]);
    expect(result.benchmarks[2]!.info).toEqual({
      guidellm: '0.1.x',
      mode: 'asynchronous',
      rate: 2.9345656545861996,
    });
  });

  // Expected figures: numpy 2.4 on the fixture's requests (python3, json + numpy):
  // throughput = len(results) / (results[-1].end_time − results[0].start_time) and
  // tokens_per_second = Σ output_token_count / that duration (guidellm 0.1's
  // completed_request_rate and output_token_throughput); latency = end − start;
  // ttft = first_token_time; itl = every decode_times.data gap, pooled; tpot = Σ gaps /
  // output_token_count, np.repeat-ed output_token_count times; all ×1000 for ms, then
  // np.percentile(values, [50, 95, 99]) and np.mean(values).
  it('computes every metric of v0.1.0 requests (decode_times) as numpy does', async () => {
    const [sync, throughput] = (await parseResultFile(fixturePath(V010_SWEEP), FORMAT)).benchmarks;
    expectFigures(
      sync,
      [1.8902544794860288, 20.887311998320616],
      [
        [507.16495513916016, 698.1927037239075, 717.1114182472229, 527.1292924880981],
        [126.10399999999998, 153.5467, 157.17494, 125.6],
        [35.847454545454546, 39.14653333333334, 40.89677777777778, 35.77793665158371],
        [38.801, 52.86, 57.743, 39.33793034825871],
      ],
    );
    expectFigures(
      throughput,
      [11.289055055387566, 139.23167901644663],
      [
        [1675.390601158142, 2032.9714179039, 2059.0183210372925, 1677.4487992127736],
        [895.816, 1065.4527, 1112.09688, 876.8056666666668],
        [64.38433333333333, 68.91624999999999, 73.14053846153847, 64.41832432432433],
        [70.2505, 92.70894999999999, 101.21762000000005, 70.10229411764706],
      ],
    );
    expect(sync!.notMeasured).toBeUndefined();
  });

  // The same with absolute token times: ttft = first_token_time − start_time; itl =
  // (last_token_time − first_token_time) / (output_token_count − 1), repeated
  // output_token_count − 1 times (requests of two tokens or more); tpot = the same span /
  // output_token_count, repeated output_token_count times.
  it('reads requests with absolute token times (guidellm main, 2025), failed ones left out', () => {
    const data = fixtureJson<V01Report>(V01_MAIN);
    const [benchmark] = parseResultText(JSON.stringify(data), 'g01.json', 'auto').benchmarks;
    expect(benchmark!.name).toBe('constant@2');
    expect(benchmark!.info).toEqual({
      guidellm: '0.1.x',
      mode: 'asynchronous',
      rate: 2,
      errored_requests: 2,
    });
    expectFigures(
      benchmark,
      [1.78474288618857, 19.453697459455412],
      [
        [552.9885292053223, 740.343701839447, 747.0862650871277, 562.5938773155212],
        [152.95696258544922, 164.54486846923828, 168.6769104003906, 151.29529237747192],
        [37.35631704330444, 41.35876435499925, 41.35876435499925, 37.19306538958068],
        [40.66472626351691, 44.805328051249184, 44.805328051249184, 40.94994068145752],
      ],
    );
    // guidellm computed its own summary into this shape: the figures agree with it.
    const own = data.benchmarks[0]!.benchmarks[0]! as unknown as Record<string, number> & {
      inter_token_latency_percentiles: Record<string, number>;
      request_latency_percentiles: Record<string, number>;
    };
    expect(metricOf(benchmark, 'throughput').value).toBeCloseTo(own.completed_request_rate!, 9);
    expect(metricOf(benchmark, 'tokens_per_second').value).toBeCloseTo(
      own.output_token_throughput!,
      9,
    );
    expect(metricOf(benchmark, 'itl_p95').value).toBeCloseTo(
      own.inter_token_latency_percentiles['95']!,
      9,
    );
    expect(metricOf(benchmark, 'itl_mean').value).toBeCloseTo(own.inter_token_latency!, 9);
    expect(metricOf(benchmark, 'latency_p50').value).toBeCloseTo(
      own.request_latency_percentiles['50']! * 1000,
      6,
    );
  });

  it('names a constant or poisson run by its rate, sweep points by position without a range', () => {
    const poisson = parsedV01(V01_MAIN, (d) => (d.benchmarks[0]!.args.mode = 'poisson'));
    expect(poisson.benchmarks.map((b) => b.name)).toEqual(['poisson@2']);
    const noSync = parsedV01(V010_SWEEP, (d) => d.benchmarks[0]!.benchmarks.shift());
    expect(noSync.benchmarks.map((b) => b.name)).toEqual([
      'throughput',
      'constant#1',
      'constant#2',
    ]);
  });

  it('notes ITL as not measured when no request has two tokens', () => {
    const [benchmark] = parsedV01(V01_MAIN, (d) => {
      for (const result of d.benchmarks[0]!.benchmarks[0]!.results) result.output_token_count = 1;
    }).benchmarks;
    expect(metricIds(benchmark).some((id) => id.startsWith('itl_'))).toBe(false);
    expect(metricIds(benchmark)).toContain('tpot_p50');
    expect(benchmark!.notMeasured!.itl_p99!.reason).toBe(
      'no request of benchmarks[0].benchmarks[0].results has two output tokens or more with their times',
    );
  });

  it('refuses a 0.1 report without per-request timings, naming guidellm 0.1.x and what to do', () => {
    for (const [format, edit, field] of [
      [
        'auto',
        (d: V01Report) => {
          for (const result of d.benchmarks[0]!.benchmarks[0]!.results)
            delete (result as Partial<V01Result>).start_time;
        },
        'benchmarks[0].benchmarks[0].results[0].start_time is missing',
      ],
      [
        FORMAT,
        (d: V01Report) => delete (d.benchmarks[0]!.benchmarks[1] as Partial<V01Benchmark>).results,
        'benchmarks[0].benchmarks[1].results is missing',
      ],
    ] as const) {
      const error = caughtGateError(() => parsedV01(V010_SWEEP, edit, format));
      expectInputError(
        error,
        'g01.json',
        `${field}: this guidellm 0.1.x report`,
        'has no per-request timings',
        'Re-run the benchmark with guidellm ≥ 0.3',
        '--format custom-smaller-is-better',
      );
    }
  });

  it.each([
    [
      'every request failed',
      (d: V01Report) => (d.benchmarks[0]!.benchmarks[0]!.results = []),
      'benchmarks[0].benchmarks[0].results is empty: no request of this benchmark succeeded (2 errored)',
    ],
    [
      'an end_time as a string',
      (d: V01Report) => (d.benchmarks[0]!.benchmarks[0]!.results[3]!.end_time = 'x' as never),
      'benchmarks[0].benchmarks[0].results[3].end_time is the string "x"',
    ],
    [
      'a last token before the first',
      (d: V01Report) => {
        const result = d.benchmarks[0]!.benchmarks[0]!.results[2]!;
        result.last_token_time = result.first_token_time! - 1;
      },
      'benchmarks[0].benchmarks[0].results[2].last_token_time is',
    ],
    [
      'a fractional token count',
      (d: V01Report) => (d.benchmarks[0]!.benchmarks[0]!.results[0]!.output_token_count = 2.5),
      'results[0].output_token_count is 2.5; expected a whole number of tokens ≥ 0',
    ],
  ])('names the file and field of a 0.1 report: %s', (_label, edit, fragment) => {
    expectInputError(
      caughtGateError(() => parsedV01(V01_MAIN, edit)),
      'g01.json',
      fragment,
    );
  });

  it.each([
    [
      'a negative gap between tokens',
      (d: V01Report) => (d.benchmarks[0]!.benchmarks[1]!.results[4]!.decode_times!.data[2] = -1),
      'benchmarks[0].benchmarks[1].results[4].decode_times.data[2] is -1',
    ],
    [
      'a first_token_time since the epoch in v0.1.0 requests',
      (d: V01Report) => {
        const result = d.benchmarks[0]!.benchmarks[0]!.results[0]!;
        result.first_token_time = result.start_time + 0.1;
      },
      'guidellm 0.1.0 writes the seconds from start_time to the first token here',
    ],
  ])('names the file and field of a v0.1.0 report: %s', (_label, edit, fragment) => {
    expectInputError(
      caughtGateError(() => parsedV01(V010_SWEEP, edit)),
      'g01.json',
      fragment,
    );
  });

  it('weights values like np.repeat before np.percentile', () => {
    // np.percentile(np.repeat([1, 3, 10], [3, 1, 2]), [0, 50, 95, 100]) → [1, 2, 10, 10]
    const data = { values: [10, 1, 3], weights: [2, 3, 1] };
    expect(weightedPercentiles(data, [0, 50, 95, 100])).toEqual([1, 2, 10, 10]);
    expect(weightedMean(data)).toBeCloseTo(26 / 6, 12);
  });
});
