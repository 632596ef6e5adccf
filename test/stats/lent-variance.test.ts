// Older records lending their spread (src/stats/lent-variance.ts): the pooled variance and
// degrees of freedom worked by hand, when nothing is lent, and seeded simulations of the
// gate's far-tail test on normal runs: with 3 current runs against the window's 15 and 15
// older records of 3, the lent test fails unchanged code at its level (calibration) and
// finds a shift more often than the runs alone (power).
import { describe, expect, it } from 'vitest';
import { studentTQuantile } from '../../src/stats/distributions.js';
import { lentSpread, olderBlockSquares } from '../../src/stats/lent-variance.js';
import { seededRandom } from '../../src/stats/rng.js';
import { logSpread } from '../../src/stats/spread.js';

function normal(rng: ReturnType<typeof seededRandom>): number {
  // Box–Muller: enough for a test's draws.
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

describe('olderBlockSquares', () => {
  it('sums the squares around each block of the window’s size, not around all of them', () => {
    // Blocks of 2 records: [1, 2, 3, 4] (mean 2.5: squares 5) and [10, 12] (mean 11: 2).
    const lent = olderBlockSquares(
      [
        [1, 2],
        [3, 4],
        [10, 12],
      ],
      2,
    );
    expect(lent).toEqual({ squares: 7, df: 4 });
  });

  it('leaves out blocks of one run, and lends nothing without a block of two', () => {
    expect(olderBlockSquares([[1, 2], [5]], 1)).toEqual({ squares: 0.5, df: 1 });
    expect(olderBlockSquares([[5]], 5)).toBeUndefined();
    expect(olderBlockSquares([], 5)).toBeUndefined();
  });
});

describe('lentSpread', () => {
  it('pools the lent squares with both sides’ and adds their degrees of freedom', () => {
    const a = [0, 0.02, -0.02];
    const b = [0.01, -0.01, 0.03, -0.03, 0];
    // Squares: a 0.0008, b 0.002; lent 0.0028 over 7: pooled 0.0056 / 13.
    const spread = lentSpread(a, b, { squares: 0.0028, df: 7 })!;
    expect(spread.df).toBe(13);
    expect(spread.se).toBeCloseTo(Math.sqrt((0.0056 / 13) * (1 / 3 + 1 / 5)), 12);
    expect(spread.perRun).toBeCloseTo(0.0056 / 13, 12);
    expect(spread.runs).toBe(3);
  });

  it('lends nothing to a side of one run, or when the runs scatter far more than the blocks', () => {
    const a = [0, 0.02, -0.02];
    const b = [0.01, -0.01, 0.03, -0.03, 0];
    expect(lentSpread([0], b, { squares: 0.0028, df: 7 })).toBeUndefined();
    expect(lentSpread(a, b, undefined)).toBeUndefined();
    // The runs' variance is 0.0028 / 6; blocks at a hundredth of it differ at any level.
    expect(lentSpread(a, b, { squares: (0.000028 / 6) * 40, df: 40 })).toBeUndefined();
  });

  it('lends to runs that scatter far less than the blocks: a chance agreement must not narrow the test', () => {
    // 18 runs that agree to 0.02 where the older blocks scatter by 0.08, as 18 runs of SD
    // 0.08 do about once in a million pull requests (bench:accuracy heavy-tails, pull
    // request 14690 of 24,000): the runs alone made the change 8 standard errors.
    const a = [0.12, 0.105, 0.11];
    const b = [0.03, -0.01, 0.01, 0, -0.01, -0.03, 0, 0.05, 0, -0.005, -0.04, 0, -0.025, 0, 0.01];
    const blockSquares = 0.08 ** 2 * 30;
    const spread = lentSpread(a, b, { squares: blockSquares, df: 30 })!;
    expect(spread.df).toBe(46);
    const alone = logSpread(a, b)!;
    expect(spread.se).toBeGreaterThan(2 * alone.se);
  });

  it('refuses the blocks just past the F test’s 1% critical ratio, lends just inside it', () => {
    // Pins LEND_TEST_LEVEL: lending is refused exactly beyond F(16, 42)'s upper 0.5% point.
    // 3 current runs against 15 (16 df); 15 older records of 3 runs in blocks of 5 records
    // (3 blocks of 15 runs: 42 df). Two-sided at 1%, refused on the upper side: the ratio
    // own / blocks is refused beyond F(16, 42)'s upper 0.5% point, 2.7056
    // (scipy.stats.f.isf(0.005, 16, 42); 4,000,000 numpy draws of χ²(16)/16 ÷ χ²(42)/42:
    // 0.494% beyond it). 2.7432 has 0.45% beyond it (f.isf(0.0045, 16, 42); numpy 0.445%),
    // 2.6716 has 0.55% (f.isf(0.0055, 16, 42); numpy 0.543%).
    const s = 0.02;
    const a = [-s, 0, s];
    // 15 runs of the same sample variance s²: −7 … 7 has variance 20.
    const b = Array.from({ length: 15 }, (_, i) => ((i - 7) * s) / Math.sqrt(20));
    const own = s * s;
    const blocksAt = (ratio: number) => ({ squares: (42 * own) / ratio, df: 42 });
    expect(lentSpread(a, b, blocksAt(2.7432))).toBeUndefined();
    const lent = lentSpread(a, b, blocksAt(2.6716));
    expect(lent).toBeDefined();
    expect(lent!.df).toBe(58);
    // Pooled by hand: 16 s² + 42 s² / 2.6716 over 58 df.
    const pooled = (16 * own + (42 * own) / 2.6716) / 58;
    expect(lent!.se).toBeCloseTo(Math.sqrt(pooled * (1 / 3 + 1 / 15)), 12);
  });

  // 3 current runs against the window's 5 records of 3 and 15 older records of 3, all
  // normal with SD 1; one-sided test at 0.5%.
  function simulate(shift: number, lend: boolean, trials: number, seed: string): number {
    const rng = seededRandom(seed);
    const level = 0.005;
    const critical = new Map<number, number>();
    let fails = 0;
    for (let trial = 0; trial < trials; trial += 1) {
      const draw = (n: number, mean = 0) => Array.from({ length: n }, () => mean + normal(rng));
      const current = draw(3, shift);
      const window = draw(15);
      const older = Array.from({ length: 15 }, () => draw(3));
      const spread = lend
        ? // As the gate does: the runs alone when the blocks scatter differently (1 in 100).
          (lentSpread(current, window, olderBlockSquares(older, 5)) ?? logSpread(current, window)!)
        : logSpread(current, window)!;
      const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
      const t = (mean(current) - mean(window)) / spread.se;
      if (!critical.has(spread.df)) critical.set(spread.df, studentTQuantile(1 - level, spread.df));
      if (t > critical.get(spread.df)!) fails += 1;
    }
    return fails / trials;
  }

  it('keeps its level on unchanged normal runs (calibration: 20,000 seeded draws)', () => {
    const rate = simulate(0, true, 20_000, 'lent null');
    // 0.5% of 20,000 is 100; its 99.9% range is about 70 to 133.
    expect(rate).toBeGreaterThan(0.0035);
    expect(rate).toBeLessThan(0.0066);
  });

  it('finds a shift of 2.5 run SDs more often than the runs alone (power)', () => {
    const lent = simulate(2.5, true, 4_000, 'lent shift');
    const alone = simulate(2.5, false, 4_000, 'lent shift');
    // The same draws: 16 degrees of freedom against 46 (t 2.92 against 2.69 at 0.5%).
    expect(lent).toBeGreaterThan(alone + 0.04);
  });
});
