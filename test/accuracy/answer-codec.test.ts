// The stored answers' packing (answer-codec.ts): back as written but for the rounding of
// each log-probability to a thousandth of a nat, small enough beside a record for the
// default prompt set, and refused with what is wrong when the text is not what it wrote.
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bhattacharyya, type ScoredPosition } from '../../src/accuracy/agreement.js';
import { referencePass } from '../../src/accuracy/passes.js';
import { decodeAnswers, encodeAnswers, roundedAnswers } from '../../src/accuracy/answer-codec.js';
import { DEFAULT_PROMPTS } from '../../src/config/default-prompts.js';
import { simulatedScorer, tokenize } from '../../bench/simulator-token-model.js';

const position = (token: number, top: [number, number][]): ScoredPosition => ({
  token,
  top: new Map(top),
});

async function defaultAnswers(): Promise<ScoredPosition[][]> {
  let state = 1;
  const uniform = () => (state = (state * 48271) % 2147483647) / 2147483647;
  const scorer = simulatedScorer({ flips: 0, spread: 0, jitter: 0.001 }, 5, uniform);
  return referencePass(scorer, DEFAULT_PROMPTS.map(tokenize), 32);
}

describe('the stored answers, packed', () => {
  it('come back rounded to a thousandth of a nat, the greedy token kept where it is not the first', () => {
    const answers = [
      [
        position(7, [
          [3, -0.6931],
          [7, -0.69314],
          [151_935, -70],
        ]),
        position(2, [[2, -0.00001]]),
      ],
    ];
    const back = decodeAnswers(encodeAnswers(answers), { prompts: 1, maxTokens: 2, topK: 2 });
    expect(back[0]![0]!.token).toBe(7);
    expect([...back[0]![0]!.top]).toEqual([
      [7, -0.693],
      [3, -0.693],
      [151_935, -65.535],
    ]);
    expect(back[0]![1]).toEqual(position(2, [[2, 0]]));
    expect(back).toEqual(roundedAnswers(answers));
  });

  it("keep the default prompt set within 64 KB, each position's distance moved by less than 1e-4", async () => {
    const answers = await defaultAnswers();
    const text = encodeAnswers(answers);
    expect(Buffer.byteLength(text)).toBeLessThan(64 * 1024);
    const back = decodeAnswers(text, { prompts: DEFAULT_PROMPTS.length, maxTokens: 32, topK: 5 });
    const moved = answers.flat().map((p, i) => 1 - bhattacharyya(p.top, back.flat()[i]!.top));
    expect(Math.max(...moved)).toBeLessThan(1e-4);
    expect(back.flat().map((p) => p.token)).toEqual(answers.flat().map((p) => p.token));
  });

  it('refuse a greedy token outside its top-k and a positive log-probability when written', () => {
    expect(() => encodeAnswers([[position(9, [[1, -0.1]])]])).toThrow(
      /token 9 is not in its own top-k/,
    );
    expect(() => encodeAnswers([[position(1, [[1, 0.2]])]])).toThrow(
      /0.2 is not a number at most 0/,
    );
  });

  it('refuse text they did not write, saying what is wrong', () => {
    const shape = { prompts: 1, maxTokens: 2, topK: 1 };
    const one = encodeAnswers([[position(1, [[1, -0.1]]), position(2, [[2, -0.2]])]]);
    expect(() => decodeAnswers('not base64!', shape)).toThrow(/not base64 text/);
    expect(() => decodeAnswers('AAAA', shape)).toThrow(/do not inflate/);
    expect(() => decodeAnswers(one, { ...shape, maxTokens: 3 })).toThrow(/end early/);
    expect(() => decodeAnswers(one, { ...shape, maxTokens: 1 })).toThrow(/7 bytes more/);
    const wide = Buffer.from([3, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0]);
    expect(() =>
      decodeAnswers(deflateRawSync(wide).toString('base64'), { ...shape, maxTokens: 1 }),
    ).toThrow(/3 log-probabilities, where top-1/);
    const twice = Buffer.from([2, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(() =>
      decodeAnswers(deflateRawSync(twice).toString('base64'), { ...shape, maxTokens: 1 }),
    ).toThrow(/names one token twice/);
  });
});
