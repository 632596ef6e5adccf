// The paired change of A/B mode (src/stats/paired.ts) against a least-squares fit of the
// same additive model by numpy, and the property it exists for: whatever the host does
// between blocks, the change and its spread stay the same.
import { describe, expect, it } from 'vitest';
import { blockPairing, pairedSpread } from '../../src/stats/paired.js';
import { changeInterval } from '../../src/stats/interval.js';
import { compareMetric } from '../../src/compare/compare.js';
import { studentTQuantile } from '../../src/stats/distributions.js';
import type { Metric } from '../../src/model.js';

const BLOCKS = [0, 0, 1, 1, 2, 2];
const BASE = { values: [100, 102, 98, 99, 105, 104], blocks: BLOCKS };
const HEAD = { values: [110, 111, 108, 107, 116, 113], blocks: BLOCKS };

describe('pairedSpread', () => {
  it("matches numpy's least-squares fit of log value = block + side", () => {
    // python3: X = block indicators + side; np.linalg.lstsq(X, log(y)); s² = r·r / (n − 4);
    // se = sqrt(s² (XᵀX)⁻¹[side, side]) → 0.08956117685552467, 0.005509906197761889, df 8.
    const paired = pairedSpread(HEAD, BASE)!;
    expect(paired.center).toBeCloseTo(0.08956117685552467, 14);
    expect(paired.se).toBeCloseTo(0.005509906197761889, 14);
    expect(paired.df).toBe(8);
    expect(paired.runs).toBe(3);
  });

  it('does not move when the host is faster or slower from one block to the next', () => {
    const host = [1, 1.3, 0.8];
    const drifted = (runs: typeof BASE) => ({
      values: runs.values.map((v, i) => v * host[runs.blocks[i]!]!),
      blocks: runs.blocks,
    });
    const plain = pairedSpread(HEAD, BASE)!;
    const moved = pairedSpread(drifted(HEAD), drifted(BASE))!;
    expect(moved.center).toBeCloseTo(plain.center, 12);
    expect(moved.se).toBeCloseTo(plain.se, 12);
  });

  it('has no pairing with one block, a block without one side, or a value that is not positive', () => {
    expect(
      pairedSpread({ values: [1, 2], blocks: [0, 0] }, { values: [1, 2], blocks: [0, 0] }),
    ).toBe(undefined);
    expect(
      pairedSpread({ values: [1, 2], blocks: [0, 1] }, { values: [1, 2], blocks: [0, 2] }),
    ).toBe(undefined);
    expect(pairedSpread({ ...HEAD, values: [0, ...HEAD.values.slice(1)] }, BASE)).toBe(undefined);
  });
});

