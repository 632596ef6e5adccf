// The comment's warm-up line: what each run left out, and how the requests left out
// compared with the rest; nothing without warmup:.
import { describe, expect, it } from 'vitest';
import type { BenchmarkReport, WarmupRun } from '../../src/model.js';
import { renderComment } from '../../src/report/markdown.js';
import { warmupLine } from '../../src/report/warmup-line.js';
import { benchmark, expectWellFormed, reportOf } from './support.js';

function warmed(warmup: (WarmupRun | null)[]): BenchmarkReport {
  const report = benchmark('qwen3-serve/rate-4');
  return { ...report, result: { ...report.result!, warmup } };
}

const run = (excludedMs: number, keptMs: number): WarmupRun => ({
  rule: { requests: 10 },
  excluded: 10,
  kept: 90,
  byStartTime: true,
  excludedTtftMedianMs: excludedMs,
  keptTtftMedianMs: keptMs,
});

describe('warmupLine', () => {
  it('says what was left out and how much slower it was', () => {
    expect(warmupLine(warmed([run(412, 95)]))).toBe(
      '🔥 **Warm-up**: the first 10 requests of the run excluded (10 of 100 requests, by start time); ' +
        'their median TTFT 412.0 ms vs 95.00 ms after, 4.3×.',
    );
  });

  it("takes the median of several runs' medians, and says so", () => {
    const line = warmupLine(warmed([run(400, 100), run(120, 100), run(130, 100)]))!;
    expect(line).toContain('the first 10 requests of each of 3 runs excluded (30 of 300 requests');
    expect(line).toContain(
      "their median TTFT 130.0 ms vs 100.0 ms after (the median of 3 runs' medians), 1.30×",
    );
  });

  it('names seconds and the order sent when the file had no start times', () => {
    const line = warmupLine(
      warmed([{ rule: { seconds: 30 }, excluded: 57, kept: 243, byStartTime: false }]),
    );
    expect(line).toBe(
      '🔥 **Warm-up**: the first 30.00 s of the run excluded (57 of 300 requests, in the order sent).',
    );
  });

  it('is in the comment, and absent without warmup:', () => {
    const markdown = renderComment(reportOf([warmed([run(412, 95)])]));
    expectWellFormed(markdown);
    expect(markdown).toContain('🔥 **Warm-up**: the first 10 requests');
    expect(warmupLine(benchmark('plain'))).toBeUndefined();
    expect(warmupLine(warmed([null, null]))).toBeUndefined();
  });
});
