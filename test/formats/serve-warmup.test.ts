import { describe, expect, it } from 'vitest';
import { parseResultDocuments } from '../../src/formats/index.js';
import { GateError } from '../../src/errors.js';
import type { ParsedBenchmark, WarmupRule } from '../../src/model.js';

/**
 * A --save-detailed result of 20 requests sent 0.5 s apart: the first 5 sent are slow
 * (TTFT 400 ms, 4 s each), the rest fast (100 ms, 1 s), listed in the file in reverse.
 */
function detailed(options: { startTimes?: boolean } = {}): Record<string, unknown> {
  const sent = [...Array(20).keys()];
  const slow = (i: number) => i < 5;
  const file = [...sent].reverse();
  const result: Record<string, unknown> = {
    num_prompts: 20,
    request_rate: 2,
    duration: 11,
    completed: 20,
    failed: 0,
    total_input_tokens: 20 * 100,
    total_output_tokens: 20 * 11,
    request_throughput: 20 / 11,
    output_throughput: (20 * 11) / 11,
    total_token_throughput: (20 * 111) / 11,
    request_goodput: 1.2,
    mean_ttft_ms: 175,
    p99_ttft_ms: 400,
    input_lens: file.map(() => 100),
    output_lens: file.map(() => 11),
    ttfts: file.map((i) => (slow(i) ? 0.4 : 0.1)),
    latencies: file.map((i) => (slow(i) ? 4 : 1)),
    itls: file.map((i) => Array<number>(10).fill(slow(i) ? 0.36 : 0.09)),
    errors: file.map(() => ''),
  };
  if (options.startTimes !== false) result.start_times = file.map((i) => 1000 + i * 0.5);
  return result;
}

function parse(data: unknown, warmup?: WarmupRule): ParsedBenchmark {
  const parsed = parseResultDocuments(
    { documents: [data] },
    'result.json',
    'vllm-bench-serve',
    warmup ? { warmup } : {},
  );
  return parsed.benchmarks[0]!;
}

const value = (benchmark: ParsedBenchmark, id: string) =>
  benchmark.metrics.find((metric) => metric.id === id)?.value;

describe('warmup: on a vllm bench serve --save-detailed result', () => {
  it('leaves out the first requests by start time, from latencies and throughput', () => {
    const all = parse(detailed());
    const warm = parse(detailed(), { requests: 5 });
    expect(value(all, 'ttft_p99')).toBeCloseTo(400, 6);
    expect(value(warm, 'ttft_p99')).toBeCloseTo(100, 6);
    expect(value(warm, 'ttft_mean')).toBeCloseTo(100, 6);
    expect(value(warm, 'itl_p50')).toBeCloseTo(90, 6);
    // Kept: sent at 1002.5 … 1009.5, the last done 1 s later: 15 requests in 8 s.
    expect(value(warm, 'throughput')).toBeCloseTo(15 / 8, 9);
    expect(value(warm, 'tokens_per_second')).toBeCloseTo((15 * 11) / 8, 9);
    expect(warm.warmup).toEqual({
      rule: { requests: 5 },
      excluded: 5,
      kept: 15,
      byStartTime: true,
      excludedTtftMedianMs: 400,
      keptTtftMedianMs: 100,
    });
    expect(warm.metrics.some((metric) => metric.id === 'goodput')).toBe(false);
  });

  it('without start_times, takes the file order as the order sent', () => {
    // In file order the first 5 are the last sent: fast ones.
    const warm = parse(detailed({ startTimes: false }), { requests: 5 });
    expect(warm.warmup?.byStartTime).toBe(false);
    expect(warm.warmup?.excludedTtftMedianMs).toBe(100);
    expect(value(warm, 'ttft_p99')).toBeCloseTo(400, 6);
    // The run's 11 s in proportion: 15 of 20 requests kept in 8.25 s.
    expect(value(warm, 'throughput')).toBeCloseTo(15 / 8.25, 9);
  });

  it('leaves out the first seconds by start time', () => {
    const warm = parse(detailed(), { seconds: 2.4 });
    expect(warm.warmup).toMatchObject({ excluded: 5, kept: 15 });
    expect(value(warm, 'ttft_p99')).toBeCloseTo(100, 6);
  });

  it('refuses seconds without start_times, and a rule that leaves nothing', () => {
    expect(() => parse(detailed({ startTimes: false }), { seconds: 3 })).toThrow(
      /warmup: \{ seconds \} needs start_times/,
    );
    expect(() => parse(detailed(), { requests: 20 })).toThrow(
      /warmup: the first 20 request\(s\) leaves none of the run's 20 requests/,
    );
  });

  it('refuses a result without per-request arrays, naming warmup:', () => {
    const summary = { request_throughput: 2, completed: 10, mean_ttft_ms: 100 };
    expect(() => parse(summary, { requests: 2 })).toThrow(GateError);
    expect(() => parse(summary, { requests: 2 })).toThrow(/warmup: needs the per-request arrays/);
  });
});
