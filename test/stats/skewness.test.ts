// Skewed runs (src/stats/skewness.ts): the skewness of runs pooled over groups against
// scipy, the expansion's terms against the textbook one-sample case, an interval worked
// through with numpy/scipy, and a seeded simulation of unchanged code whose per-run log
// values are skewed like the P99 of 50 heavy-tailed requests, which fails when the
// correction is undone.
import { describe, expect, it } from 'vitest';
import type { Metric } from '../../src/model.js';
import { changeInterval, skewedTowardsWorse } from '../../src/stats/interval.js';
import { logSpread, sampleVariance } from '../../src/stats/spread.js';
import { normal as gaussian, seededRandom } from '../../src/stats/rng.js';
import {
  CLEAR_SKEW_Z,
  cautiousSkewness,
  clearlySkewed,
  pooledSkewness,
  quantileShift,
  skewTerms,
} from '../../src/stats/skewness.js';

function metric(logs: number[], olderRecords?: number[][]): Metric {
  return {
    id: 'latency_p99',
    unit: 'ms',
    direction: 'lower-is-better',
    values: logs.map(Math.exp),
    ...(olderRecords ? { olderRecords: olderRecords.map((r) => r.map(Math.exp)) } : {}),
  };
}

/**
 * The intervals of `trials` unchanged comparisons of 3 current runs against 15 and 15 older
 * records of 3, every per-run log value from `value`.
 */
function simulatedIntervals(value: () => number, trials: number, confidence: number) {
  const draw = (n: number) => Array.from({ length: n }, value);
  return Array.from({ length: trials }, (_, i) => {
    const older = Array.from({ length: 15 }, () => draw(3));
    return changeInterval(metric(draw(3)), metric(draw(15), older), { confidence, seed: `${i}` });
  });
}

describe('pooledSkewness', () => {
  it('is scipy.stats.skew(x, bias=False) for one group, with SE √(6 / ((m − 1)(m − 2) / m))', () => {
    const x = [0, 0.1, 0.05, 0.4, 0.02, 0.9, 0.03];
    const s = pooledSkewness([x])!;
    expect(s.gamma).toBeCloseTo(1.9050564660492104, 12);
    expect(s.se).toBeCloseTo(1.1832159566199232, 12);
  });

  it("pools each group's k3 and k2 around its own mean; a group of 2 adds to k2 only (numpy)", () => {
    const s = pooledSkewness([
      [0.1, 0.5, 0.2],
      [0, 0.1, 0.05, 0.4, 0.02, 0.9, 0.03],
      [1, 2],
    ])!;
    expect(s.gamma).toBeCloseTo(1.1999913530168915, 12);
    expect(s.se).toBeCloseTo(1.1006990785580142, 12);
    // Moving a group as a whole changes nothing.
    const moved = pooledSkewness([
      [5.1, 5.5, 5.2],
      [0, 0.1, 0.05, 0.4, 0.02, 0.9, 0.03],
      [-1, 0],
    ])!;
    expect(moved.gamma).toBeCloseTo(s.gamma, 12);
  });

  it('is undefined without a group of 3 or when every run agrees', () => {
    expect(pooledSkewness([[1, 2], [3]])).toBeUndefined();
    expect(pooledSkewness([[1, 1, 1]])).toBeUndefined();
  });

  it('is none within CLEAR_SKEW_Z standard errors, and beyond them shrunk by one', () => {
    expect(cautiousSkewness({ gamma: 1.5, se: 0.4 })).toBeCloseTo(1.1, 12);
    expect(cautiousSkewness({ gamma: -1.5, se: 0.4 })).toBeCloseTo(-1.1, 12);
    // Between one and two standard errors: chance, for nearly symmetric runs.
    expect(cautiousSkewness({ gamma: 0.7, se: 0.4 })).toBe(0);
    expect(cautiousSkewness({ gamma: -0.7, se: 0.4 })).toBe(0);
    expect(cautiousSkewness({ gamma: 0.3, se: 0.4 })).toBe(0);
    expect(cautiousSkewness(undefined)).toBe(0);
  });
});

describe('runs skewed by chance keep the lent spread', () => {
  it('normal runs borrow the older records’ scatter in over 90% of pull requests (a 1-SE rule: 2 in 3)', () => {
    // The mean logs of 50 heavy-tailed requests are nearly symmetric (skewness 0.04); a
    // skewness beyond one SE by chance (a third of the time) took their lent degrees of
    // freedom away, for a wider t (bench:accuracy heavy-tails: 3 points of detection).
    const random = seededRandom('chance skewness');
    const intervals = simulatedIntervals(() => 0.08 * gaussian(random), 400, 0.95);
    // The runs' own 16 degrees of freedom, or those and the older blocks' 30.
    const lent = intervals.filter(({ spread }) => spread!.df > 16).length;
    expect(lent / intervals.length).toBeGreaterThan(0.9);
  });
});

