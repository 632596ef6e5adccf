// The decision of one commit against both ends, and the metric the ends are bisected on.
import { describe, expect, it } from 'vitest';
import { decideCommit, nearerEnd } from '../../src/bisect/decide.js';
import { chooseMetric } from '../../src/bisect/ends.js';
import type { Metric } from '../../src/model.js';
import { pooledChange, pooledNoise } from '../../src/stats/pooled.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

/** Runs around `level` with a fixed ±1% wobble (not normal: a small uniform-like pattern). */
function runs(level: number, count: number, phase = 0): number[] {
  const wobble = [0.01, -0.007, 0.004, -0.01, 0.006, -0.003, 0.008, -0.005, 0.002, -0.009];
  return Array.from(
    { length: count },
    (_, i) => level * (1 + wobble[(i + phase) % wobble.length]!),
  );
}

const GOOD = runs(100, 8);
const BAD = runs(110, 8, 3);

describe('decideCommit', () => {
  it('calls a commit that measures like the good end good, and like the bad end bad', () => {
    expect(decideCommit(GOOD, BAD, runs(100, 2, 5), 0.99).verdict).toBe('good');
    expect(decideCommit(GOOD, BAD, runs(110, 2, 7), 0.99).verdict).toBe('bad');
  });

  it('places the commit between the ends: 0 at good, 1 at bad, whichever way the metric points', () => {
    const slow = decideCommit(GOOD, BAD, runs(110, 3), 0.99);
    expect(slow.position).toBeGreaterThan(0.9);
    expect(slow.position).toBeLessThan(1.1);
    expect(slow.interval[0]).toBeGreaterThan(0.5);
    // Throughput falls when things get slower: the same runs as 1/latency.
    const inverse = (values: number[]) => values.map((v) => 1000 / v);
    const throughput = decideCommit(inverse(GOOD), inverse(BAD), inverse(runs(110, 3)), 0.99);
    expect(throughput.verdict).toBe('bad');
    expect(throughput.position).toBeCloseTo(slow.position, 10);
  });

  it('compares against both ends, not one threshold: 3% of a 10% step is good, 8% is bad', () => {
    // A fixed 2% rule would call the first one a regression; it is far nearer the good end.
    expect(decideCommit(GOOD, BAD, runs(103, 3, 2), 0.99).verdict).toBe('good');
    expect(decideCommit(GOOD, BAD, runs(108, 3, 2), 0.99).verdict).toBe('bad');
  });

  it('asks for more runs while the commit could be nearer either end', () => {
    const middle = decideCommit(GOOD, BAD, runs(104.88, 2, 1), 0.99);
    expect(middle.verdict).toBe('more');
    expect(middle.interval[0]).toBeLessThan(0.5);
    expect(middle.interval[1]).toBeGreaterThan(0.5);
    // Noisier runs widen the interval: 6% of a 10% step is open with noisy runs.
    const noisy = (level: number, n: number) =>
      runs(level, n).map((v, i) => v * (1 + (i % 2 ? 0.05 : -0.05)));
    expect(decideCommit(noisy(100, 8), noisy(110, 8), runs(106, 2), 0.99).verdict).toBe('more');
  });

  it("holds the commit's true place as often as its confidence says, the ends' own noise counted", () => {
    // Few runs of each end, as bisect measures them: their noise is a third of the
    // interval's variance here, and an interval without it holds the place ~84% of the time.
    const random = seededRandom('decide-coverage');
    const draw = (level: number, count: number) =>
      Array.from({ length: count }, () => level * Math.exp(0.02 * normal(random)));
    const truth = 0.3;
    let held = 0;
    const trials = 4000;
    for (let i = 0; i < trials; i += 1) {
      const commit = 100 * Math.exp(truth * Math.log(1.1));
      const { interval } = decideCommit(draw(100, 3), draw(110, 3), draw(commit, 2), 0.9);
      if (interval[0] <= truth && truth <= interval[1]) held += 1;
    }
    expect(held / trials).toBeGreaterThan(0.88);
    expect(held / trials).toBeLessThan(0.92);
  });

  it('decides noise-free runs by the side of the midpoint', () => {
    expect(decideCommit([100, 100], [110, 110], [101], 0.99).verdict).toBe('good');
    expect(decideCommit([100, 100], [110, 110], [109], 0.99).verdict).toBe('bad');
  });

  it('refuses ends that measure the same', () => {
    expect(() => decideCommit([100, 100], [100, 100], [100], 0.99)).toThrow(/measure the same/);
  });
});

describe('nearerEnd', () => {
  it('goes by medians, so one stalled run does not make a good commit bad', () => {
    // Two ordinary runs at the good level and one stalled 15% slower: the mean is nearer bad.
    const commit = [100.2, 99.9, 115];
    expect(nearerEnd(GOOD, BAD, commit)).toBe('good');
    expect(nearerEnd(GOOD, BAD, [109.5, 110.3, 99])).toBe('bad');
  });
});

function metric(id: string, values: number[], extra: Partial<Metric> = {}): Metric {
  return { id, unit: 'ms', direction: 'lower-is-better', values, ...extra };
}

describe('chooseMetric', () => {
  const good = [
    metric('latency_p99', runs(400, 8), { percentile: 99 }),
    metric('latency_p50', runs(300, 8), { percentile: 50 }),
    metric('throughput', runs(3.1, 8), { unit: 'q/s', direction: 'higher-is-better' }),
  ];
  it('prefers a central metric that surely got worse over a tail percentile', () => {
    const bad = [
      metric('latency_p99', runs(480, 8, 1), { percentile: 99 }),
      metric('latency_p50', runs(318, 8, 1), { percentile: 50 }),
      metric('throughput', runs(3.1, 8, 1), { unit: 'q/s', direction: 'higher-is-better' }),
    ];
    expect(chooseMetric(good, bad, 0.99)?.id).toBe('latency_p50');
  });

  it('skips a metric that improved unless it is asked for, and finds nothing when nothing differs', () => {
    const bad = [
      metric('latency_p99', runs(400, 8, 2), { percentile: 99 }),
      metric('latency_p50', runs(270, 8, 2), { percentile: 50 }),
      metric('throughput', runs(3.1, 8, 2), { unit: 'q/s', direction: 'higher-is-better' }),
    ];
    expect(chooseMetric(good, bad, 0.99)).toBeUndefined();
    const asked = chooseMetric(good, bad, 0.99, 'latency_p50');
    expect(asked?.worse).toBe(false);
    expect(asked?.change).toBeLessThan(-0.08);
  });
});

describe('pooledChange', () => {
  it('centres on the ratio of geometric means and covers it with the pooled spread', () => {
    const a = runs(110, 4).map(Math.log);
    const b = runs(100, 4, 2).map(Math.log);
    const noise = pooledNoise([a, b]);
    expect(noise.df).toBe(6);
    const { change, ci } = pooledChange(a, b, noise, 0.99);
    expect(change).toBeCloseTo(0.1, 2);
    expect(ci![0]).toBeGreaterThan(0.07);
    expect(ci![1]).toBeLessThan(0.13);
    expect(ci![0]).toBeLessThan(change);
    expect(ci![1]).toBeGreaterThan(change);
  });
});
