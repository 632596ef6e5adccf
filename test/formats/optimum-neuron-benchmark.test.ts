// optimum-neuron's embedding benchmark (benchmark/vllm/embedding_perf.py), and detection
// by each format's defining keys: a file with two of vllm bench throughput's keys is no
// vllm bench throughput file (test/fixtures/formats/optimum-neuron-benchmark/SOURCES.md).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readResultFiles } from '../../src/baseline/result-files.js';
import { detectFormat, parseResultFile, parseResultText } from '../../src/formats/index.js';
import {
  caughtGateError,
  expectInputError,
  fixtureJson,
  fixturePath,
  metricIds,
  metricOf,
} from './support.js';

const FORMAT = 'optimum-neuron-benchmark';
const REFERENCE = 'optimum-neuron-benchmark/reference.json';

describe('optimum-neuron-benchmark', () => {
  it('is detected by its keys, not as vllm-bench-throughput', () => {
    expect(detectFormat(fixtureJson(REFERENCE), 'r.json').id).toBe(FORMAT);
  });

  it('reads every figure it gates to its value', async () => {
    const [benchmark] = (await parseResultFile(fixturePath(REFERENCE), 'auto')).benchmarks;
    expect(metricIds(benchmark)).toEqual([
      'throughput',
      'tokens_per_second',
      'latency_p50',
      'latency_p90',
      'latency_p99',
      'latency_mean',
    ]);
    const rate = { direction: 'higher-is-better' };
    const time = { unit: 'ms', direction: 'lower-is-better' };
    expect(metricOf(benchmark, 'throughput')).toEqual({
      id: 'throughput',
      unit: 'requests/s',
      ...rate,
      value: 0.83,
    });
    expect(metricOf(benchmark, 'tokens_per_second')).toEqual({
      id: 'tokens_per_second',
      unit: 'tokens/s',
      ...rate,
      value: 1251.36,
    });
    expect(metricOf(benchmark, 'latency_p50')).toEqual({
      id: 'latency_p50',
      ...time,
      value: 17650.2,
      percentile: 50,
    });
    expect(metricOf(benchmark, 'latency_p90')).toEqual({
      id: 'latency_p90',
      ...time,
      value: 23810.4,
      percentile: 90,
    });
    expect(metricOf(benchmark, 'latency_p99')).toEqual({
      id: 'latency_p99',
      ...time,
      value: 61204.9,
      percentile: 99,
    });
    expect(metricOf(benchmark, 'latency_mean')).toEqual({
      id: 'latency_mean',
      ...time,
      value: 24318.7,
    });
  });

  it('keeps the settings, counts and the fastest and slowest request as info', async () => {
    const [benchmark] = (await parseResultFile(fixturePath(REFERENCE), FORMAT)).benchmarks;
    expect(benchmark!.name).toBeUndefined();
    expect(benchmark!.info).toEqual({
      model: '/home/ubuntu/models/qwen3-embedding-8b-tp8-bs8-sl8192',
      concurrent_users: 32,
      total_requests: 200,
      target_prompt_tokens: 1500,
      successful: 200,
      failed: 0,
      wall_time_s: 240.512,
      total_prompt_tokens: 300967,
      latency_min_ms: 5998.3,
      latency_max_ms: 61209.6,
    });
  });

  it('names files of other concurrencies on one side by their settings', async () => {
    const paths = [REFERENCE, 'optimum-neuron-benchmark/concurrency-8.json'].map(fixturePath);
    const results = await readResultFiles(paths, { format: 'auto', fallbackName: 'embed' });
    const names = results.map((result) => result.name);
    expect(names).toHaveLength(2);
    expect(names.some((name) => name.includes('concurrent_users=32'))).toBe(true);
    expect(names.some((name) => name.includes('concurrent_users=8'))).toBe(true);
  });

  it('reads a NaN latency as not measured and keeps the others', () => {
    const text = readFileSync(fixturePath(REFERENCE), 'utf8').replace(
      /("latency_p90_ms":\s*)[0-9.]+/,
      '$1NaN',
    );
    const [benchmark] = parseResultText(text, 'e.json', 'auto').benchmarks;
    expect(metricIds(benchmark)).not.toContain('latency_p90');
    expect(benchmark!.notMeasured?.latency_p90).toMatchObject({ unit: 'ms' });
  });

  it.each([
    ['latency_p99_ms', undefined, 'latency_p99_ms is missing; expected a finite number ≥ 0 (ms)'],
    ['requests_per_second', 'fast', 'requests_per_second is the string "fast"'],
    ['latency_mean_ms', -1, 'latency_mean_ms is -1'],
  ])('rejects %s = %s naming the field', (key, value, fragment) => {
    const data = fixtureJson(REFERENCE);
    data[key] = value;
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'e.json', FORMAT));
    expectInputError(error, 'e.json', fragment);
  });

  it('refuses a run in which no request succeeded', () => {
    const data = { ...fixtureJson(REFERENCE), successful: 0, failed: 200 };
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'e.json', 'auto'));
    expectInputError(error, 'e.json', 'successful is 0: no request succeeded', 'server log');
  });

  it('refuses a file without a latency it gates, naming the key', () => {
    const data = fixtureJson(REFERENCE);
    delete data.latency_p99_ms;
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'e.json', 'auto'));
    expectInputError(
      error,
      'e.json',
      'looks like optimum-neuron-benchmark output but lacks latency_p99_ms;',
      'set the format to optimum-neuron-benchmark',
    );
  });
});

describe('detection by defining keys', () => {
  it('refuses two of vllm bench throughput’s keys without those that define it', () => {
    const data = { requests_per_second: 1.2, tokens_per_second: 480, model: 'm' };
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 't.json', 'auto'));
    expectInputError(
      error,
      't.json',
      't.json: looks like vllm-bench-throughput output but lacks elapsed_time, num_requests, total_num_tokens;',
      'rerun it, or set the format to vllm-bench-throughput',
      'custom-smaller-is-better',
    );
  });

  it('still reads those two keys when the format is set', () => {
    const data = { requests_per_second: 1.2, tokens_per_second: 480 };
    const parsed = parseResultText(JSON.stringify(data), 't.json', 'vllm-bench-throughput');
    expect(metricIds(parsed.benchmarks[0])).toEqual(['throughput', 'tokens_per_second']);
  });

  it('still detects the real vllm bench throughput shape', async () => {
    const path = fixturePath('vllm-bench-throughput/reference.json');
    const parsed = await parseResultFile(path, 'auto');
    expect(parsed.format).toBe('vllm-bench-throughput');
    expect(metricIds(parsed.benchmarks[0])).toEqual(['throughput', 'tokens_per_second']);
  });

  it('refuses vllm bench latency’s latencies and percentiles without avg_latency', () => {
    const data = { latencies: [1.2, 1.3], percentiles: { '50': 1.25 } };
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'l.json', 'auto'));
    expectInputError(
      error,
      'l.json',
      'looks like vllm-bench-latency output but lacks avg_latency;',
    );
  });

  it('calls one shared key no likeness', () => {
    const error = caughtGateError(() =>
      parseResultText('{"requests_per_second": 1, "x": 2}', 'u.json', 'auto'),
    );
    expectInputError(error, 'u.json', 'does not look like any known result format');
  });
});