describe('skewTerms and quantileShift', () => {
  it('give the textbook one-sample expansion: E[T] = −γ/(2√n), κ3(T) = −2γ/√n (Hall 1992)', () => {
    // A baseline known exactly (its runs without number, no variance estimated from it).
    const n = 10;
    const gamma = 1.2;
    const terms = skewTerms(
      gamma,
      { runs: n, sd: 0.3, weight: 1 / n },
      { runs: 1e12, sd: 0.3, weight: 0 },
    );
    expect(terms.third).toBeCloseTo(gamma / Math.sqrt(n), 9);
    expect(-terms.covariance).toBeCloseTo(-gamma / (2 * Math.sqrt(n)), 9);
    expect(terms.third - 6 * terms.covariance).toBeCloseTo((-2 * gamma) / Math.sqrt(n), 9);
    // P(T ≤ x) = Φ(x) + γ (2x² + 1) φ(x) / (6√n): its upper quantile lies lower by γ(2z² + 1) / (6√n).
    const z = 1.959963984540054;
    expect(quantileShift(terms, z)).toBeCloseTo((-gamma * (2 * z * z + 1)) / (6 * Math.sqrt(n)), 9);
  });

  it('are zero for symmetric runs and flip with the skewness and with the sides', () => {
    const current = { runs: 3, sd: 0.1, weight: 0.4 * (2 / 16) };
    const baseline = { runs: 15, sd: 0.1, weight: 0.4 * (14 / 16) };
    expect(skewTerms(0, current, baseline)).toEqual({ third: 0, covariance: 0 });
    const right = skewTerms(1.5, current, baseline);
    const left = skewTerms(-1.5, current, baseline);
    expect(left.third).toBeCloseTo(-right.third, 12);
    expect(left.covariance).toBeCloseTo(-right.covariance, 12);
    // 3 current runs against 15: the current mean's tail dominates (D is right-skewed).
    expect(right.third).toBeGreaterThan(0);
    const swapped = skewTerms(1.5, baseline, current);
    expect(swapped.third).toBeCloseTo(-right.third, 12);
  });
});

describe('logSpread with a skewness', () => {
  it("Welch's: each side its own SD and weight 1/n, so Cov(D, Ŝ²) = κ3(D) and T leans the other way (numpy)", () => {
    const quiet = Array.from({ length: 15 }, (_, i) => i / 100);
    const { skew } = logSpread([0, 0.5, 1], quiet, 1)!;
    expect(skew!.third).toBeCloseTo(0.5759509095123343, 12);
    expect(skew!.covariance).toBeCloseTo(0.28797545475616715, 12);
    // E[T] = −κ3(D)/2, κ3(T) = −2 κ3(D): the upper quantile lies lower, the interval's upper end moves.
    expect(quantileShift(skew!, 1.96)).toBeLessThan(0);
  });

  it('one run a side: that side has no sample variance, so only the other side moves Ŝ²', () => {
    // 4 current runs, 1 baseline run: S² = σ² (1/4 + 1), and only the current runs' sample
    // variance covaries with D, by μ3 / 4 with weight 1/4 + 1: Cov(D, Ŝ²) / (2 S³).
    const current = [0, 0.1, 0.3, 0.2];
    const sd = Math.sqrt(sampleVariance(current)!);
    const r = 1 / 4 + 1;
    const covariance = (r * sd ** 3) / 4 / (2 * (sd * sd * r) ** 1.5);
    expect(logSpread(current, [0.1], 1)!.skew!.covariance).toBeCloseTo(covariance, 12);
    // The other way round, the baseline's runs: D = mean(current) − mean(baseline) leans back.
    expect(logSpread([0.1], current, 1)!.skew!.covariance).toBeCloseTo(-covariance, 12);
  });

  it('none without a skewness', () => {
    expect(logSpread([0, 0.5, 1], [0, 0.1, 0.2], 0)!.skew).toBeUndefined();
  });
});

