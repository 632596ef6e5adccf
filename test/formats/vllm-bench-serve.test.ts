import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { judgeResults } from '../../src/compare/judge.js';
import type { ParsedBenchmark } from '../../src/model.js';
import {
  caughtGateError,
  expectInputError,
  fixtureJson,
  fixturePath,
  metricIds,
  metricOf,
  msNote,
  rateNote,
  rejectedGateError,
  benchmarkResults,
} from './support.js';

const FORMAT = 'vllm-bench-serve';

async function parseFixture(name: string): Promise<ParsedBenchmark> {
  const result = await parseResultFile(fixturePath(`vllm-bench-serve/${name}`), FORMAT);
  expect(result.format).toBe(FORMAT);
  expect(result.runs).toEqual([result.benchmarks]);
  expect(result.benchmarks).toHaveLength(1);
  return result.benchmarks[0]!;
}

function parseData(data: unknown, file = 'serve.json'): ParsedBenchmark {
  return parseResultText(JSON.stringify(data), file, FORMAT).benchmarks[0]!;
}

const ALL_KEYS = [
  'throughput',
  'tokens_per_second',
  'total_tokens_per_second',
  'latency_p50',
  'latency_p95',
  'latency_p99',
  'latency_mean',
  ...['ttft', 'tpot', 'itl', 'e2el'].flatMap((m) => [
    `${m}_p50`,
    `${m}_p95`,
    `${m}_p99`,
    `${m}_mean`,
  ]),
];

describe('vllm-bench-serve: the reference file', () => {
  it('reports request and token throughput', async () => {
    const benchmark = await parseFixture('reference.json');
    expect(metricIds(benchmark)).toEqual(ALL_KEYS);
    expect(metricOf(benchmark, 'throughput')).toEqual({
      id: 'throughput',
      unit: 'requests/s',
      direction: 'higher-is-better',
      value: 0.162,
    });
    expect(metricOf(benchmark, 'tokens_per_second')).toEqual({
      id: 'tokens_per_second',
      unit: 'tokens/s',
      direction: 'higher-is-better',
      value: 20.75,
    });
    expect(metricOf(benchmark, 'total_tokens_per_second').value).toBe(62.24);
  });

  it('computes E2EL and latency_* from the latencies array (seconds → ms) with samples', async () => {
    const benchmark = await parseFixture('reference.json');
    for (const base of ['latency', 'e2el']) {
      const p95 = metricOf(benchmark, `${base}_p95`);
      expect(p95).toMatchObject({ unit: 'ms', direction: 'lower-is-better', percentile: 95 });
      expect(p95.value).toBeCloseTo(6195, 9);
      expect(Array.from(p95.samples!)).toEqual([6100, 6200]);
      expect(metricOf(benchmark, `${base}_p50`).value).toBeCloseTo(6150, 9);
      expect(metricOf(benchmark, `${base}_p99`).value).toBeCloseTo(6199, 9);
      expect(metricOf(benchmark, `${base}_mean`).value).toBeCloseTo(6150, 9);
    }
  });

  it('reads TTFT, TPOT and ITL from the p<P>_<metric>_ms keys without samples', async () => {
    const benchmark = await parseFixture('reference.json');
    expect(metricOf(benchmark, 'ttft_p50')).toEqual({
      id: 'ttft_p50',
      unit: 'ms',
      direction: 'lower-is-better',
      value: 310.5,
      percentile: 50,
    });
    expect(metricOf(benchmark, 'ttft_p95').value).toBe(311.85);
    expect(metricOf(benchmark, 'ttft_p99').value).toBe(311.97);
    expect(metricOf(benchmark, 'tpot_p95').value).toBe(45.78);
    expect(metricOf(benchmark, 'itl_p99').value).toBe(52.3);
    expect(metricOf(benchmark, 'itl_mean').value).toBe(45.6);
  });

  it('has no goodput when request_goodput is null, and keeps request_rate "inf" as info', async () => {
    const benchmark = await parseFixture('reference.json');
    expect(metricIds(benchmark)).not.toContain('goodput');
    expect(benchmark.name).toBeUndefined();
    expect(benchmark.info).toMatchObject({
      backend: 'vllm',
      model_id: 'TinyLlama/TinyLlama-1.1B-Chat-v1.0',
      request_rate: 'inf',
      max_concurrency: 4,
      completed: 2,
    });
    expect(benchmark.info).not.toHaveProperty('label');
  });
});

