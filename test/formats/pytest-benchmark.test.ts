import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import type { BenchmarkResult, ParsedBenchmark, ParsedMetric } from '../../src/model.js';
import { caughtGateError, expectInputError, fixturePath } from './support.js';

const FORMAT = 'pytest-benchmark';

interface PytestFile {
  benchmarks: Record<string, unknown>[];
  [key: string]: unknown;
}

function fixtureData(name: string): PytestFile {
  return JSON.parse(readFileSync(fixturePath(`pytest-benchmark/${name}`), 'utf8')) as PytestFile;
}

function stats(data: PytestFile, index = 0): Record<string, unknown> {
  return data.benchmarks[index]!.stats as Record<string, unknown>;
}

function metric(benchmark: ParsedBenchmark | undefined, id: string): ParsedMetric {
  const found = benchmark?.metrics.find((m) => m.id === id);
  if (!found) throw new Error(`metric ${id} missing`);
  return found;
}

async function parseFixture(name: string): Promise<ParsedBenchmark[]> {
  const result = await parseResultFile(fixturePath(`pytest-benchmark/${name}`), FORMAT);
  expect(result.format).toBe(FORMAT);
  return result.benchmarks;
}

describe('pytest-benchmark: the reference file', () => {
  it('names the benchmark by fullname and reports ops/s and latencies in ms', async () => {
    const [benchmark, ...rest] = await parseFixture('reference.json');
    expect(rest).toHaveLength(0);
    expect(benchmark!.name).toBe('tests/test_perf.py::test_generate[bs1]');
    expect(metric(benchmark, 'throughput')).toEqual({
      id: 'throughput',
      unit: 'ops/s',
      direction: 'higher-is-better',
      value: 9.596928982725528,
    });
    const samples = [101, 102, 104, 106, 108];
    const p50 = metric(benchmark, 'latency_p50');
    expect(p50).toMatchObject({ unit: 'ms', direction: 'lower-is-better', percentile: 50 });
    expect(p50.value).toBeCloseTo(104, 9);
    // Rounds are not independent requests: no per-request samples to bootstrap.
    expect(p50.samples).toBeUndefined();
    expect(metric(benchmark, 'latency_min').value).toBeCloseTo(Math.min(...samples), 9);
    // rank 0.95 × 4 = 3.8 → 106 + 0.8 × 2; rank 3.96 → 106 + 0.96 × 2
    expect(metric(benchmark, 'latency_p95').value).toBeCloseTo(107.6, 9);
    expect(metric(benchmark, 'latency_p99').value).toBeCloseTo(107.92, 9);
    expect(metric(benchmark, 'latency_mean').value).toBeCloseTo(104.2, 9);
  });

  it('echoes params and extra_info, and leaves out a null group', async () => {
    const [benchmark] = await parseFixture('reference.json');
    expect(benchmark!.info).toEqual({
      params: { bs: 1 },
      extra_info: { tokens_per_second: 123.4 },
    });
  });
});

describe('pytest-benchmark: variations', () => {
  it('without data: P50 from the median, mean from the mean, no P95/P99', async () => {
    const [benchmark] = await parseFixture('no-data.json');
    expect(benchmark!.metrics.map((m) => m.id)).toEqual([
      'throughput',
      'latency_p50',
      'latency_mean',
      'latency_min',
    ]);
    expect(metric(benchmark, 'latency_p50').value).toBeCloseTo(104, 9);
    expect(metric(benchmark, 'latency_p50').samples).toBeUndefined();
    expect(metric(benchmark, 'latency_mean').value).toBeCloseTo(104.2, 9);
  });

  it('a parametrized test gives one benchmark per parameter set, in file order', async () => {
    const benchmarks = await parseFixture('parametrized.json');
    expect(benchmarks.map((b) => b.name)).toEqual([
      'tests/test_perf.py::test_generate[bs1]',
      'tests/test_perf.py::test_generate[bs4]',
      'tests/test_perf.py::test_generate[bs8]',
    ]);
    expect(benchmarks.map((b) => b.info)).toEqual([
      { group: 'generate', params: { bs: 1 }, extra_info: { tokens_per_second: 100 } },
      { group: 'generate', params: { bs: 4 }, extra_info: { tokens_per_second: 400 } },
      { group: 'generate', params: { bs: 8 }, extra_info: { tokens_per_second: 800 } },
    ]);
    expect(metric(benchmarks[1], 'latency_p50').value).toBeCloseTo(215, 9);
  });

  it('takes data of a multi-iteration benchmark as per-iteration times, unscaled', async () => {
    const data = fixtureData('parametrized.json');
    expect(stats(data, 2).iterations).toBe(50);
    const benchmark = (await parseFixture('parametrized.json'))[2];
    // sorted data [1.1, 1.1, 1.2, 1.2, 1.3, 1.9] ms: the median is 1.2 ms, not 50 × that
    expect(metric(benchmark, 'latency_p50').value).toBeCloseTo(1.2, 9);
    expect(metric(benchmark, 'latency_mean').value).toBeCloseTo(
      (stats(data, 2).mean as number) * 1000,
      9,
    );
    expect(metric(benchmark, 'throughput').value).toBeCloseTo(stats(data, 2).ops as number, 9);
  });

  it('falls back to name when fullname is missing', () => {
    const data = fixtureData('reference.json');
    delete data.benchmarks[0]!.fullname;
    const [benchmark] = parseResultText(JSON.stringify(data), 'p.json', FORMAT).benchmarks;
    expect(benchmark!.name).toBe('test_generate[bs1]');
  });

  it('computes ops as 1 / mean when ops is missing (files before pytest-benchmark 3.1)', () => {
    const data = fixtureData('reference.json');
    delete stats(data).ops;
    const [benchmark] = parseResultText(JSON.stringify(data), 'p.json', FORMAT).benchmarks;
    expect(metric(benchmark, 'throughput').value).toBeCloseTo(1 / 0.1042, 9);
  });

  it('says no benchmark ran when the benchmarks array is empty', async () => {
    const file = fixturePath('pytest-benchmark/empty-benchmarks.json');
    const error = caughtGateError(() => parseResultText(readFileSync(file, 'utf8'), file, FORMAT));
    expectInputError(error, file, 'benchmarks is empty: no benchmark ran', 'errored');
  });
});

