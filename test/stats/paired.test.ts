// The paired change of A/B mode (src/stats/paired.ts) against a least-squares fit of the
// same additive model by numpy, and the property it exists for: whatever the host does
// between blocks, the change and its spread stay the same.
import { describe, expect, it } from 'vitest';
import { pairedSpread } from '../../src/stats/paired.js';
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