describe('vllm-bench-serve: keys only', () => {
  it('leaves out the percentiles that were not requested, never zero', async () => {
    const benchmark = await parseFixture('keys-default-percentiles.json');
    expect(metricIds(benchmark)).toEqual([
      'throughput',
      'tokens_per_second',
      'total_tokens_per_second',
      ...['ttft', 'tpot', 'itl'].flatMap((m) => [`${m}_p50`, `${m}_p99`, `${m}_mean`]),
    ]);
    // P50 comes from median_<m>_ms when p50_<m>_ms is absent.
    expect(metricOf(benchmark, 'itl_p50').value).toBe(45.5);
    for (const m of benchmark.metrics) expect(m.samples).toBeUndefined();
  });

  it('reads the old "request_goodput:" key and the e2el keys as latency_*', async () => {
    const benchmark = await parseFixture('old-goodput-colon.json');
    expect(metricOf(benchmark, 'goodput')).toEqual({
      id: 'goodput',
      unit: 'requests/s',
      direction: 'higher-is-better',
      value: 0.15,
    });
    expect(metricOf(benchmark, 'latency_p50').value).toBe(6150);
    expect(metricOf(benchmark, 'latency_p95').value).toBe(6195);
    expect(metricOf(benchmark, 'latency_p95').samples).toBeUndefined();
    expect(metricOf(benchmark, 'e2el_p99').value).toBe(6199);
    expect(benchmark.info).toMatchObject({ request_rate: 2 });
  });

  it('reads request_goodput without the colon', () => {
    const data = fixtureJson('vllm-bench-serve/reference.json');
    data.request_goodput = 0.1;
    expect(metricOf(parseData(data), 'goodput').value).toBe(0.1);
  });
});

describe('vllm-bench-serve: --save-detailed arrays', () => {
  it('computes TTFT over the successful requests only, in ms, numpy-linear', async () => {
    const benchmark = await parseFixture('detailed.json');
    const ttft = metricOf(benchmark, 'ttft_p95');
    // The samples of a run are a set: sorted once by the parser, request order not kept.
    expect(Array.from(ttft.samples!, (v) => Number(v.toFixed(9)))).toEqual([305, 309, 312]);
    expect(ttft.value).toBeCloseTo(311.7, 9);
    expect(metricOf(benchmark, 'ttft_p50').value).toBeCloseTo(309, 9);
    expect(metricOf(benchmark, 'ttft_p99').value).toBeCloseTo(311.94, 9);
    expect(metricOf(benchmark, 'ttft_mean').value).toBeCloseTo((309 + 312 + 305) / 3, 9);
  });

  it('pools the ITLs of all successful requests', async () => {
    const benchmark = await parseFixture('detailed.json');
    const itl = metricOf(benchmark, 'itl_p95');
    expect(itl.samples).toHaveLength(5);
    expect(metricOf(benchmark, 'itl_p50').value).toBeCloseTo(45.5, 9);
    expect(itl.value).toBeCloseTo(46.8, 9);
    expect(metricOf(benchmark, 'itl_p99').value).toBeCloseTo(46.96, 9);
  });

  it('derives TPOT per request as (latency − ttft) / (output_len − 1), like vLLM', async () => {
    const benchmark = await parseFixture('detailed.json');
    const tpots = [(6100 - 309) / 127, (6200 - 312) / 127, (6000 - 305) / 63];
    const tpot = metricOf(benchmark, 'tpot_p50');
    expect(tpot.samples).toHaveLength(3);
    tpot.samples!.forEach((value, index) => expect(value).toBeCloseTo(tpots[index]!, 9));
    expect(tpot.value).toBeCloseTo(tpots[1]!, 9);
    expect(metricOf(benchmark, 'tpot_mean').value).toBeCloseTo(
      (tpots[0]! + tpots[1]! + tpots[2]!) / 3,
      9,
    );
  });

  it('computes latency_* and e2el_* from latencies without the failed request', async () => {
    const benchmark = await parseFixture('detailed.json');
    expect(metricOf(benchmark, 'latency_p50').value).toBeCloseTo(6100, 9);
    expect(metricOf(benchmark, 'latency_p95').value).toBeCloseTo(6190, 9);
    expect(metricOf(benchmark, 'e2el_p99').value).toBeCloseTo(6198, 9);
    expect(Array.from(metricOf(benchmark, 'latency_p99').samples!)).toEqual([6000, 6100, 6200]);
    expect(benchmark.info).toMatchObject({ completed: 3, failed: 1, request_rate: 4 });
  });

  it('uses the keys for TPOT when output_lens is missing', () => {
    const data = fixtureJson('vllm-bench-serve/detailed.json');
    delete data.output_lens;
    const benchmark = parseData(data);
    expect(metricOf(benchmark, 'tpot_p95').value).toBe(45.78);
    expect(metricOf(benchmark, 'tpot_p95').samples).toBeUndefined();
    expect(metricOf(benchmark, 'ttft_p95').samples).toHaveLength(3);
  });

  it('counts every request when there is no errors array', () => {
    const data = fixtureJson('vllm-bench-serve/detailed.json');
    delete data.errors;
    expect(metricOf(parseData(data), 'ttft_p50').samples).toHaveLength(4);
  });
});

