// A side's percentile is its requests pooled when at least 10 lie beyond it, else the
// median of its runs' own percentiles (stats/estimate.ts). At 3 runs of 100 requests a P95
// pools and a P99 does not, and with one slow run the pooled P95 reads far above the
// median of the runs' P99s: the case issue 56 saw in a sweep table. The sweep table then
// shows one estimator for every cell; the metrics table and the per-run table, whose
// figures are the judged ones, name each percentile row's estimator.
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import type { BenchmarkReport, BenchmarkResult, Metric } from '../../src/model.js';
import { benchmarkSection } from '../../src/report/benchmark-section.js';
import { estimatorLegend } from '../../src/report/percentile-estimates.js';
import { sweepRanking } from '../../src/report/sweep-ranking.js';
import { median, percentile } from '../../src/stats/percentile.js';
import { cells } from './support.js';

const PERCENTILES = [50, 95, 99];

/** `count` requests from `start` ms, `step` apart. */
function requests(count: number, start: number, step: number): number[] {
  return Array.from({ length: count }, (_, i) => start + i * step);
}

/** latency_p50/p95/p99 of these runs' requests, each run's own percentile its value. */
function latencies(runs: number[][]): Metric[] {
  return PERCENTILES.map((p) => ({
    id: `latency_p${p}`,
    unit: 'ms',
    direction: 'lower-is-better' as const,
    values: runs.map((run) => percentile(run, p)),
    samples: runs,
    percentile: p,
  }));
}

function variant(rate: number, runs: number[][]): BenchmarkResult {
  const name = `serve/rate-${rate}`;
  return {
    name,
    source: 'serve',
    format: 'vllm-bench-serve',
    sweep: { name: 'serve', variant: `rate-${rate}`, params: { request_rate: rate } },
    metrics: [
      {
        id: 'throughput',
        unit: 'requests/s',
        direction: 'higher-is-better',
        values: runs.map(() => rate * 0.95),
      },
      ...latencies(runs),
    ],
    runs: runs.map((_, i) => ({
      index: i + 1,
      kind: 'clean' as const,
      ok: true,
      durationMs: 60_000,
      exitCode: 0,
      timedOut: false,
    })),
  };
}

function judge(results: BenchmarkResult[]): BenchmarkReport[] {
  return judgeResults(results, undefined, () => ({}), {
    confidence: 0.95,
    failOnInconclusive: false,
  });
}

/** Two quick runs and one slow one, 100 requests each: P95 pools (15 beyond it), P99 not (3). */
const SLOW_RUN = [requests(100, 100, 1), requests(100, 101, 1), requests(100, 1000, 10)];
const QUICK_RUNS = [requests(100, 80, 1), requests(100, 81, 1), requests(100, 82, 1)];

/** Column `header`'s figures of a markdown table's rows. */
function column(table: string, header: string): number[] {
  const lines = table.split('\n').filter((line) => line.startsWith('|'));
  const index = cells(lines[0]!).findIndex((cell) => cell.trim().startsWith(header));
  expect(index, `no column ${header}`).toBeGreaterThan(-1);
  return lines.slice(2).map((line) => Number(cells(line)[index]!.trim().replace(/,/g, '')));
}

