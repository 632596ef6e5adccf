import { describe, expect, it } from 'vitest';
import type { PromptAgreement } from '../../src/accuracy/agreement.js';
import { DEFAULT_AGREEMENT_MARGINS, judgeAgreement } from '../../src/accuracy/agreement-verdict.js';
import { studentTQuantile } from '../../src/stats/distributions.js';

const prompt = (flips: number, distance = 0, positions = 32): PromptAgreement => ({
  positions,
  flips,
  firstFlip: flips > 0 ? 0 : null,
  distance,
  overlap: positions,
});
const options = { margins: DEFAULT_AGREEMENT_MARGINS, confidence: 0.95 };

describe('judgeAgreement', () => {
  it('passes a head that flips as often as the base against itself', () => {
    const aa = Array.from({ length: 48 }, (_, i) => prompt(i % 10 === 0 ? 1 : 0));
    const judged = judgeAgreement(aa, aa, options);
    expect(judged.verdict).toBe('pass');
    expect(judged.flips.change).toBe(0);
    expect(judged.positions).toBe(48 * 32);
  });

  it('fails a head that flips 5% of its tokens where the base flips none', () => {
    const aa = Array.from({ length: 48 }, () => prompt(0));
    const head = Array.from({ length: 48 }, (_, i) => prompt([1, 2, 2, 1][i % 4]!));
    const judged = judgeAgreement(aa, head, options);
    expect(judged.flips.head).toBeCloseTo(72 / 1536, 12);
    expect(judged.flips.verdict).toBe('regression');
    expect(judged.verdict).toBe('regression');
  });

  it('gives the cluster-robust interval of the paired difference, by hand', () => {
    const aa = [prompt(0), prompt(1), prompt(0), prompt(0)];
    const head = [prompt(3), prompt(1), prompt(0), prompt(4)];
    const judged = judgeAgreement(aa, head, options);
    const d = [3, 0, 0, 4];
    const rate = 7 / 128;
    const squares = d.reduce((sum, di) => sum + (di - rate * 32) ** 2, 0);
    const se = Math.sqrt((4 / 3) * squares) / 128;
    const t = studentTQuantile(0.975, 3);
    expect(judged.flips.change).toBeCloseTo(rate, 12);
    expect(judged.flips.ci[0]).toBeCloseTo(rate - t * se, 12);
    expect(judged.flips.ci[1]).toBeCloseTo(rate + t * se, 12);
  });

  it('calls a change beyond the margin that a few prompts carry inconclusive', () => {
    // 3% of the tokens, all in two prompts of 48: beyond the margin, not beyond doubt.
    const aa = Array.from({ length: 48 }, () => prompt(0));
    const head = Array.from({ length: 48 }, (_, i) => prompt(i < 2 ? 23 : 0));
    const judged = judgeAgreement(aa, head, options);
    expect(judged.flips.change).toBeGreaterThan(DEFAULT_AGREEMENT_MARGINS.flips);
    expect(judged.flips.verdict).toBe('inconclusive');
  });

  it('fails distributions that moved apart though no greedy token flipped', () => {
    const aa = Array.from({ length: 48 }, () => prompt(0, 0.01));
    const head = Array.from({ length: 48 }, (_, i) => prompt(0, 0.9 + (i % 3) * 0.05));
    const judged = judgeAgreement(aa, head, options);
    expect(judged.flips.verdict).toBe('pass');
    expect(judged.distance.verdict).toBe('regression');
    expect(judged.verdict).toBe('regression');
  });

  it('refuses passes over different prompts', () => {
    expect(() => judgeAgreement([prompt(0), prompt(0)], [prompt(0)], options)).toThrow(
      /same prompts/,
    );
    expect(() =>
      judgeAgreement([prompt(0), prompt(0, 0, 8)], [prompt(0), prompt(0)], options),
    ).toThrow(/prompt 2/);
  });
});
