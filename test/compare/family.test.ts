// The per-gate budget counts correlated metrics once (family.ts): the correlation must be
// that of the runs' noise, not one wild run's.
import { describe, expect, it } from 'vitest';
import { familyLevel, type FamilyMember } from '../../src/compare/family.js';
import { judgeResults } from '../../src/compare/judge.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

const THRESHOLDS = { throughput: 0.05, latency_p50: 0.05, latency_p95: 0.1, latency_p99: 0.15 };
const BUDGET = 0.005;

/**
 * Runs of four metrics, each with noise of its own (`own`, CV 2% by default: unrelated
 * metrics, as a heavy request tail gives P99 noise of its own) and a run factor they share
 * (`shared`); `factors` slows whole runs (1.3: a noisy neighbour, every metric at once).
 */
function result(
  factors: number[],
  seed: string,
  noise: { own: number; shared: number } = { own: 0.02, shared: 0 },
): BenchmarkResult {
  const random = seededRandom(seed);
  const runs = factors.map((f) => f * Math.exp(noise.shared * normal(random)));
  const noisy = (base: number, worse: 1 | -1) =>
    runs.map((f) => base * (f * Math.exp(noise.own * normal(random))) ** worse);
  const metric = (id: string, values: number[], direction: Metric['direction']): Metric => ({
    id,
    unit: direction === 'higher-is-better' ? 'req/s' : 'ms',
    direction,
    values,
  });
  return {
    name: 'bench',
    format: 'offline-benchmark',
    runs: [],
    metrics: [
      metric('throughput', noisy(100, -1), 'higher-is-better'),
      metric('latency_p50', noisy(300, 1), 'lower-is-better'),
      metric('latency_p95', noisy(400, 1), 'lower-is-better'),
      metric('latency_p99', noisy(450, 1), 'lower-is-better'),
    ],
  };
}

function without(side: BenchmarkResult, run: number): BenchmarkResult {
  return {
    ...side,
    metrics: side.metrics.map((m) => ({ ...m, values: m.values.filter((_, i) => i !== run) })),
  };
}

const member = (current: BenchmarkResult, baseline: BenchmarkResult): FamilyMember => ({
  current,
  baseline,
  thresholds: THRESHOLDS,
});

describe('the family level beside a wild run', () => {
  const ones = (n: number) => Array.from({ length: n }, () => 1);

  it('counts unrelated metrics as unrelated when a baseline run is 30% slower in all of them', () => {
    const factors = ones(15);
    factors[7] = 1.3;
    for (const seed of ['a', 'b', 'c', 'd']) {
      const baseline = result(factors, `base-${seed}`);
      const current = result(ones(3), `now-${seed}`);
      const family = familyLevel([member(current, baseline)], BUDGET);
      // As if the wild run had never been measured: the outlier test leaves out just that run.
      expect(family).toEqual(familyLevel([member(current, without(baseline, 7))], BUDGET));
      // Four unrelated metrics: about four tests (with the wild run in, two: twice the level).
      expect(family.tests, seed).toBeGreaterThan(3.5);
      expect(family.level).toBeLessThan(1.2 * (BUDGET / 4));
    }
  });

  it('leaves out a current run slower in every metric too', () => {
    const baseline = result(ones(15), 'base');
    const current = result([1, 1.3, 1, 1, 1], 'now');
    const family = familyLevel([member(current, baseline)], BUDGET);
    expect(family).toEqual(familyLevel([member(without(current, 1), baseline)], BUDGET));
    expect(family.tests).toBeGreaterThan(3.5);
  });

  it('still counts metrics that move together as fewer tests', () => {
    const factors = ones(15);
    factors[7] = 1.3;
    const baseline = result(factors, 'base', { own: 0.002, shared: 0.02 });
    const current = result(ones(3), 'now', { own: 0.002, shared: 0.02 });
    const family = familyLevel([member(current, baseline)], BUDGET);
    // Li and Ji count an eigenvalue of 3.9 (four metrics correlated 0.97) as 1.9.
    expect(family.tests).toBeLessThan(2.5);
  });
});

describe('metrics gated by thresholds the config does not name', () => {
  const judged = (current: BenchmarkResult, baseline: BenchmarkResult, configured: object) =>
    judgeResults(
      [current],
      { source: 'test', benchmarks: [baseline] },
      () => configured as Record<string, number>,
      { confidence: 0.95, failOnInconclusive: false, falseAlarmRate: BUDGET },
    )[0]!.metrics.map((m) => `${m.id} ${m.verdict}`);

  it('share the budget as they do when the config names them', () => {
    // The built-in thresholds of offline-benchmark, and `default` for every metric.
    const builtIn = { throughput: 0.05, latency_p50: 0.05, latency_p95: 0.1, latency_p99: 0.15 };
    const everyFive = { throughput: 0.05, latency_p50: 0.05, latency_p95: 0.05, latency_p99: 0.05 };
    // Noise of 5% a run: slowdowns of about 10% are near the edge of the gate's test.
    const noise = { own: 0.05, shared: 0 };
    const baseline = result(
      Array.from({ length: 15 }, () => 1),
      'base',
      noise,
    );
    const verdicts = new Set<string>();
    // Slowdowns from clear passes through inconclusive to clear regressions.
    for (let slower = 1; slower < 1.3; slower += 0.005) {
      const current = result([slower, slower, slower], 'now', noise);
      const named = judged(current, baseline, builtIn);
      expect(judged(current, baseline, {}), `${slower}`).toEqual(named);
      expect(judged(current, baseline, { default: 0.05 }), `${slower}`).toEqual(
        judged(current, baseline, everyFive),
      );
      for (const verdict of named.filter((line) => !line.startsWith('mfu '))) {
        verdicts.add(verdict.split(' ')[1]!);
      }
    }
    expect([...verdicts].sort()).toEqual(['inconclusive', 'regression', 'unchanged']);
  });
});
