// SGLang's bench_serving output: detected as its own format (not as vLLM's, whose parser
// ignored its E2E latency keys), with the same metric ids as vLLM's serve output.
import { describe, expect, it } from 'vitest';
import { parseResultFile, parseResultText } from '../../src/formats/index.js';
import { fixturePath, metricIds, metricOf } from './support.js';

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
    expect(names).toEqual(['random_input_len=1024', 'random_input_len=4096']);
    // dataset_name is a setting of SGLang's, not a --metadata tag.
    expect(result.runs[0]![0]!.info).toMatchObject({ dataset_name: 'random' });
    expect(result.runs[0]![0]!.info!.metadata).toBeUndefined();
  });
});