describe('vllm-bench-serve: --append-result (one JSON per line)', () => {
  const file = fixturePath('vllm-bench-serve/append.jsonl');

  it('returns one run per line, the first as benchmarks', async () => {
    const result = await parseResultFile(file, FORMAT);
    expect(result.runs).toHaveLength(3);
    expect(result.runs.map((run) => metricOf(run[0], 'throughput').value)).toEqual([
      0.162, 0.158, 0.166,
    ]);
    expect(result.runs.map((run) => metricOf(run[0], 'ttft_p99').value)).toEqual([
      311.97, 320.5, 305.2,
    ]);
    expect(result.benchmarks).toBe(result.runs[0]);
  });

  it('is recognised by auto', async () => {
    expect(await parseResultFile(file, 'auto')).toEqual(await parseResultFile(file, FORMAT));
  });

  it('names the line that stops early', async () => {
    const path = fixturePath('vllm-bench-serve/append-truncated.jsonl');
    const error = await rejectedGateError(parseResultFile(path, 'auto'));
    expectInputError(error, path, 'is not valid JSON Lines', 'at line 3, column', 'stops early');
  });

  it('names the line that is another tool’s output', async () => {
    const path = fixturePath('vllm-bench-serve/append-mixed.jsonl');
    const auto = await rejectedGateError(parseResultFile(path, 'auto'));
    expectInputError(auto, path, 'line 2: does not have the shape of vllm-bench-serve output');
    const explicit = await rejectedGateError(parseResultFile(path, FORMAT));
    expectInputError(
      explicit,
      path,
      'line 2: request_throughput is missing',
      'looks like vllm-bench-throughput output',
    );
  });

  it('is refused by a format that writes one document per file', async () => {
    const error = await rejectedGateError(parseResultFile(file, 'vllm-bench-throughput'));
    expectInputError(
      error,
      file,
      'holds 3 JSON documents, one per line',
      'vllm-bench-throughput writes one JSON document per file',
      'Only vllm-bench-serve',
    );
  });

  it('skips blank lines and reads a CRLF file', () => {
    const text = readFileSync(file, 'utf8').split('\n').join('\r\n\r\n');
    expect(parseResultText(text, 'a.jsonl', 'auto').runs).toHaveLength(3);
  });
});