describe('the t interval of skewed runs', () => {
  // 3 current and 15 baseline runs whose logs have a long upper tail, and 3 older records
  // (numpy/scipy: pooled variance 0.0346 over 16 df, skewness 1.867 ± 0.525, shrunk 1.341).
  const current = [0.05, 0.3, 0.1];
  const baseline = [
    0, 0.02, 0.01, 0.35, 0.03, -0.01, 0.04, 0, 0.6, 0.02, 0.01, 0.05, 0, 0.25, 0.03,
  ];
  const older = [
    [0.01, 0.5, 0.02],
    [0, 0.03, 0.3],
    [0.02, 0.01, 0.7],
  ];

  it('reaches further down for a latency with a long upper tail, by the Cornish–Fisher shift (numpy/scipy)', () => {
    const { ci, method, drift } = changeInterval(metric(current), metric(baseline, older), {
      confidence: 0.95,
      seed: 's',
    });
    expect(method).toBe('student-t');
    expect(drift).toBeUndefined();
    // Plain t: [−15.61%, 32.72%]; the shift 0.3357 SE moves the lower end only.
    expect(ci![0]).toBeCloseTo(-0.18585595757864914, 8);
    expect(ci![1]).toBeCloseTo(0.32722902270077053, 8);
  });

  it('leaves the upper end of a latency alone, which decides no regression', () => {
    const flip = (v: number[]) => v.map((x) => -x);
    const { ci } = changeInterval(metric(flip(current)), metric(flip(baseline), older.map(flip)), {
      confidence: 0.95,
      seed: 's',
    });
    // The plain t interval, mirrored.
    expect(ci![0]).toBeCloseTo(1 / (1 + 0.32722902270077053) - 1, 8);
    expect(ci![1]).toBeCloseTo(1 / (1 - 0.15613267443286005) - 1, 8);
  });

  it("mirrors for a throughput, whose long lower tail stretches the upper end (a regression's)", () => {
    const flip = (v: number[]) => v.map((x) => -x);
    const throughput = (m: Metric): Metric => ({
      ...m,
      id: 'throughput',
      unit: 'req/s',
      direction: 'higher-is-better',
    });
    const { ci } = changeInterval(
      throughput(metric(flip(current))),
      throughput(metric(flip(baseline), older.map(flip))),
      { confidence: 0.95, seed: 's' },
    );
    expect(ci![0]).toBeCloseTo(1 / (1 + 0.32722902270077053) - 1, 8);
    expect(ci![1]).toBeCloseTo(1 / (1 - 0.18585595757864914) - 1, 8);
  });
});

describe('false alarms on skewed runs, simulated with fixed seeds', () => {
  it('a 1% one-sided test of 3 runs against 15 (and 15 older records) stays under 1.2% (plain t: 1.6%)', () => {
    // Per-run log values 0.1 × Exp(1): skewness 2, like the log P99 of 50 requests of
    // lognormal σ 0.5 with a 5% Pareto(2) tail (2.1). In numpy, 400,000 trials of the
    // pooled t test alone: 2.40% plain, 1.27% corrected; here the drift and variance F
    // tests widen some intervals too.
    const random = seededRandom('skewed runs A/A');
    const intervals = simulatedIntervals(() => -0.1 * Math.log(1 - random.next()), 8000, 0.98);
    const trials = intervals.length;
    const fails = intervals.filter(({ ci }) => ci![0] > 0).length;
    // 69 of 8,000 (0.86%); without the correction 131 (1.64%).
    expect(fails / trials).toBeLessThan(0.012);
    expect(fails / trials).toBeGreaterThan(0.004);
  });
});

describe('clearlySkewed and skewedTowardsWorse (family.ts: SKEWED_SHARE)', () => {
  it('needs the skewness beyond CLEAR_SKEW_Z standard errors, towards the side asked', () => {
    const skewness = { gamma: 0.7, se: 0.3 };
    expect(CLEAR_SKEW_Z).toBe(2);
    expect(clearlySkewed(skewness, 1)).toBe(true);
    expect(clearlySkewed(skewness, -1)).toBe(false);
    expect(clearlySkewed({ gamma: 0.5, se: 0.3 }, 1)).toBe(false);
    expect(clearlySkewed({ gamma: -0.7, se: 0.3 }, -1)).toBe(true);
    expect(clearlySkewed(undefined, 1)).toBe(false);
  });

  it('reads the worse side from the direction: a latency’s slow tail, a throughput’s low one', () => {
    const random = seededRandom('skewed towards worse');
    // Log values with an exponential upper tail (the P99 of heavy-tailed requests): a latency
    // is skewed towards its worse side; the same values as a throughput towards its better.
    const logs = (n: number) => Array.from({ length: n }, () => -Math.log(1 - random.next()) / 4);
    const now = logs(3);
    const before = logs(60);
    const latency = (values: number[]) => metric(values);
    const throughput = (values: number[]): Metric => ({
      ...metric(values),
      id: 'throughput',
      direction: 'higher-is-better',
    });
    expect(skewedTowardsWorse(latency(now), latency(before))).toBe(true);
    expect(skewedTowardsWorse(throughput(now), throughput(before))).toBe(false);
    const negated = (values: number[]) => values.map((v) => -v);
    expect(skewedTowardsWorse(throughput(negated(now)), throughput(negated(before)))).toBe(true);
    // Nor are sides measured in the same blocks (A/B, judged paired).
    const blocked = (m: Metric): Metric => ({ ...m, blocks: m.values.map((_, i) => i % 3) });
    expect(skewedTowardsWorse(blocked(latency(now)), blocked(latency(before)))).toBe(false);
    // Symmetric runs are not.
    const normal = () => Array.from({ length: 60 }, () => 0.05 * gaussian(random));
    expect(skewedTowardsWorse(latency(normal().slice(0, 3)), latency(normal()))).toBe(false);
  });
});
