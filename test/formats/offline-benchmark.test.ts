import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import type { ParsedBenchmark, ParsedMetric } from '../../src/model.js';
import { caughtGateError, expectInputError, fixturePath, msNote } from './support.js';

const FORMAT = 'offline-benchmark';
const REFERENCE = fixturePath('offline-benchmark/reference.json');

interface OfflineResult {
  configuration: Record<string, unknown>;
  metrics: Record<string, unknown>;
  raw_times?: unknown;
}

function reference(): OfflineResult {
  return JSON.parse(readFileSync(REFERENCE, 'utf8')) as OfflineResult;
}

function metric(benchmark: ParsedBenchmark | undefined, id: string): ParsedMetric {
  const found = benchmark?.metrics.find((m) => m.id === id);
  if (!found) throw new Error(`metric ${id} missing`);
  return found;
}

async function parseFixture(name: string): Promise<ParsedBenchmark> {
  const result = await parseResultFile(fixturePath(`offline-benchmark/${name}`), FORMAT);
  expect(result.format).toBe(FORMAT);
  expect(result.benchmarks).toHaveLength(1);
  return result.benchmarks[0]!;
}

describe('offline-benchmark: the reference file', () => {
  it('reports throughput, P50/P95/P99, mean and geometric mean latency in ms', async () => {
    const benchmark = await parseFixture('reference.json');
    expect(benchmark.metrics.map((m) => m.id)).toEqual([
      'throughput',
      'latency_p50',
      'latency_p95',
      'latency_p99',
      'latency_mean',
      'latency_geomean',
    ]);
    expect(metric(benchmark, 'throughput')).toEqual({
      id: 'throughput',
      unit: 'queries/s',
      direction: 'higher-is-better',
      value: 3.1577617784514342,
    });
    // The script computed its p*_time with np.percentile over the same raw_times.
    const p95 = metric(benchmark, 'latency_p95');
    expect(p95.unit).toBe('ms');
    expect(p95.direction).toBe('lower-is-better');
    expect(p95.percentile).toBe(95);
    expect(p95.value).toBeCloseTo(368.76, 9);
    expect(metric(benchmark, 'latency_p50').value).toBeCloseTo(308.8, 9);
    expect(metric(benchmark, 'latency_p99').value).toBeCloseTo(391.512, 9);
    expect(metric(benchmark, 'latency_mean').value).toBeCloseTo(316.68, 9);
    // numpy: np.exp(np.mean(np.log(np.array(raw_times) * 1000)))
    expect(metric(benchmark, 'latency_geomean')).toEqual({
      id: 'latency_geomean',
      unit: 'ms',
      direction: 'lower-is-better',
      value: expect.closeTo(315.4941340698485, 9),
    });
  });

  it('keeps raw_times in ms as samples of each percentile', async () => {
    const benchmark = await parseFixture('reference.json');
    const expectedSamples = (reference().raw_times as number[]).map((s) => s * 1000);
    for (const id of ['latency_p50', 'latency_p95', 'latency_p99']) {
      expect(metric(benchmark, id).samples).toEqual(expectedSamples);
    }
    expect(metric(benchmark, 'throughput').samples).toBeUndefined();
  });

  it('has no name and echoes the configuration as info', async () => {
    const benchmark = await parseFixture('reference.json');
    expect(benchmark.name).toBeUndefined();
    expect(benchmark.info).toEqual(reference().configuration);
  });
});

