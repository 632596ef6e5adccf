// report.json's latency distributions: this run's histograms, and the baseline's when it
// kept samples; nothing for a benchmark without per-request samples.
import { describe, expect, it } from 'vitest';
import type { BenchmarkResult } from '../../src/model.js';
import { distributionsOf } from '../../src/report/latency-distributions.js';
import { reportJsonText } from '../../src/report/report-json.js';
import { benchmark, reportOf } from './support.js';

function served(ttft: number[][] | undefined): BenchmarkResult {
  return {
    name: 'qwen3-serve/rate-2',
    format: 'vllm-bench-serve',
    metrics: [
      {
        id: 'ttft_p99',
        unit: 'ms',
        direction: 'lower-is-better',
        values: [1],
        percentile: 99,
        ...(ttft ? { samples: ttft } : {}),
      },
    ],
    runs: [],
  };
}

describe('distributionsOf', () => {
  it("pools this run's requests over its runs, and the baseline's beside them", () => {
    const distributions = distributionsOf(
      served([
        [10, 20],
        [30, 40, 50],
      ]),
      served([[100, 200]]),
    )!;
    expect(distributions.unit).toBe('ms');
    expect(distributions.current.ttft).toMatchObject({ count: 5, min: 10, max: 50 });
    expect(distributions.baseline?.ttft).toMatchObject({ count: 2, min: 100, max: 200 });
  });

  it('has no baseline side when the baseline kept no samples, and nothing without samples', () => {
    expect(distributionsOf(served([[10]]), served(undefined))?.baseline).toBeUndefined();
    expect(distributionsOf(served(undefined), served([[10]]))).toBeUndefined();
  });

  it('is written to report.json as it is', () => {
    const distributions = distributionsOf(served([[10, 20, 30]]), undefined)!;
    const text = reportJsonText(reportOf([{ ...benchmark('qwen3-serve/rate-2'), distributions }]));
    expect(JSON.parse(text).benchmarks[0].distributions).toEqual(distributions);
  });
});