describe('a block with one side missing', () => {
  // Four blocks; the base has no value in block 2 (its run gave none, or never ran).
  const HEAD4 = { values: [...HEAD.values, 109, 112], blocks: [...BLOCKS, 3, 3] };
  const BASE4 = { values: [...BASE.values, 99, 101], blocks: [...BLOCKS, 3, 3] };
  const without = (runs: typeof HEAD4, block: number) => ({
    values: runs.values.filter((_, i) => runs.blocks[i] !== block),
    blocks: runs.blocks.filter((b) => b !== block),
  });

  it('is left out of the pairing, which is that of the other blocks, and named', () => {
    const gap = pairedSpread(HEAD4, without(BASE4, 2))!;
    const complete = pairedSpread(without(HEAD4, 2), without(BASE4, 2))!;
    expect(Number.isFinite(gap.center) && Number.isFinite(gap.se)).toBe(true);
    expect(gap.center).toBe(complete.center);
    expect(gap.se).toBe(complete.se);
    expect(gap.df).toBe(8);
    expect(gap.runs).toBe(3);
    expect(gap.differences).toHaveLength(3);
    expect(gap.gaps).toEqual([{ block: 2, missing: 'baseline' }]);
    expect(complete.gaps).toEqual([]);
    expect(pairedSpread(without(HEAD4, 0), BASE4)!.gaps).toEqual([
      { block: 0, missing: 'current' },
    ]);
  });

  it('takes a NaN value for no value: one NaN of two leaves the block paired on the other', () => {
    const nan = { ...BASE4, values: BASE4.values.map((v, i) => (i === 4 ? Number.NaN : v)) };
    const dropped = {
      values: BASE4.values.filter((_, i) => i !== 4),
      blocks: BASE4.blocks.filter((_, i) => i !== 4),
    };
    const paired = pairedSpread(HEAD4, nan)!;
    expect(paired.center).toBe(pairedSpread(HEAD4, dropped)!.center);
    expect(paired.se).toBe(pairedSpread(HEAD4, dropped)!.se);
    expect(paired.gaps).toEqual([]);
    const both = {
      ...BASE4,
      values: BASE4.values.map((v, i) => (BASE4.blocks[i] === 1 ? Number.NaN : v)),
    };
    expect(pairedSpread(HEAD4, both)!.gaps).toEqual([{ block: 1, missing: 'baseline' }]);
    const none = (runs: typeof HEAD4) => ({
      ...runs,
      values: runs.values.map((v, i) => (runs.blocks[i] === 3 ? Number.NaN : v)),
    });
    expect(pairedSpread(none(HEAD4), none(BASE4))!.gaps).toEqual([{ block: 3, missing: 'both' }]);
  });

  it('leaves no pairing when fewer than two blocks have both sides, and says which blocks lack one', () => {
    const one = { values: [100, 101, 104, 105], blocks: [0, 0, 1, 1] };
    const onlyFirst = { values: [110, 112], blocks: [0, 0] };
    expect(pairedSpread(onlyFirst, one)).toBe(undefined);
    expect(blockPairing(onlyFirst, one)).toEqual({
      paired: 1,
      gaps: [{ block: 1, missing: 'current' }],
    });
    expect(blockPairing(HEAD4, without(BASE4, 2))).toEqual({
      paired: 3,
      gaps: [{ block: 2, missing: 'baseline' }],
    });
    // Values and blocks that do not match up carry no blocks to pair.
    expect(blockPairing({ values: [1, 2], blocks: [0] }, one)).toEqual({ paired: 0, gaps: [] });
  });
});

describe('pairedSpread, the cases of the model', () => {
  it('is the paired t-test on the block differences with one run a side in each block', () => {
    const differences = [0.05, 0.11, 0.02];
    const before = [100, 130, 90];
    const head = { values: before.map((v, i) => v * Math.exp(differences[i]!)), blocks: [0, 1, 2] };
    const paired = pairedSpread(head, { values: before, blocks: [0, 1, 2] })!;
    const mean = (0.05 + 0.11 + 0.02) / 3;
    const sd = Math.sqrt(differences.reduce((s, d) => s + (d - mean) ** 2, 0) / 2);
    expect(paired.center).toBeCloseTo(mean, 12);
    expect(paired.se).toBeCloseTo(sd / Math.sqrt(3), 12);
    expect(paired.df).toBe(2);
    // Two blocks of one run a side: 1 degree of freedom, se = |d₁ − d₂| / 2.
    const two = pairedSpread(
      { values: head.values.slice(0, 2), blocks: [0, 1] },
      { values: before.slice(0, 2), blocks: [0, 1] },
    )!;
    expect(two.df).toBe(1);
    expect(two.se).toBeCloseTo(Math.abs(0.05 - 0.11) / 2, 12);
  });

  it('lists the blocks in block order whatever order the runs come in', () => {
    const head = {
      values: [120, 121, 110, 111, 100, 101, 130, 131],
      blocks: [3, 3, 1, 1, 0, 0, 2, 2],
    };
    const base = { values: [95, 96, 125, 124], blocks: [0, 0, 2, 2] };
    const paired = pairedSpread(head, base)!;
    expect(paired.gaps).toEqual([
      { block: 1, missing: 'baseline' },
      { block: 3, missing: 'baseline' },
    ]);
    expect(paired.differences[0]).toBeCloseTo(Math.log(100.5 / 95.5), 3);
    expect(paired.differences[1]).toBeCloseTo(Math.log(130.5 / 124.5), 3);
  });

  it('has no pairing with a value that is not positive anywhere in the runs', () => {
    const last = { ...HEAD, values: [...HEAD.values.slice(0, -1), 0] };
    expect(pairedSpread(last, BASE)).toBe(undefined);
    expect(pairedSpread(HEAD, { ...BASE, values: [...BASE.values.slice(0, -1), -1] })).toBe(
      undefined,
    );
  });
});