describe('vllm-bench-serve: errors name the file and the field', () => {
  const FILE = 'out/serve.json';
  type Data = Record<string, unknown>;
  const cases: [string, string, (d: Data) => void, string[]][] = [
    [
      'request_throughput a string',
      'reference',
      (d) => (d.request_throughput = 'fast'),
      ['request_throughput is the string "fast"', 'requests per second'],
    ],
    ['a negative mean', 'reference', (d) => (d.mean_itl_ms = -1), ['mean_itl_ms is -1']],
    [
      'output_throughput a string',
      'reference',
      (d) => (d.output_throughput = '20'),
      ['output_throughput is the string "20"'],
    ],
    [
      '"request_goodput:" a string',
      'old-goodput-colon',
      (d) => (d['request_goodput:'] = 'n/a'),
      ['request_goodput: is the string "n/a"'],
    ],
    [
      'no successful request',
      'reference',
      (d) => (d.completed = 0),
      ['completed is 0', 'no request succeeded'],
    ],
    [
      'latencies a string',
      'reference',
      (d) => (d.latencies = '6.1'),
      ['latencies is the string "6.1"', 'seconds per request'],
    ],
    [
      'arrays of different lengths',
      'detailed',
      (d) => (d.latencies = [6.1, 6.2]),
      ['latencies has 2 item(s) but ttfts has 4', 'one entry per request'],
    ],
    [
      'an itls entry not an array',
      'detailed',
      (d) => ((d.itls as unknown[])[1] = 'x'),
      ['itls[1] is the string "x"'],
    ],
    [
      'a negative ITL',
      'detailed',
      (d) => ((d.itls as number[][])[0]![1] = -0.1),
      ['itls[0][1] is -0.1'],
    ],
    [
      'a fractional output length',
      'detailed',
      (d) => ((d.output_lens as number[])[0] = 1.5),
      ['output_lens[0] is 1.5', 'whole number'],
    ],
    [
      'a latency below its TTFT',
      'detailed',
      (d) => ((d.latencies as number[])[0] = 0.1),
      ['latencies[0] is 0.1', 'ttfts[0]'],
    ],
    [
      'a TTFT too large to be ms',
      'detailed',
      (d) => ((d.ttfts as number[])[1] = 1e307),
      ['ttfts[1] is 1e+307', 'plausible'],
    ],
    ['the top level an array', 'reference', (d) => void d, []],
  ];

  it.each(cases)('%s', (label, fixture, edit, fragments) => {
    const data = fixtureJson(`vllm-bench-serve/${fixture}.json`);
    edit(data);
    const input = label === 'the top level an array' ? [data] : data;
    const error = caughtGateError(() => parseResultText(JSON.stringify(input), FILE, FORMAT));
    expectInputError(
      error,
      FILE,
      ...(fragments.length ? fragments : ['the top level is an array']),
    );
  });
});

describe('vllm-bench-serve: --append-result lines of different settings', () => {
  const file = fixturePath('vllm-bench-serve/append-rate-sweep.jsonl');

  it('makes one benchmark per setting, named by its settings, defaults left out, with its lines as runs', async () => {
    const parsed = await parseResultFile(file, 'auto');
    const benchmarks = aggregateRuns(
      parsed.runs.map((run) => ({ file, benchmarks: run })),
      'serve',
    );
    expect(benchmarks.map((b) => b.name)).toEqual([
      'prompts=200,rate=1',
      'prompts=200,rate=4',
      'prompts=200,concurrency=16',
    ]);
    for (const benchmark of benchmarks) {
      expect(benchmark.metrics.find((m) => m.id === 'ttft_p99')?.values).toHaveLength(3);
    }
  });

  it('leaves lines of one setting unnamed: they are runs of the configured benchmark', async () => {
    const parsed = await parseResultFile(fixturePath('vllm-bench-serve/append.jsonl'), FORMAT);
    expect(parsed.runs.flat().map((b) => b.name)).toEqual([undefined, undefined, undefined]);
  });
});

describe('vllm-bench-serve: NaN in one metric', () => {
  // json.dump writes NaN for TPOT when every request produced one output token.
  const text = readFileSync(fixturePath('vllm-bench-serve/reference.json'), 'utf8').replace(
    /"(mean|median|p50|p95|p99)_tpot_ms": [0-9.]+/g,
    '"$1_tpot_ms": NaN',
  );

  it('makes those metrics not measured with a note and reads the rest', () => {
    const [benchmark] = parseResultText(text, 'serve.json', 'auto').benchmarks;
    const ids = benchmark!.metrics.map((m) => m.id);
    expect(ids.filter((id) => id.startsWith('tpot_'))).toEqual([]);
    expect(ids).toContain('ttft_p99');
    expect(benchmark!.notMeasured).toMatchObject({
      tpot_p99: msNote('p99_tpot_ms is NaN, Infinity or null in the file'),
      tpot_mean: msNote('mean_tpot_ms is NaN, Infinity or null in the file'),
    });
  });

  it('refuses a file where nothing is measured', () => {
    const none = JSON.stringify({ request_throughput: null, output_throughput: null });
    const error = caughtGateError(() => parseResultText(none, 'serve.json', FORMAT));
    expectInputError(error, 'serve.json', 'has no usable metric', 'request_throughput is NaN');
  });
});

