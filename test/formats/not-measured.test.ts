// NaN, Infinity and null in one figure make that metric "not measured" with a note, in
// every format, on text written the way Python's json.dumps writes it (bare NaN,
// Infinity): the rest of the file is still read, and only a file with no usable metric
// at all is refused.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import {
  caughtGateError,
  expectInputError,
  fixturePath,
  metricIds,
  metricOf,
  msNote,
  rateNote,
  rejectedGateError,
} from './support.js';

const NOTE = 'is NaN, Infinity or null in the file';

/** The fixture's text with `key`'s number (the first one after it) replaced by `token`. */
function withToken(name: string, key: string, token: string): string {
  const text = readFileSync(fixturePath(name), 'utf8');
  const pattern = new RegExp(`("${key}":\\s*)-?[0-9][0-9.e+-]*`);
  expect(text).toMatch(pattern);
  return text.replace(pattern, `$1${token}`);
}

describe('offline-benchmark', () => {
  const FORMAT = 'offline-benchmark';

  it('reads a NaN percentile as not measured and keeps the other figures', () => {
    const text = withToken('offline-benchmark/no-raw-times.json', 'p99_time', 'NaN');
    const [benchmark] = parseResultText(text, 'o.json', FORMAT).benchmarks;
    expect(metricIds(benchmark)).toEqual([
      'throughput',
      'latency_p50',
      'latency_p95',
      'latency_mean',
    ]);
    expect(benchmark!.notMeasured).toEqual({ latency_p99: msNote(`metrics.p99_time ${NOTE}`) });
  });

  it('reads an Infinity throughput as not measured', () => {
    const text = withToken(
      'offline-benchmark/reference.json',
      'throughput_queries_per_sec',
      'Infinity',
    );
    const [benchmark] = parseResultText(text, 'o.json', 'auto').benchmarks;
    expect(metricIds(benchmark)).not.toContain('throughput');
    expect(metricOf(benchmark, 'latency_p99').value).toBeGreaterThan(0);
    expect(benchmark!.notMeasured).toEqual({
      throughput: rateNote(`metrics.throughput_queries_per_sec ${NOTE}`, 'queries/s'),
    });
  });

  it('uses the mean of raw_times when avg_time_per_query is NaN', () => {
    const text = withToken('offline-benchmark/reference.json', 'avg_time_per_query', 'NaN');
    const [benchmark] = parseResultText(text, 'o.json', FORMAT).benchmarks;
    expect(metricOf(benchmark, 'latency_mean').value).toBeCloseTo(316.68, 6);
    expect(benchmark!.notMeasured).toBeUndefined();
  });

  it('refuses a file whose every figure is NaN (one untimed query), naming them', async () => {
    const file = fixturePath('offline-benchmark/nan-query.json');
    const error = await rejectedGateError(parseResultFile(file, 'auto'));
    expectInputError(
      error,
      file,
      'has no usable metric',
      `metrics.throughput_queries_per_sec ${NOTE}`,
      `metrics.p99_time ${NOTE}`,
    );
  });
});

