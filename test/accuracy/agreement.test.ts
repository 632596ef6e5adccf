import { describe, expect, it } from 'vitest';
import {
  bhattacharyya,
  promptAgreement,
  topOverlap,
  totalAgreement,
  type ScoredPosition,
} from '../../src/accuracy/agreement.js';

const top = (entries: [number, number][]) => new Map(entries.map(([id, p]) => [id, Math.log(p)]));
const at = (token: number, entries: [number, number][]): ScoredPosition => ({
  token,
  top: top(entries),
});

describe('bhattacharyya', () => {
  it('is 1 for a distribution and itself, its rest included', () => {
    const p = top([
      [1, 0.6],
      [2, 0.3],
    ]);
    expect(bhattacharyya(p, p)).toBeCloseTo(1, 12);
  });

  it('is the sum of √(p·q) over shared tokens and the rests, by hand', () => {
    const p = top([
      [1, 0.6],
      [2, 0.3],
    ]); // rest 0.1
    const q = top([
      [1, 0.5],
      [3, 0.2],
    ]); // rest 0.3
    const byHand = Math.sqrt(0.6 * 0.5) + Math.sqrt(0.1 * 0.3);
    expect(bhattacharyya(p, q)).toBeCloseTo(byHand, 12);
  });

  it('is smaller for a flatter distribution of the same tokens', () => {
    const sharp = top([
      [1, 0.9],
      [2, 0.05],
    ]);
    const flat = top([
      [1, 0.5],
      [2, 0.3],
    ]);
    expect(bhattacharyya(sharp, flat)).toBeLessThan(0.99);
  });
});

describe('topOverlap', () => {
  it('is the share of the smaller top-k the other has', () => {
    expect(
      topOverlap(
        top([
          [1, 0.5],
          [2, 0.2],
          [3, 0.1],
        ]),
        top([
          [1, 0.4],
          [3, 0.2],
          [4, 0.1],
        ]),
      ),
    ).toBeCloseTo(2 / 3);
    expect(topOverlap(top([[1, 0.5]]), top([[2, 0.5]]))).toBe(0);
  });
});

describe('promptAgreement', () => {
  const reference = [
    at(1, [
      [1, 0.7],
      [2, 0.2],
    ]),
    at(5, [
      [5, 0.5],
      [6, 0.4],
    ]),
    at(9, [
      [9, 0.9],
      [8, 0.05],
    ]),
  ];

  it('counts nothing for the same answer', () => {
    const same = promptAgreement(reference, reference);
    expect(same).toEqual({
      positions: 3,
      flips: 0,
      firstFlip: null,
      distance: expect.any(Number),
      overlap: 3,
    });
    expect(same.distance).toBeCloseTo(0, 12);
  });

  it('counts a flipped greedy token, its position, and the distance it adds', () => {
    const answer = [
      reference[0]!,
      at(6, [
        [6, 0.5],
        [5, 0.4],
      ]),
      reference[2]!,
    ];
    const flipped = promptAgreement(reference, answer);
    expect(flipped.flips).toBe(1);
    expect(flipped.firstFlip).toBe(1);
    const byHand = 1 - (2 * Math.sqrt(0.5 * 0.4) + 0.1);
    expect(flipped.distance).toBeCloseTo(byHand, 12);
  });

  it('refuses answers of different lengths', () => {
    expect(() => promptAgreement(reference, reference.slice(1))).toThrow(
      /2 positions compared with 3/,
    );
  });

  it('sums prompts', () => {
    const one = promptAgreement(reference, reference);
    expect(totalAgreement([one, one])).toMatchObject({ positions: 6, flips: 0, overlap: 6 });
  });
});