describe('vllm-bench-serve: percentiles asked for with --metric-percentiles', () => {
  it('reads every p<P>_<metric>_ms key, whole or fractional, and gates each', async () => {
    const benchmark = await parseFixture('keys-metric-percentiles.json');
    for (const m of ['ttft', 'tpot', 'itl', 'latency']) {
      for (const p of ['p25', 'p50', 'p90', 'p99_9']) {
        expect(metricIds(benchmark)).toContain(`${m}_${p}`);
      }
    }
    expect(metricOf(benchmark, 'ttft_p90')).toMatchObject({ value: 318.2, percentile: 90 });
    expect(metricOf(benchmark, 'itl_p99_9')).toMatchObject({ value: 61.2, percentile: 99.9 });
    expect(metricOf(benchmark, 'latency_p25').value).toBe(6080);
  });

  it('fails a pull request whose P90 alone is 25% slower, naming it', async () => {
    const before = fixtureJson('vllm-bench-serve/keys-metric-percentiles.json') as Record<
      string,
      number
    >;
    const after = { ...before, p90_ttft_ms: before.p90_ttft_ms! * 1.25 };
    const [base, now] = [before, after].map(
      (data) => aggregateRuns([{ file: 'serve.json', benchmarks: [parseData(data)] }], 'serve')[0]!,
    );
    const toResult = (benchmark: typeof base) => ({
      name: 'serve',
      format: FORMAT,
      metrics: benchmark!.metrics,
      runs: [],
    });
    const [report] = judgeResults(
      [toResult(now)],
      { source: 'baseline.json', benchmarks: [toResult(base)] },
      () => ({}),
      { confidence: 0.95, failOnInconclusive: false },
    );
    expect(report!.verdict).toBe('regression');
    const failed = report!.metrics.filter((m) => m.verdict === 'regression').map((m) => m.id);
    expect(failed).toEqual(['ttft_p90']);
  });

  it('computes the asked-for percentiles from --save-detailed samples too', () => {
    const data = fixtureJson('vllm-bench-serve/detailed.json') as Record<string, unknown>;
    const benchmark = parseData({ ...data, p90_ttft_ms: 1, 'p99.9_ttft_ms': 2 });
    // numpy.percentile(ttfts of the successful requests in ms, 90), as vLLM computes it.
    const expected = 311.4;
    expect(metricOf(benchmark, 'ttft_p90').value).toBeCloseTo(expected, 9);
    expect(metricIds(benchmark)).toContain('ttft_p99_9');
  });
});