describe('the percentiles of a sweep of 3 runs of 100 requests', () => {
  const [slow, quick] = judge([variant(8, SLOW_RUN), variant(2, QUICK_RUNS)]);
  const judged = (b: BenchmarkReport, id: string) => b.metrics.find((m) => m.id === id)!;

  it('are judged pooled at P95 and as a median of runs at P99, the P95 above the P99', () => {
    expect(judged(slow!, 'latency_p95').estimate).toEqual({
      of: 'pooled-requests',
      percentile: 95,
      runs: 3,
      requestCount: 300,
    });
    expect(judged(slow!, 'latency_p99').estimate).toEqual({
      of: 'median-of-runs',
      percentile: 99,
      runs: 3,
      requestCount: 300,
    });
    expect(judged(slow!, 'latency_p95').current).toBeGreaterThan(
      5 * judged(slow!, 'latency_p99').current!,
    );
  });

  it('in the sweep table, are one estimator for every cell, named, so no P95 tops its P99', () => {
    const table = sweepRanking('serve', [slow!, quick!]);
    const p95 = column(table, 'P95');
    const p99 = column(table, 'P99');
    expect(p95).toHaveLength(2);
    p95.forEach((value, row) => expect(value).toBeLessThanOrEqual(p99[row]!));
    expect(table).toContain(
      "<sub>P50, P95, P99: the median of each variant's runs' own percentiles, one estimator for every column: too few requests lie beyond P99 to pool them",
    );
    // Ranked by throughput: rate 8 first, its P95 the median of its runs' own P95s.
    expect(p95[0]).toBeCloseTo(median(SLOW_RUN.map((run) => percentile(run, 95))), 0);
  });

  it('in the metrics table, name each row its estimator where a P95 reads above the P99', () => {
    const section = benchmarkSection(slow!, {
      charts: true,
      runValues: false,
      unchangedRows: false,
    });
    const table = section.slice(section.indexOf('| Metric'));
    const current = column(table.slice(0, table.indexOf('\n\n')), 'Current');
    const ids = ['throughput', 'latency_p50', 'latency_p95', 'latency_p99'];
    expect(current[ids.indexOf('latency_p95')]).toBeGreaterThan(
      current[ids.indexOf('latency_p99')]!,
    );
    expect(section).toContain(
      "<sub>The percentile rows use different estimators, so a higher percentile can read below a lower one. latency_p50, latency_p95: the percentile of each side's requests, all its runs pooled (this gate run: 300 requests in 3 runs). latency_p99: the median of each side's runs' own P99 (this gate run: 3 runs), as fewer than 10 requests lie beyond P99 on a side, too few to pool.</sub>",
    );
    // The per-run table's Baseline and Current are the same figures, named the same way.
    const runs = section.split('<summary>Runs and per-run values</summary>')[1]!;
    expect(runs).toContain('latency_p99: the median of each side');
  });

  it('in one estimator need no word in the metrics table; the sweep table says it pools', () => {
    // 10 requests beyond P99 of 1,000 pool on every row.
    const many = [requests(1000, 80, 0.1), requests(1000, 81, 0.1), requests(1000, 82, 0.1)];
    const [pooled, other] = judge([variant(8, many), variant(2, many)]);
    expect(judged(pooled!, 'latency_p99').estimate?.of).toBe('pooled-requests');
    const section = benchmarkSection(pooled!, {
      charts: true,
      runValues: true,
      unchangedRows: false,
    });
    expect(section).not.toContain('use different estimators');
    const table = sweepRanking('serve', [pooled!, other!]);
    expect(table).toContain(
      "<sub>P50, P95, P99: the percentile of each variant's requests, all its runs pooled.</sub>",
    );
    expect(column(table, 'P99')[0]).toBeCloseTo(judged(pooled!, 'latency_p99').current!, 1);
  });
});

describe('estimatorLegend', () => {
  const row = (id: string, of: 'pooled-requests' | 'median-of-runs', percentile: number) => ({
    id,
    estimator: of,
    estimate: { of, percentile, runs: 3, requestCount: 300 },
  });

  it('names rows of several percentiles as "percentiles" and each one as itself', () => {
    const legend = estimatorLegend([
      row('latency_p90', 'pooled-requests', 90),
      row('latency_p99', 'median-of-runs', 99),
      row('latency_p999', 'median-of-runs', 99.9),
    ]);
    expect(legend).toContain("the median of each side's runs' own percentiles (this gate run");
    expect(legend).not.toContain('own the percentile');
    expect(estimatorLegend([row('latency_p99', 'median-of-runs', 99)])).toBeUndefined();
  });
});
