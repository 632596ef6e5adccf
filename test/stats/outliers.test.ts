// Wild runs: the ESD test's level on normal runs, what it finds, and which runs count as a
// whole run gone wild (a noisy neighbour) rather than one metric's own noise.
import { describe, expect, it } from 'vitest';
import { OUTLIER_LEVEL, outlierRuns, wildRuns } from '../../src/stats/outliers.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

const random = seededRandom('outliers');
const runs = (n: number, sd: number, shift = 0) =>
  Array.from({ length: n }, () => shift + sd * normal(random));

describe('outlierRuns (generalized ESD over groups)', () => {
  it('finds a run in normal noise about OUTLIER_LEVEL of the time (15 baseline and 3 current runs)', () => {
    let found = 0;
    const trials = 4000;
    for (let i = 0; i < trials; i += 1) {
      // SD 5% on logs, so that the 5% floor on a wild run's distance rarely decides.
      if (outlierRuns([runs(15, 0.05), runs(3, 0.05, 0.1)]).length > 0) found += 1;
    }
    // Binomial(4000, 1%): 40 ± 6.3; a level of 2% (no Bonferroni over both tails) gives
    // about 80, no Bonferroni at all hundreds.
    expect(OUTLIER_LEVEL).toBe(0.01);
    expect(found).toBeGreaterThan(15);
    expect(found).toBeLessThan(65);
  });

  it('finds one run 30% slower among runs at CV 2%, wherever it is', () => {
    const baseline = runs(15, 0.02);
    baseline[7] = Math.log(1.3);
    expect(outlierRuns([baseline, runs(3, 0.02)])).toEqual([
      { group: 0, index: 7, residual: expect.closeTo(Math.log(1.3), 1) },
    ]);
    const current = runs(3, 0.02, 0.1);
    current[2] = 0.1 + Math.log(1.3);
    const found = outlierRuns([runs(15, 0.02), current]);
    expect(found.map((r) => [r.group, r.index])).toEqual([[1, 2]]);
  });

  it('finds two wild runs that hide each other from a test that stops at the first within bounds', () => {
    const baseline = runs(15, 0.02);
    baseline[3] = Math.log(1.3);
    baseline[11] = Math.log(1.3);
    const found = outlierRuns([baseline, runs(3, 0.02)]);
    expect(found.map((r) => r.index).sort((a, b) => a - b)).toEqual([3, 11]);
  });

  it('finds no run closer than 5% to the others, however alike they are', () => {
    const same = Array.from({ length: 15 }, () => Math.log(100));
    expect(outlierRuns([[...same.slice(1), Math.log(104)], same.slice(0, 3)])).toEqual([]);
    expect(outlierRuns([[...same.slice(1), Math.log(107)], same.slice(0, 3)])).toHaveLength(1);
  });

  it('never finds more than a fifth of the runs: a second mode is not an outlier', () => {
    const baseline = [...runs(11, 0.01), ...runs(4, 0.01, Math.log(1.3))];
    expect(outlierRuns([baseline, runs(3, 0.01)]).length).toBeLessThanOrEqual(3);
  });
});

describe('wildRuns: a whole run gone wild, not one metric', () => {
  const metric = (values: number[], worse: 1 | -1 = 1) => ({
    current: values.slice(15).map(Math.exp),
    baseline: values.slice(0, 15).map(Math.exp),
    worse,
  });

  it('counts a run that stands out in most metrics, not a P99 that stands out alone', () => {
    const p50 = runs(18, 0.02);
    const p95 = runs(18, 0.02);
    const p99 = runs(18, 0.02);
    p50[4] = Math.log(1.3);
    p95[4] = Math.log(1.3);
    p99[4] = Math.log(1.3);
    // Run 9's P99 alone is three times the others (a heavy request tail).
    p99[9] = Math.log(3);
    const tput = runs(18, 0.02);
    tput[4] = -Math.log(1.3);
    expect(wildRuns([metric(p50), metric(p95), metric(p99), metric(tput, -1)])).toEqual({
      baseline: [4],
      current: [],
    });
  });

  it('counts a slow current run, never a fast one', () => {
    const slow = runs(18, 0.02);
    slow[16] = Math.log(1.3);
    expect(wildRuns([metric(slow)])).toEqual({ baseline: [], current: [1] });
    const fast = runs(18, 0.02);
    fast[16] = -Math.log(1.3);
    expect(wildRuns([metric(fast)])).toEqual({ baseline: [], current: [] });
    // Throughput: lower is worse, so a run 30% lower is the slow one.
    expect(wildRuns([metric(fast, -1)])).toEqual({ baseline: [], current: [1] });
  });
});
