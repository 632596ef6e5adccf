// SGLang's bench_serving output: detected as its own format (not as vLLM's, whose parser
// ignored its E2E latency keys), with the same metric ids as vLLM's serve output.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import { fixturePath, metricIds, metricOf, rateNote } from './support.js';

const FILE = fixturePath('sglang-bench-serving/bench-serving.jsonl');

describe('sglang-bench-serving', () => {
  it('is detected by its own keys and read with its E2E latency', async () => {
    const result = await parseResultFile(FILE, 'auto');
    expect(result.format).toBe('sglang-bench-serving');
    expect(result.runs).toHaveLength(3);
    const [first] = result.runs[0]!;
    expect(metricOf(first!, 'latency_p50').value).toBe(7611.9);
    expect(metricOf(first!, 'latency_p99').value).toBe(10120.4);
    expect(metricOf(first!, 'latency_mean').value).toBe(7725.3);
    expect(metricOf(first!, 'throughput').value).toBe(8.09);
    expect(metricOf(first!, 'itl_p95').value).toBe(41.2);
    expect(metricIds(first!)).toEqual(
      expect.arrayContaining(['ttft_p50', 'ttft_p99', 'tpot_p99', 'e2el_p99', 'tokens_per_second']),
    );
  });

  it('is never taken for vLLM serve output, and vLLM output never for it', async () => {
    const line = (await import('node:fs')).readFileSync(FILE, 'utf8').split('\n')[0]!;
    // Told to read it as vLLM's, it says what the file is instead of dropping E2E latency.
    expect(() => parseResultText(line, 'x.json', 'vllm-bench-serve')).toThrow(
      'is SGLang bench_serving output',
    );
    const vllm = (await import('node:fs')).readFileSync(
      fixturePath('vllm-bench-serve/keys-default-percentiles.json'),
      'utf8',
    );
    expect(parseResultText(vllm, 'v.json', 'auto').format).toBe('vllm-bench-serve');
    expect(parseResultText(line, 's.json', 'auto').format).toBe('sglang-bench-serving');
  });
});

describe('sglang-bench-serving: lines of other input lengths', () => {
  it('are other benchmarks, not runs of one', async () => {
    const result = await parseResultFile(
      fixturePath('sglang-bench-serving/input-lengths.jsonl'),
      'auto',
    );
    const names = [...new Set(result.runs.flatMap((run) => run.map((b) => b.name)))];
    expect(names).toEqual(
      [1024, 4096].map(
        (len) =>
          `rate=16,concurrency=64,dataset_name=random,random_input_len=${len},random_output_len=256,random_range_ratio=0`,
      ),
    );
    // dataset_name is a setting of SGLang's, not a --metadata tag.
    expect(result.runs[0]![0]!.info).toMatchObject({ dataset_name: 'random' });
    expect(result.runs[0]![0]!.info!.metadata).toBeUndefined();
  });
});

describe('sglang-bench-serving 0.3.6 to 0.4.1.post3: medians only, no request_throughput', () => {
  const OLD = fixturePath('sglang-bench-serving/v0.3-no-request-throughput.jsonl');

  it('is detected without --format, by its E2E latency keys beside output_throughput', async () => {
    const result = await parseResultFile(OLD, 'auto');
    expect(result.format).toBe('sglang-bench-serving');
    expect(result.runs).toHaveLength(3);
  });

  it('reads every metric of the line to its value, the request rate as completed ÷ duration', async () => {
    const [first] = (await parseResultFile(OLD, 'auto')).runs[0]!;
    const values = Object.fromEntries(first!.metrics.map((m) => [m.id, m.value]));
    expect(values).toEqual({
      throughput: 400 / 52.4,
      tokens_per_second: 1954.2,
      latency_p50: 3088.2,
      latency_mean: 3120.5,
      ttft_p50: 142.7,
      itl_p50: 11.6,
      e2el_p50: 3088.2,
      e2el_mean: 3120.5,
    });
    expect(first!.info).toMatchObject({
      request_throughput: 'not in the file: completed ÷ duration',
      random_input_len: 1024,
    });
  });

  it('shows the total rate, which these versions did not write, as not measured', async () => {
    const [first] = (await parseResultFile(OLD, 'auto')).runs[0]!;
    expect(first!.notMeasured).toEqual({
      total_tokens_per_second: rateNote('total_throughput is not in the file', 'tokens/s'),
    });
  });
});

describe('sglang-bench-serving 0.4.1.post4 to 0.4.1.post7: every statistic, no request_throughput', () => {
  const FILE = fixturePath('sglang-bench-serving/v0.4.1-no-request-throughput.jsonl');

  it('is detected as SGLang, not as vLLM serve output that would drop its E2E latency', async () => {
    const result = await parseResultFile(FILE, 'auto');
    expect(result.format).toBe('sglang-bench-serving');
    const [first] = result.runs[0]!;
    expect(metricOf(first!, 'latency_p99').value).toBe(10084.3);
    expect(metricOf(first!, 'e2el_mean').value).toBe(7690.4);
    expect(metricOf(first!, 'tpot_p99').value).toBe(34.6);
    expect(metricOf(first!, 'throughput').value).toBe(500 / 61.2);
    const line = readFileSync(FILE, 'utf8').split('\n')[0]!;
    expect(() => parseResultText(line, 'x.json', 'vllm-bench-serve')).toThrow(
      'is SGLang bench_serving output (top-level output_throughput and mean_e2e_latency_ms)',
    );
  });
});
