// The simulator against the published inf2.xlarge figures: 3.0975 queries/s, P50 0.3071 s,
// P95 0.3972 s, and about 1% run to run.
import { describe, expect, it } from 'vitest';
import type { OfflineResult } from './helpers.js';
import { benchmark, median } from './helpers.js';

async function runs(count: number, env: (i: number) => Record<string, string>) {
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) => benchmark(env(i + 1)).then((r) => r.result)),
  );
  const pick = (key: string) => results.map((r: OfflineResult) => r.metrics[key]!);
  return {
    throughput: pick('throughput_queries_per_sec'),
    p50: pick('p50_time'),
    p95: pick('p95_time'),
  };
}

function coefficientOfVariation(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
  return Math.sqrt(variance) / mean;
}

describe('calibration to the published inf2.xlarge figures', () => {
  it('medians of 20 seeded runs: ~3.1 queries/s, P50 ~307 ms, P95 ~397 ms', async () => {
    const figures = await runs(20, (i) => ({ SIM_SEED: String(i), PERF_GATE_RUN: '1' }));
    const throughput = median(figures.throughput);
    const p50 = median(figures.p50);
    const p95 = median(figures.p95);
    expect(throughput).toBeGreaterThanOrEqual(3.0);
    expect(throughput).toBeLessThanOrEqual(3.3);
    expect(p50).toBeGreaterThanOrEqual(0.29);
    expect(p50).toBeLessThanOrEqual(0.325);
    expect(p95).toBeGreaterThanOrEqual(0.38);
    expect(p95).toBeLessThanOrEqual(0.415);
  });

  it('varies about 1% from run to run (SIM_NOISE=0.01), more with SIM_NOISE=0.05', async () => {
    const quiet = await runs(20, (i) => ({ PERF_GATE_RUN: String(i), SIM_OUTLIERS: '0' }));
    const noisy = await runs(20, (i) => ({
      PERF_GATE_RUN: String(i),
      SIM_OUTLIERS: '0',
      SIM_NOISE: '0.05',
    }));
    const quietCv = coefficientOfVariation(quiet.throughput);
    expect(quietCv).toBeGreaterThan(0.004);
    expect(quietCv).toBeLessThan(0.02);
    expect(coefficientOfVariation(noisy.throughput)).toBeGreaterThan(2 * quietCv);
  });

  it('shows an 8% slowdown in the medians of 20 runs', async () => {
    const env = (i: number) => ({ SIM_SEED: '21', PERF_GATE_RUN: String(i) });
    const base = await runs(20, env);
    const slow = await runs(20, (i) => ({ ...env(i), SIM_SLOWDOWN: '1.08' }));
    expect(median(slow.p50) / median(base.p50)).toBeCloseTo(1.08, 6);
    expect(median(base.throughput) / median(slow.throughput)).toBeCloseTo(1.08, 6);
  });
});