describe('offline-benchmark: variations', () => {
  it('falls back to metrics.p*_time without raw_times, with no samples', async () => {
    const benchmark = await parseFixture('no-raw-times.json');
    expect(metric(benchmark, 'latency_p50').value).toBeCloseTo(308.8, 9);
    expect(metric(benchmark, 'latency_p95').value).toBeCloseTo(368.76, 9);
    expect(metric(benchmark, 'latency_p99').value).toBeCloseTo(391.512, 9);
    for (const m of benchmark.metrics) expect(m.samples).toBeUndefined();
    expect(metric(benchmark, 'latency_mean').value).toBeCloseTo(316.68, 9);
  });

  it('computes throughput from total_queries / total_time when the ratio is missing', async () => {
    const benchmark = await parseFixture('no-throughput-ratio.json');
    expect(metric(benchmark, 'throughput').value).toBeCloseTo(10 / 3.1667999999999994, 12);
  });

  it('computes the mean from raw_times when avg_time_per_query is missing', () => {
    const data = reference();
    delete data.metrics.avg_time_per_query;
    data.raw_times = [0.1, 0.2, 0.6];
    const [benchmark] = parseResultText(JSON.stringify(data), 'r.json', FORMAT).benchmarks;
    expect(metric(benchmark, 'latency_mean').value).toBeCloseTo(300, 9);
  });

  it('omits latency_mean when neither avg_time_per_query nor raw_times exist', () => {
    const data = reference();
    delete data.metrics.avg_time_per_query;
    delete data.raw_times;
    const [benchmark] = parseResultText(JSON.stringify(data), 'r.json', FORMAT).benchmarks;
    expect(benchmark!.metrics.map((m) => m.id)).not.toContain('latency_mean');
  });

  it('reads a file with NaN tokens in fields it does not use, leaving strings alone', async () => {
    const benchmark = await parseFixture('nan-tokens.json');
    expect(benchmark.info).toMatchObject({
      model: './models/NaN-Infinity-test',
      note: 'quoted "NaN" and -Infinity stay text \\',
      temperature: null,
      limits: [null, null, 1.5],
      NaN: '-Infinity',
    });
    expect(metric(benchmark, 'latency_p50').value).toBeCloseTo(200, 9);
  });

  it('makes the percentiles of raw_times with a NaN not measured, naming the element', async () => {
    const benchmark = await parseFixture('nan-in-raw-times.json');
    expect(benchmark.metrics.map((m) => m.id)).toEqual(['throughput', 'latency_mean']);
    expect(benchmark.notMeasured).toEqual({
      latency_p50: msNote(
        'raw_times[2] is NaN, Infinity or null in the file, and metrics.p50_time is missing',
      ),
      latency_p95: msNote(
        'raw_times[2] is NaN, Infinity or null in the file, and metrics.p95_time is missing',
      ),
      latency_p99: msNote(
        'raw_times[2] is NaN, Infinity or null in the file, and metrics.p99_time is missing',
      ),
    });
  });
});

describe('offline-benchmark: wrong types name the file and the field', () => {
  const FILE = 'out/offline.json';
  type Edit = (data: OfflineResult) => void;
  const cases: [string, Edit, string[]][] = [
    [
      'throughput as a string',
      (d) => (d.metrics.throughput_queries_per_sec = 'fast'),
      ['metrics.throughput_queries_per_sec is the string "fast"', 'expected a finite number ≥ 0'],
    ],
    [
      'negative throughput',
      (d) => (d.metrics.throughput_queries_per_sec = -3),
      ['metrics.throughput_queries_per_sec is -3', 'queries per second'],
    ],
    [
      'no throughput and no totals',
      (d) => {
        delete d.metrics.throughput_queries_per_sec;
        delete d.metrics.total_time;
      },
      [
        'metrics.throughput_queries_per_sec is missing',
        'metrics.total_queries and metrics.total_time',
      ],
    ],
    [
      'a zero total_time',
      (d) => {
        delete d.metrics.throughput_queries_per_sec;
        d.metrics.total_time = 0;
      },
      ['metrics.total_time is 0', '> 0'],
    ],
    [
      'metrics missing',
      (d) => delete (d as Partial<OfflineResult>).metrics,
      ['metrics is missing', 'expected an object'],
    ],
    [
      'raw_times empty',
      (d) => (d.raw_times = []),
      ['raw_times is an array of 0 item(s)', 'non-empty'],
    ],
    ['raw_times a string', (d) => (d.raw_times = '0.3'), ['raw_times is the string "0.3"']],
    [
      'a raw time as a string',
      (d) => ((d.raw_times as unknown[])[3] = '0.3'),
      ['raw_times[3] is the string "0.3"', 'seconds per query'],
    ],
    [
      'a negative raw time',
      (d) => ((d.raw_times as unknown[])[1] = -0.1),
      ['raw_times[1] is -0.1'],
    ],
    [
      'no raw_times and no p95_time',
      (d) => {
        delete d.raw_times;
        delete d.metrics.p95_time;
      },
      ['metrics.p95_time is missing', 'raw_times is missing too'],
    ],
    [
      'avg_time_per_query a boolean',
      (d) => (d.metrics.avg_time_per_query = true),
      ['metrics.avg_time_per_query is true'],
    ],
    [
      'configuration a string',
      (d) => ((d as { configuration: unknown }).configuration = 'tp=2'),
      ['configuration is the string "tp=2"', 'expected an object'],
    ],
  ];

  it.each(cases)('%s', (_, edit, fragments) => {
    const data = reference();
    edit(data);
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), FILE, FORMAT));
    expectInputError(error, FILE, ...fragments);
  });

  it('a top-level array', () => {
    const error = caughtGateError(() => parseResultText('[1, 2]', FILE, FORMAT));
    expectInputError(error, FILE, 'the top level is an array of 2 item(s)');
  });
});