describe('changeInterval of metrics measured in blocks', () => {
  const metric = (runs: typeof BASE, blocks = true): Metric => ({
    id: 'latency_p50',
    unit: 'ms',
    direction: 'lower-is-better',
    values: [...runs.values],
    ...(blocks ? { blocks: [...runs.blocks] } : {}),
  });

  it('is the paired Student-t interval', () => {
    const interval = changeInterval(metric(HEAD), metric(BASE), { confidence: 0.95, seed: 's' });
    const paired = pairedSpread(HEAD, BASE)!;
    const t = studentTQuantile(0.975, 8);
    expect(interval.method).toBe('paired-t');
    expect(interval.ci![0]).toBeCloseTo(Math.expm1(paired.center - t * paired.se), 12);
    expect(interval.ci![1]).toBeCloseTo(Math.expm1(paired.center + t * paired.se), 12);
  });

  it('leaves a block one side lacks out of the pairing, and the reason names it', () => {
    const base = {
      values: [100, 102, 98, 99, 105, 104, 99, 101],
      blocks: [0, 0, 1, 1, 2, 2, 3, 3],
    };
    const head = { values: [110, 111, 108, 107, 109, 112], blocks: [0, 0, 1, 1, 3, 3] };
    const c = compareMetric(metric(head), metric(base), 0.05, { confidence: 0.95, seed: 's' });
    expect(c.method).toBe('paired-t');
    expect(c.change).toBeCloseTo(Math.expm1(pairedSpread(head, base)!.center), 12);
    expect(c.verdict).toBe('regression');
    expect(c.reason).toMatch(
      /alternating blocks on this host\); block 3: head has no value, not paired$/,
    );
  });

  it('has no pairing, and no interval, when fewer than two blocks have both sides', () => {
    const base = { values: [100, 102, 98, 99], blocks: [0, 0, 1, 1] };
    const head = { values: [101, 100], blocks: [0, 0] };
    const c = compareMetric(metric(head), metric(base), 0.05, { confidence: 0.95, seed: 's' });
    expect(c.method).toBe('none');
    expect(c.ci).toBe(null);
    expect(Number.isFinite(c.change)).toBe(true);
    expect(c.verdict).toBe('unchanged');
    expect(c.reason).toMatch(
      /\(low confidence: no pairing: 1 block has a value of both sides, fewer than the 2 a paired interval needs.*there is no interval\); block 2: head has no value, not paired$/,
    );
    // Not the unpaired interval of all the runs, which compares runs of different blocks.
    const unpaired = (runs: typeof base) => ({ ...metric(runs), blocks: undefined });
    expect(
      changeInterval(unpaired(head), unpaired(base), { confidence: 0.95, seed: 's' }).method,
    ).toBe('student-t');
  });

  it('is unpaired when only one side carries blocks, or a value has no log; says nothing of pairing with every block paired', () => {
    const paired = changeInterval(metric(HEAD), metric(BASE), { confidence: 0.95, seed: 's' });
    expect(paired.method).toBe('paired-t');
    expect(paired.pairing).toBeUndefined();
    const oneSide = changeInterval(metric(HEAD), metric(BASE, false), {
      confidence: 0.95,
      seed: 's',
    });
    expect(oneSide.method).toBe('student-t');
    const zero = { ...BASE, values: [...BASE.values.slice(0, -1), 0] };
    expect(changeInterval(metric(HEAD), metric(zero), { confidence: 0.95, seed: 's' }).method).toBe(
      'student-t',
    );
  });

  it('names every block left out, and no pairing at all when no block has both sides', () => {
    const base = {
      values: [100, 102, 98, 99, 105, 104, 99, 101],
      blocks: [0, 0, 1, 1, 2, 2, 3, 3],
    };
    const head = { values: [110, 111, 108, 107, 109, 112], blocks: [0, 0, 2, 2, 3, 3] };
    const gappy = { ...base, values: base.values.map((v, i) => (base.blocks[i] === 3 ? NaN : v)) };
    const c = compareMetric(metric(head), metric(gappy), 0.05, { confidence: 0.95, seed: 's' });
    expect(c.reason).toMatch(
      /; block 2: head has no value, not paired; block 4: base has no value, not paired$/,
    );
    const none = compareMetric(
      metric({ values: [110, 111], blocks: [0, 0] }),
      metric({ values: [100, 101], blocks: [1, 1] }),
      0.05,
      { confidence: 0.95, seed: 's' },
    );
    expect(none.method).toBe('none');
    expect(none.reason).toMatch(
      /no pairing: 0 blocks have a value of both sides.*; block 1: base has no value, not paired; block 2: head has no value, not paired$/,
    );
    const neither = { values: [110, NaN, 108, 107, 109, 112], blocks: [0, 1, 1, 2, 2, 0] };
    const both = { values: [100, 99, 98, NaN, 97, 96], blocks: [0, 1, 1, 2, 2, 0] };
    const n = compareMetric(
      metric({
        ...neither,
        values: neither.values.map((v, i) => (neither.blocks[i] === 2 ? NaN : v)),
      }),
      metric({ ...both, values: both.values.map((v, i) => (both.blocks[i] === 2 ? NaN : v)) }),
      0.05,
      { confidence: 0.95, seed: 's' },
    );
    expect(n.reason).toMatch(/; block 3: neither side has a value, not paired$/);
  });

  it('is narrower than the unpaired interval of the same runs when the host moves between blocks', () => {
    const host = [1, 1.1, 0.92];
    const drifted = (runs: typeof BASE) => ({
      values: runs.values.map((v, i) => v * host[runs.blocks[i]!]!),
      blocks: runs.blocks,
    });
    const width = (ci: [number, number] | null) => ci![1] - ci![0];
    const paired = changeInterval(metric(drifted(HEAD)), metric(drifted(BASE)), {
      confidence: 0.95,
      seed: 's',
    });
    const unpaired = changeInterval(metric(drifted(HEAD), false), metric(drifted(BASE), false), {
      confidence: 0.95,
      seed: 's',
    });
    expect(unpaired.method).toBe('student-t');
    expect(width(paired.ci)).toBeLessThan(width(unpaired.ci) / 3);
  });

  it('tells the gate what its blocks can see: three noisy blocks fall short of twice a 2% threshold', () => {
    // Run-to-run noise of about ±8% within a block: three blocks find a 4% regression far
    // less than 95% of the time, and the comparison says so from the paired spread.
    const base = { values: [100, 116, 92, 108, 110, 95], blocks: BLOCKS };
    const head = { values: [112, 98, 104, 91, 97, 111], blocks: BLOCKS };
    const c = compareMetric(metric(head), metric(base), 0.02, { confidence: 0.95, seed: 's' });
    expect(c.method).toBe('paired-t');
    expect(c.verdict).not.toBe('regression');
    expect(c.reach?.runs).toBe(3);
    expect(c.reach!.power).toBeLessThan(0.95);
  });
});