describe('vllm-bench-serve: lines told apart only by --metadata tags', () => {
  it('makes each tag its own benchmark instead of pooling them as runs', async () => {
    const result = await parseResultFile(
      fixturePath('vllm-bench-serve/append-metadata-tags.jsonl'),
      FORMAT,
    );
    const names = result.runs.map((run) => run.map((b) => b.name));
    expect(names).toEqual([
      ['prompts=2,concurrency=4,config=tp2'],
      ['prompts=2,concurrency=4,config=tp4'],
      ['prompts=2,concurrency=4,config=tp2'],
      ['prompts=2,concurrency=4,config=tp4'],
      ['prompts=2,concurrency=4,config=tp2'],
      ['prompts=2,concurrency=4,config=tp4'],
    ]);
    const benchmarks = aggregateRuns(
      result.runs.map((benchmarks) => ({ file: 'tags.jsonl', benchmarks })),
      'serve',
    );
    expect(
      benchmarks.map((b) => [b.name, b.metrics.find((m) => m.id === 'ttft_p99')!.values.length]),
    ).toEqual([
      ['prompts=2,concurrency=4,config=tp2', 3],
      ['prompts=2,concurrency=4,config=tp4', 3],
    ]);
    expect(result.runs[0]![0]!.info).toMatchObject({ metadata: { config: 'tp2' } });
  });

  it('does not split runs by tags that label the run (--metadata run=N, seed=…)', () => {
    const tagged = readFileSync(fixturePath('vllm-bench-serve/append-metadata-tags.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line, index) => line.replace(/^\{/, `{"run": "${index + 1}", "seed": "${index}", `))
      .join('\n');
    const result = parseResultText(tagged, 'tags.jsonl', FORMAT);
    expect(result.runs.map((run) => run.map((b) => b.name)).flat()).toEqual([
      'prompts=2,concurrency=4,config=tp2',
      'prompts=2,concurrency=4,config=tp4',
      'prompts=2,concurrency=4,config=tp2',
      'prompts=2,concurrency=4,config=tp4',
      'prompts=2,concurrency=4,config=tp2',
      'prompts=2,concurrency=4,config=tp4',
    ]);
  });
});

describe('vllm-bench-serve: a serving file without request_throughput', () => {
  it('is read, with the request rate from completed ÷ duration, and says so', async () => {
    const result = await parseResultFile(
      fixturePath('vllm-bench-serve/no-request-throughput.json'),
      'auto',
    );
    expect(result.format).toBe(FORMAT);
    const [benchmark] = result.benchmarks;
    expect(metricOf(benchmark!, 'throughput').value).toBeCloseTo(2 / 12.34, 12);
    expect(benchmark!.info).toMatchObject({
      request_throughput: 'not in the file: completed ÷ duration',
    });
  });
});

describe('vllm-bench-serve: latency keys only (no request_throughput, completed or duration)', () => {
  const FILE = fixturePath('vllm-bench-serve/latency-keys-only.json');
  // --metric-percentiles 50,90,99, as vllm-ascend's tools/vllm_bench.py asks for them.
  const FIGURES: Record<string, [number, number, number, number]> = {
    ttft: [1791.6, 2410.8, 3105.2, 1852.4],
    tpot: [17.41, 18.12, 19.05, 17.46],
    itl: [16.95, 19.7, 31.6, 17.38],
    e2el: [27985.1, 29602.3, 30911.8, 28020.7],
  };

  it('is detected as vllm-bench-serve by its latency keys, without --format', async () => {
    const result = await parseResultFile(FILE, 'auto');
    expect(result.format).toBe(FORMAT);
  });

  it('reads every latency metric to its value', async () => {
    const [benchmark] = (await parseResultFile(FILE, 'auto')).benchmarks;
    const expected = Object.entries(FIGURES).flatMap(([name, [p50, p90, p99, mean]]) => [
      [`${name}_p50`, p50],
      [`${name}_p90`, p90],
      [`${name}_p99`, p99],
      [`${name}_mean`, mean],
    ]);
    const latency = ['p50', 'p90', 'p99', 'mean'].map((s, i) => [`latency_${s}`, FIGURES.e2el![i]]);
    const values = Object.fromEntries(benchmark!.metrics.map((m) => [m.id, m.value]));
    expect(values).toEqual(Object.fromEntries([...latency, ...expected]));
  });

  it('shows every rate as not measured, with why, never leaving it out', async () => {
    const [benchmark] = (await parseResultFile(FILE, 'auto')).benchmarks;
    expect(benchmark!.notMeasured).toEqual({
      throughput: rateNote(
        'request_throughput is not in the file, nor completed and duration to compute it from (completed ÷ duration)',
        'requests/s',
      ),
      tokens_per_second: rateNote('output_throughput is not in the file', 'tokens/s'),
      total_tokens_per_second: rateNote('total_token_throughput is not in the file', 'tokens/s'),
    });
    expect(benchmark!.info).not.toHaveProperty('request_throughput');
  });

  it('says duration is 0 when completed ÷ duration has no value', () => {
    const data = fixtureJson('vllm-bench-serve/latency-keys-only.json');
    const benchmark = parseData({ ...data, completed: 4, duration: 0 });
    expect(benchmark.notMeasured!.throughput!.reason).toBe(
      'request_throughput is not in the file, and duration is 0, so completed ÷ duration has no value',
    );
  });

  it('is not taken for anything by one mean alone', () => {
    const one = JSON.stringify({ mean_ttft_ms: 1, median_ttft_ms: 1 });
    const error = caughtGateError(() => parseResultText(one, 'one.json', 'auto'));
    expectInputError(error, 'one.json', 'does not look like any known result format');
  });
});

describe('vllm-bench-serve: a vllm bench sweep combination’s summary.json', () => {
  const runsOf = async (name: string, format = 'auto') => {
    const file = fixturePath(`vllm-bench-sweep/${name}`);
    const parsed = await parseResultFile(file, format);
    return {
      parsed,
      benchmarks: aggregateRuns(
        parsed.runs.map((run) => ({ file, benchmarks: run })),
        'serve',
      ),
    };
  };

  it('is read as the runs of one benchmark, run_number no setting of its own', async () => {
    for (const format of ['auto', FORMAT]) {
      const { parsed, benchmarks } = await runsOf('summary.json', format);
      expect(parsed.format).toBe(FORMAT);
      expect(benchmarks.map((b) => b.name)).toEqual(['serve']);
      expect(benchmarks[0]!.metrics.find((m) => m.id === 'ttft_p99')?.values).toEqual([
        311.97, 312.4,
      ]);
    }
  });

  it('tells combinations joined into one list apart by their settings', async () => {
    const { benchmarks } = await runsOf('two-combinations.json');
    expect(benchmarks.map((b) => b.name)).toEqual([
      'prompts=2,concurrency=32,max_num_seqs=32',
      'prompts=2,concurrency=64,max_num_seqs=64',
    ]);
    for (const benchmark of benchmarks) {
      expect(benchmark.metrics.find((m) => m.id === 'throughput')?.values).toHaveLength(2);
    }
  });
});

describe('vllm-bench-serve: sweep parameters of any type', () => {
  // Serve parameters alone tell the combinations apart (--serve-params max_num_seqs 32 and
  // 128, enable_prefix_caching, no linked bench parameter); vLLM's own measured keys never.
  const list = fixtureJson<Record<string, unknown>[]>('vllm-bench-sweep/two-combinations.json');
  const joined = list.map((entry, i) => ({
    ...entry,
    max_concurrency: 32,
    max_num_seqs: i < 2 ? 32 : 128,
    enable_prefix_caching: i < 2,
    output_throughput: 20 + i,
  }));

  it('names each combination by its parameters, numbers and booleans too', () => {
    const parsed = parseResultText(JSON.stringify(joined), 'summary.json', 'auto');
    const names = aggregateRuns(
      parsed.runs.map((run) => ({ file: 'summary.json', benchmarks: run })),
      'serve',
    ).map((b) => b.name);
    expect(names).toEqual([
      'prompts=2,concurrency=32,enable_prefix_caching=true,max_num_seqs=32',
      'prompts=2,concurrency=32,enable_prefix_caching=false,max_num_seqs=128',
    ]);
  });

  it('says the settings differ when one combination’s summary meets another’s', () => {
    const side = (runs: Record<string, unknown>[]) =>
      benchmarkResults(parseResultText(JSON.stringify(runs), 's.json', 'auto'), 's.json', 'serve');
    const [report] = judgeResults(
      side(joined.slice(2)),
      { source: 'baseline', benchmarks: side(joined.slice(0, 2)) },
      () => ({}),
      { confidence: 0.95, failOnInconclusive: false },
    );
    expect(report!.warnings.join(' ')).toContain('max_num_seqs=32');
    expect(report!.warnings.join(' ')).toContain('max_num_seqs=128');
  });
});

describe('vllm-bench-serve: a baseline of other settings than the run', () => {
  const lines = readFileSync(
    fixturePath('vllm-bench-serve/append-metadata-tags.jsonl'),
    'utf8',
  ).split('\n');
  const side = (tag: string) => {
    const text = lines.filter((line) => line.includes(`"config": "${tag}"`)).join('\n');
    return benchmarkResults(
      parseResultText(text, `${tag}.jsonl`, FORMAT),
      `${tag}.jsonl`,
      'serve',
    )[0]!;
  };
  const judge = (current: ReturnType<typeof side>, baseline: ReturnType<typeof side>) =>
    judgeResults([current], { source: 'b.jsonl', benchmarks: [baseline] }, () => ({}), {
      confidence: 0.95,
      failOnInconclusive: false,
    })[0]!;

  it('says which settings differ when a tp2 baseline meets a tp4 run', () => {
    expect(judge(side('tp4'), side('tp2')).warnings).toContain(
      'the baseline was measured with config=tp2 and this run with config=tp4: compared as one benchmark, though the workloads differ',
    );
  });

  it('says nothing when the settings are the same', () => {
    expect(judge(side('tp2'), side('tp2')).warnings.filter((w) => w.includes('workloads'))).toEqual(
      [],
    );
  });
});