describe('guidellm', () => {
  it('makes NaN statistics (null, as pydantic writes them) not measured in that benchmark only', async () => {
    const parsed = await parseResultFile(fixturePath('guidellm/null-tpot-itl.json'), 'auto');
    const [first, second, third] = parsed.benchmarks;
    expect(first!.notMeasured).toBeUndefined();
    expect(third!.notMeasured).toBeUndefined();
    expect(metricIds(second).filter((id) => /^(tpot|itl)_/.test(id))).toEqual([]);
    expect(metricIds(second)).toContain('ttft_p99');
    const path = 'benchmarks[1].metrics.time_per_output_token_ms.successful';
    expect(second!.notMeasured).toMatchObject({
      tpot_p50: msNote(`${path}.percentiles.p50 ${NOTE}`),
      tpot_p99: msNote(`${path}.percentiles.p99 ${NOTE}`),
      tpot_mean: msNote(`${path}.mean ${NOTE}`),
      itl_p95: msNote(
        `benchmarks[1].metrics.inter_token_latency_ms.successful.percentiles.p95 ${NOTE}`,
      ),
    });
  });

  it('reads a bare NaN rate as not measured', () => {
    const text = readFileSync(fixturePath('guidellm/several-benchmarks.json'), 'utf8').replace(
      /("output_tokens_per_second": \{\s*"successful": \{\s*"mean": )[0-9.]+/,
      '$1NaN',
    );
    const [benchmark] = parseResultText(text, 'g.json', 'guidellm').benchmarks;
    expect(metricIds(benchmark)).not.toContain('tokens_per_second');
    expect(benchmark!.notMeasured).toEqual({
      tokens_per_second: rateNote(
        `benchmarks[0].metrics.output_tokens_per_second.successful.mean ${NOTE}`,
        'tokens/s',
      ),
    });
  });
});

describe('vllm-bench-latency', () => {
  const FORMAT = 'vllm-bench-latency';

  it('reads a NaN avg_latency as not measured when latencies cannot stand in', () => {
    const text = withToken('vllm-bench-latency/no-latencies.json', 'avg_latency', 'NaN');
    const [benchmark] = parseResultText(text, 'l.json', FORMAT).benchmarks;
    expect(metricIds(benchmark)).toEqual(['latency_p50', 'latency_p99']);
    expect(benchmark!.notMeasured).toEqual({ latency_mean: msNote(`avg_latency ${NOTE}`) });
  });

  it('falls back to the percentiles the tool wrote when latencies holds a NaN', () => {
    const text = readFileSync(fixturePath('vllm-bench-latency/reference.json'), 'utf8').replace(
      '[1.22, 1.23, 1.25]',
      '[1.22, NaN, 1.25]',
    );
    const [benchmark] = parseResultText(text, 'l.json', FORMAT).benchmarks;
    expect(metricOf(benchmark, 'latency_p50').value).toBeCloseTo(1230, 9);
    expect(metricOf(benchmark, 'latency_p99').value).toBeCloseTo(1249.6, 9);
    // The tool writes no P95: without usable latencies there is nothing to compute it from.
    expect(benchmark!.notMeasured).toEqual({ latency_p95: msNote(`latencies[1] ${NOTE}`) });
  });

  it('refuses a file where numpy turned every figure into NaN', () => {
    const text = JSON.stringify({
      avg_latency: null,
      std_latency: null,
      latencies: [1.2, null],
      percentiles: { '10': null, '25': null, '50': null, '75': null, '90': null, '99': null },
    }).replace(/null/g, 'NaN');
    const error = caughtGateError(() => parseResultText(text, 'l.json', 'auto'));
    expectInputError(error, 'l.json', 'has no usable metric', `avg_latency ${NOTE}`);
  });
});

describe('vllm-bench-throughput', () => {
  it('reads an Infinity rate (elapsed_time 0) as not measured and keeps the other', () => {
    const text = withToken(
      'vllm-bench-throughput/reference.json',
      'requests_per_second',
      'Infinity',
    );
    const [benchmark] = parseResultText(text, 't.json', 'auto').benchmarks;
    expect(metricIds(benchmark)).toEqual(['tokens_per_second']);
    expect(benchmark!.notMeasured).toEqual({
      throughput: rateNote(`requests_per_second ${NOTE}`, 'requests/s'),
    });
  });

  it('refuses a file whose two rates are NaN', () => {
    const text = withToken(
      'vllm-bench-throughput/reference.json',
      'requests_per_second',
      'NaN',
    ).replace(/("tokens_per_second":\s*)[0-9.]+/, '$1NaN');
    const error = caughtGateError(() => parseResultText(text, 't.json', 'vllm-bench-throughput'));
    expectInputError(error, 't.json', 'has no usable metric', `tokens_per_second ${NOTE}`);
  });
});

describe('pytest-benchmark', () => {
  it('makes the figures of a test with a NaN round not measured, and reads the other tests', async () => {
    const parsed = await parseResultFile(fixturePath('pytest-benchmark/nan-round.json'), 'auto');
    const [first, nan, third] = parsed.benchmarks;
    expect(first!.notMeasured).toBeUndefined();
    expect(third!.notMeasured).toBeUndefined();
    expect(metricIds(nan)).toEqual(['latency_min']);
    expect(metricOf(nan, 'latency_min').value).toBeCloseTo(200, 9);
    const stats = 'benchmarks[1].stats';
    expect(nan!.notMeasured).toEqual({
      throughput: rateNote(`${stats}.ops ${NOTE}`, 'ops/s'),
      latency_p50: msNote(`${stats}.median ${NOTE}`),
      latency_p95: msNote(`${stats}.data[2] ${NOTE}`),
      latency_p99: msNote(`${stats}.data[2] ${NOTE}`),
      latency_mean: msNote(`${stats}.mean ${NOTE}`),
    });
  });

  it('reads the median and mean pytest-benchmark computed when only a round is NaN', () => {
    const text = readFileSync(fixturePath('pytest-benchmark/reference.json'), 'utf8').replace(
      /("data": \[\s*)[0-9.]+/,
      '$1NaN',
    );
    const [benchmark] = parseResultText(text, 'p.json', 'pytest-benchmark').benchmarks;
    expect(metricOf(benchmark, 'latency_p50').value).toBeCloseTo(104, 9);
    expect(metricOf(benchmark, 'latency_mean').value).toBeCloseTo(104.2, 9);
    expect(metricOf(benchmark, 'throughput').value).toBeCloseTo(9.5969, 3);
    expect(benchmark!.notMeasured).toEqual({
      latency_p95: msNote(`benchmarks[0].stats.data[0] ${NOTE}`),
      latency_p99: msNote(`benchmarks[0].stats.data[0] ${NOTE}`),
    });
  });
});