describe('pytest-benchmark: wrong types name the file and the field', () => {
  const FILE = 'out/bench.json';
  type Edit = (data: PytestFile) => void;
  const cases: [string, Edit, string[]][] = [
    [
      'ops as a string',
      (d) => (stats(d).ops = 'many'),
      ['benchmarks[0].stats.ops is the string "many"', 'operations per second'],
    ],
    [
      'stats missing',
      (d) => delete d.benchmarks[0]!.stats,
      ['benchmarks[0].stats is missing', 'expected an object'],
    ],
    [
      'data empty',
      (d) => (stats(d).data = []),
      ['benchmarks[0].stats.data is an array of 0 item(s)'],
    ],
    [
      'no data and no median',
      (d) => {
        delete stats(d).data;
        delete stats(d).median;
      },
      ['benchmarks[0].stats.median is missing', 'since data is missing'],
    ],
    ['a negative mean', (d) => (stats(d).mean = -0.1), ['benchmarks[0].stats.mean is -0.1']],
    [
      'no fullname and no name',
      (d) => {
        delete d.benchmarks[0]!.fullname;
        delete d.benchmarks[0]!.name;
      },
      ['benchmarks[0].fullname is missing'],
    ],
    ['benchmarks an object', (d) => (d.benchmarks = {} as never), ['benchmarks is an object']],
    [
      'an entry that is a number',
      (d) => (d.benchmarks = [5] as never),
      ['benchmarks[0] is 5', 'expected an object with fullname and stats'],
    ],
    [
      'two entries with the same fullname',
      (d) => d.benchmarks.push(structuredClone(d.benchmarks[0]!)),
      ['benchmarks[1].fullname "tests/test_perf.py::test_generate[bs1]"', 'benchmarks[0]'],
    ],
  ];

  it.each(cases)('%s', (_, edit, fragments) => {
    const data = fixtureData('reference.json');
    edit(data);
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), FILE, FORMAT));
    expectInputError(error, FILE, ...fragments);
  });
});

describe('pytest-benchmark: an unchanged micro-benchmark', () => {
  // test_tokenize: 2,000 rounds at timer resolution, then a tail of GC pauses. The second
  // session has the same minimum and median, a 3% higher mean and a heavier tail: the
  // function did not change, the machine did.
  function session(tail: number): string {
    const rounds = Array.from({ length: 2000 }, (_, i) => {
      if (i % 100 < 2) return 3.1e-6 * (1 + tail); // 2% GC-hit rounds
      return [2.1e-6, 2.2e-6, 2.3e-6][i % 3]!;
    });
    const mean = rounds.reduce((a, b) => a + b, 0) / rounds.length;
    const sorted = [...rounds].sort((a, b) => a - b);
    return JSON.stringify({
      machine_info: { node: 'ci' },
      version: '4.0.0',
      benchmarks: [
        {
          group: null,
          name: 'test_tokenize',
          fullname: 'tests/test_tok.py::test_tokenize',
          params: null,
          extra_info: {},
          stats: {
            min: sorted[0],
            max: sorted.at(-1),
            mean,
            median: sorted[1000],
            ops: 1 / mean,
            rounds: rounds.length,
            iterations: 1,
            data: rounds,
          },
        },
      ],
    });
  }

  it('passes with the built-in thresholds though P99 of rounds moved beyond 15%', () => {
    const side = (text: string, file: string): BenchmarkResult[] =>
      aggregateRuns(
        [{ file, benchmarks: parseResultText(text, file, 'auto').benchmarks }],
        'x',
      ).map((b) => ({ name: b.name, format: 'pytest-benchmark', metrics: b.metrics, runs: [] }));
    const before = side(session(0), 'before.json');
    const after = side(session(1.5), 'after.json');
    const [report] = judgeResults(after, { source: 'b', benchmarks: before }, () => ({}), {
      confidence: 0.95,
      failOnInconclusive: false,
    });
    const byId = new Map(report!.metrics.map((m) => [m.id, m]));
    expect(byId.get('latency_p99')!.change!).toBeGreaterThan(0.15);
    expect(byId.get('latency_p99')!.threshold).toBeNull();
    expect(byId.get('latency_mean')!.change!).toBeGreaterThan(0.02);
    expect(byId.get('latency_min')!.change).toBe(0);
    expect(report!.verdict).toBe('pass');
  });
});
