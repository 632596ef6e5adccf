import { describe, expect, it } from 'vitest';
import { compareBenchmark, gateVerdict } from '../../src/compare/benchmark.js';
import { compareMetric, type CompareOptions } from '../../src/compare/compare.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { estimate } from '../../src/stats/estimate.js';
import { percentile } from '../../src/stats/percentile.js';

const OPTIONS: CompareOptions = { confidence: 0.95, seed: 'test' };

function throughput(...values: number[]): Metric {
  return { id: 'throughput', unit: 'queries/s', direction: 'higher-is-better', values };
}
function latency(id: string, ...values: number[]): Metric {
  return { id, unit: 'ms', direction: 'lower-is-better', values };
}

describe('compareMetric', () => {
  it('calls a throughput drop beyond the threshold a regression', () => {
    const c = compareMetric(throughput(2.9), throughput(3.2), 0.05, OPTIONS);
    expect(c.change).toBeCloseTo(2.9 / 3.2 - 1, 12);
    expect(c.verdict).toBe('regression');
    expect(c.reason).toMatch(/^9\.4% lower, beyond the 5% threshold \(low confidence: /);
    expect(c.ci).toBeNull();
  });

  it('keeps a drop within the threshold unchanged', () => {
    expect(compareMetric(throughput(3.1), throughput(3.2), 0.05, OPTIONS).verdict).toBe(
      'unchanged',
    );
  });

  it('calls a throughput rise beyond the threshold an improvement', () => {
    expect(compareMetric(throughput(3.5), throughput(3.2), 0.05, OPTIONS).verdict).toBe(
      'improvement',
    );
  });

  it('reads latency the other way round', () => {
    const slower = compareMetric(
      latency('latency_p50', 330),
      latency('latency_p50', 300),
      0.05,
      OPTIONS,
    );
    expect(slower.verdict).toBe('regression');
    expect(slower.reason).toMatch(/^10\.0% slower, beyond the 5% threshold \(low confidence/);
    const faster = compareMetric(
      latency('latency_p50', 270),
      latency('latency_p50', 300),
      0.05,
      OPTIONS,
    );
    expect(faster.verdict).toBe('improvement');
    expect(faster.reason).toContain('faster');
  });

  it('treats a change exactly at the threshold as unchanged', () => {
    expect(
      compareMetric(latency('latency_p50', 105), latency('latency_p50', 100), 0.05, OPTIONS)
        .verdict,
    ).toBe('unchanged');
  });

  it('does not gate a metric without threshold', () => {
    const c = compareMetric(
      latency('latency_mean', 500),
      latency('latency_mean', 300),
      null,
      OPTIONS,
    );
    expect(c.verdict).toBe('unchanged');
    expect(c.reason).toContain('not gated');
  });

  it('marks new and missing metrics', () => {
    expect(compareMetric(throughput(3), undefined, 0.05, OPTIONS).verdict).toBe('new');
    const missing = compareMetric(undefined, throughput(3), 0.05, OPTIONS);
    expect(missing.verdict).toBe('missing');
    expect(missing.current).toBeNull();
    expect(missing.baseline).toBe(3);
  });

  it('shows the median of per-run values, and one odd run cannot fail the benchmark', () => {
    const c = compareMetric(throughput(3.2, 1.0, 3.19), throughput(3.2, 3.21, 3.2), 0.05, OPTIONS);
    expect(c.current).toBe(3.19);
    // The change is the interval's own estimator (geometric means), inside its interval,
    // which the odd run makes too wide to call a regression.
    const geometric = Math.cbrt(3.2 * 1.0 * 3.19) / Math.cbrt(3.2 * 3.21 * 3.2) - 1;
    expect(c.change).toBeCloseTo(geometric, 12);
    expect(c.ci![0]).toBeLessThan(c.change!);
    expect(c.ci![1]).toBeGreaterThan(0);
    expect(c.verdict).toBe('inconclusive');
  });
});

describe('estimate', () => {
  it('pools per-request samples of all runs for a well-sampled percentile', () => {
    const low = Array.from({ length: 20 }, (_, i) => i + 1);
    const high = Array.from({ length: 20 }, (_, i) => 101 + i);
    const metric: Metric = {
      ...latency('latency_p50', 10.5, 110.5),
      percentile: 50,
      samples: [low, high],
    };
    expect(estimate(metric)).toBe(60.5);
    // With a third run the pooled median (of 1..20 and 101..120 twice: 105.5) and the
    // median of per-run values (110.5) differ; the pooled one is used.
    const third: Metric = { ...metric, values: [10.5, 110.5, 110.5], samples: [low, high, high] };
    expect(estimate(third)).toBe(105.5);
  });

  it('compares sparse tails like with like: per-run percentiles on both sides', () => {
    // Runs that differ, so that the pooled P99 and the median of per-run P99s differ too.
    const run = (size: number, shift: number) =>
      Array.from({ length: size }, (_, i) => 300 + (i * 100) / size + shift);
    const p99 = (runs: number[][]): Metric => ({
      ...latency('latency_p99', ...runs.map((r) => percentile(r, 99))),
      percentile: 99,
      samples: runs,
    });
    const medianOfRuns = (m: Metric) => percentile(m.values, 50);
    // 30 requests in the current runs: 0.3 beyond P99, too few to pool.
    const sparse = p99([run(10, 0), run(10, 40), run(10, 80)]);
    // 1,500 requests in the baseline's: 15 beyond P99, enough on its own.
    const wellSampled = p99(Array.from({ length: 15 }, (_, k) => run(100, 5 * k)));
    expect(
      percentile(
        sparse.samples!.flatMap((run) => [...run]),
        99,
      ),
    ).not.toBeCloseTo(medianOfRuns(sparse), 3);
    expect(
      percentile(
        wellSampled.samples!.flatMap((run) => [...run]),
        99,
      ),
    ).not.toBeCloseTo(medianOfRuns(wellSampled), 3);
    // Only one side could pool: neither does.
    const c = compareMetric(sparse, wellSampled, 0.15, OPTIONS);
    expect(c.current).toBe(medianOfRuns(sparse));
    expect(c.baseline).toBe(medianOfRuns(wellSampled));
    // Neither side could pool on its own either.
    const both = compareMetric(sparse, p99([run(10, 10), run(10, 20)]), 0.15, OPTIONS);
    expect(both.current).toBe(medianOfRuns(sparse));
    expect(estimate(sparse)).toBe(medianOfRuns(sparse));
    // Both well sampled: pooled on both sides.
    const pooled = compareMetric(wellSampled, wellSampled, 0.15, OPTIONS);
    expect(pooled.current).toBe(
      percentile(
        wellSampled.samples!.flatMap((run) => [...run]),
        99,
      ),
    );
  });

  it('ignores non-finite values', () => {
    expect(estimate(throughput(Number.NaN, 2, 4))).toBe(3);
    expect(estimate(throughput())).toBeNull();
  });
});

describe('compareBenchmark', () => {
  const current: BenchmarkResult = {
    name: 'qwen3-reranker',
    format: 'offline-benchmark',
    metrics: [latency('latency_p99', 400), throughput(2.9)],
    runs: [],
  };

  it('is no-baseline without a baseline, with every metric new', () => {
    const judged = compareBenchmark(current, undefined, { throughput: 0.05 }, OPTIONS);
    expect(judged.verdict).toBe('no-baseline');
    expect(judged.metrics.filter((m) => m.id !== 'mfu').every((m) => m.verdict === 'new')).toBe(
      true,
    );
  });

  it('orders metrics and always shows mfu, marked not measured', () => {
    const judged = compareBenchmark(
      current,
      { ...current, metrics: [throughput(3.2)] },
      {
        throughput: 0.05,
        mfu: 0.1,
      },
      OPTIONS,
    );
    expect(judged.metrics.map((m) => m.id)).toEqual(['throughput', 'latency_p99', 'mfu']);
    const mfu = judged.metrics.find((m) => m.id === 'mfu');
    expect(mfu?.verdict).toBe('missing');
    expect(mfu?.reason).toBe('not measured');
    expect(mfu?.threshold).toBe(0.1);
    expect(judged.verdict).toBe('regression');
  });
});

describe('an inconclusive metric', () => {
  const scattered: BenchmarkResult = {
    name: 'b',
    format: 'x',
    metrics: [throughput(2.6, 3.3, 3.0)],
    runs: [],
  };
  const steady: BenchmarkResult = { ...scattered, metrics: [throughput(3.2, 3.25, 3.15)] };

  it('passes the benchmark unless fail-on-inconclusive is set', () => {
    const warned = compareBenchmark(scattered, steady, { throughput: 0.05 }, OPTIONS);
    expect(warned.metrics[0]!.verdict).toBe('inconclusive');
    expect(warned.verdict).toBe('pass');
    const strict = compareBenchmark(
      scattered,
      steady,
      { throughput: 0.05 },
      {
        ...OPTIONS,
        failOnInconclusive: true,
      },
    );
    expect(strict.verdict).toBe('regression');
  });
});

describe('gateVerdict', () => {
  it('lets an error win over a regression, and a regression over a pass', () => {
    expect(gateVerdict(['pass', 'regression', 'error'])).toBe('error');
    expect(gateVerdict(['pass', 'regression'])).toBe('regression');
    expect(gateVerdict(['pass', 'no-baseline'])).toBe('pass');
    expect(gateVerdict(['no-baseline', 'no-baseline'])).toBe('no-baseline');
    expect(gateVerdict([])).toBe('no-baseline');
  });
});
