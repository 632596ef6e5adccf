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

describe('vllm-bench-throughput', () => {
  const FORMAT = 'vllm-bench-throughput';

  it('reports requests/s as throughput and tokens/s', async () => {
    const result = await parseResultFile(
      fixturePath('vllm-bench-throughput/reference.json'),
      FORMAT,
    );
    const [benchmark] = result.benchmarks;
    expect(metricIds(benchmark)).toEqual(['throughput', 'tokens_per_second']);
    expect(metricOf(benchmark, 'throughput')).toEqual({
      id: 'throughput',
      unit: 'requests/s',
      direction: 'higher-is-better',
      value: 2.375,
    });
    expect(metricOf(benchmark, 'tokens_per_second')).toMatchObject({
      unit: 'tokens/s',
      value: 912.1,
    });
    expect(benchmark!.info).toEqual({
      num_requests: 100,
      total_num_tokens: 38400,
      elapsed_time: 42.1,
    });
  });

  it.each([
    ['requests_per_second', 'x', 'requests_per_second is the string "x"'],
    ['tokens_per_second', -1, 'tokens_per_second is -1'],
    ['tokens_per_second', undefined, 'tokens_per_second is missing'],
  ])('rejects %s = %s naming the field', (key, value, fragment) => {
    const data = fixtureJson('vllm-bench-throughput/reference.json');
    data[key] = value;
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 't.json', FORMAT));
    expectInputError(error, 't.json', fragment);
  });
});

describe('vllm-bench-latency', () => {
  const FORMAT = 'vllm-bench-latency';

  it('computes P50/P95/P99 from latencies (seconds → ms) with samples', async () => {
    const result = await parseResultFile(fixturePath('vllm-bench-latency/reference.json'), FORMAT);
    const [benchmark] = result.benchmarks;
    expect(metricIds(benchmark)).toEqual([
      'latency_p50',
      'latency_p95',
      'latency_p99',
      'latency_geomean',
      'latency_mean',
    ]);
    const p95 = metricOf(benchmark, 'latency_p95');
    expect(p95).toMatchObject({ unit: 'ms', direction: 'lower-is-better', percentile: 95 });
    // numpy: sorted [1220, 1230, 1250], rank 1.9 → 1230 + 0.9 × 20
    expect(p95.value).toBeCloseTo(1248, 9);
    expect(p95.samples).toHaveLength(3);
    expect(metricOf(benchmark, 'latency_p50').value).toBeCloseTo(1230, 9);
    expect(metricOf(benchmark, 'latency_p99').value).toBeCloseTo(1249.6, 9);
    expect(metricOf(benchmark, 'latency_mean').value).toBeCloseTo(1234, 9);
    // numpy: np.exp(np.mean(np.log([1220, 1230, 1250])))
    expect(metricOf(benchmark, 'latency_geomean').value).toBeCloseTo(1233.2704293865095, 9);
  });

  it('falls back to percentiles "50" and "99" without latencies; P95 stays absent', async () => {
    const result = await parseResultFile(
      fixturePath('vllm-bench-latency/no-latencies.json'),
      FORMAT,
    );
    const [benchmark] = result.benchmarks;
    expect(metricIds(benchmark)).toEqual(['latency_p50', 'latency_p99', 'latency_mean']);
    expect(metricOf(benchmark, 'latency_p50').value).toBeCloseTo(1230, 9);
    expect(metricOf(benchmark, 'latency_p99').value).toBeCloseTo(1249.6, 9);
    expect(metricOf(benchmark, 'latency_p99').samples).toBeUndefined();
  });

  it('says why there is no geometric mean when a latency is 0 (no logarithm)', () => {
    const data = fixtureJson('vllm-bench-latency/reference.json');
    data.latencies = [1.22, 0, 1.25];
    const [benchmark] = parseResultText(JSON.stringify(data), 'l.json', FORMAT).benchmarks;
    expect(metricIds(benchmark)).not.toContain('latency_geomean');
    expect(benchmark!.notMeasured?.latency_geomean).toEqual({
      reason: 'request 2 took 0 ms, which has no logarithm: no geometric mean',
      unit: 'ms',
      direction: 'lower-is-better',
    });
  });

  it('computes the mean from latencies when avg_latency is missing', () => {
    const data = fixtureJson('vllm-bench-latency/reference.json');
    delete data.avg_latency;
    const [benchmark] = parseResultText(JSON.stringify(data), 'l.json', FORMAT).benchmarks;
    expect(metricOf(benchmark, 'latency_mean').value).toBeCloseTo(1233.3333333, 6);
  });

  it.each([
    ['latencies', [1.2, 'x'], 'latencies[1] is the string "x"'],
    ['latencies', [], 'latencies is an array of 0 item(s)'],
  ])('rejects %s = %j naming the field', (key, value, fragment) => {
    const data = fixtureJson('vllm-bench-latency/reference.json');
    data[key] = value;
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'l.json', FORMAT));
    expectInputError(error, 'l.json', fragment);
  });

  it('names the percentile key that is not a number', () => {
    const data = fixtureJson<{ percentiles: Record<string, unknown> }>(
      'vllm-bench-latency/no-latencies.json',
    );
    data.percentiles['99'] = 'slow';
    const error = caughtGateError(() => parseResultText(JSON.stringify(data), 'l.json', FORMAT));
    expectInputError(error, 'l.json', 'percentiles.99 is the string "slow"');
  });

  it('needs latencies, percentiles or avg_latency', () => {
    const error = caughtGateError(() => parseResultText('{"std_latency": 1}', 'l.json', FORMAT));
    expectInputError(error, 'l.json', 'latencies is missing', 'percentiles or avg_latency');
  });
});
