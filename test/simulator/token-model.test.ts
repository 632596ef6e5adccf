// The simulated model's next-token distributions (lib/token-model.mjs): one build answers
// the same greedy tokens every run but at its near ties, SIM_TOKEN_FLIPS changes the
// greedy token of that share of contexts, SIM_LOGPROB_SPREAD flattens without changing it.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the simulator is plain JavaScript without type declarations
import * as model from '../../examples/simulated-inf2/lib/token-model.mjs';
import { wilson } from '../../src/stats/proportion.js';

interface Candidate {
  id: number;
  logprob: number;
}
const next = (context: number[], settings: object, noise?: () => number): Candidate[] =>
  model.nextCandidates(context, model.tokenSettings({ model: 'm', ...settings }), noise);
const contexts = (n: number) => Array.from({ length: n }, (_, i) => [i, i * 7 + 1, 42]);

describe('the simulated token model', () => {
  it('answers the same candidates for a context, most likely first, summing below 1', () => {
    const a = next([1, 2, 3], {});
    expect(next([1, 2, 3], {})).toEqual(a);
    expect(a).toHaveLength(model.MAX_LOGPROBS);
    expect(a.map((c) => c.logprob)).toEqual([...a.map((c) => c.logprob)].sort((x, y) => y - x));
    expect(a.reduce((sum, c) => sum + Math.exp(c.logprob), 0)).toBeLessThan(1);
    expect(new Set(a.map((c) => c.id)).size).toBe(model.MAX_LOGPROBS);
  });

  it('flips the greedy token of SIM_TOKEN_FLIPS of the contexts, the same ones every time', () => {
    const all = contexts(5000);
    const flipped = all.filter((c) => next(c, { flips: 0.02 })[0]!.id !== next(c, {})[0]!.id);
    const [low, high] = wilson(flipped.length, all.length);
    expect(low).toBeLessThan(0.02);
    expect(high).toBeGreaterThan(0.02);
    expect(all.filter((c) => next(c, { flips: 0.02 })[0]!.id !== next(c, {})[0]!.id)).toEqual(
      flipped,
    );
  });

  it('lets jitter decide only near ties: well under 1% of contexts differ run to run', () => {
    let seed = 1;
    const uniform = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const all = contexts(20_000);
    const differ = all.filter(
      (c) =>
        next(c, { jitter: 0.001 }, uniform)[0]!.id !== next(c, { jitter: 0.001 }, uniform)[0]!.id,
    );
    expect(differ.length).toBeGreaterThan(0);
    expect(differ.length / all.length).toBeLessThan(0.006);
  });

  it('keeps every jittered distribution a distribution: the candidates sum below 1', () => {
    let seed = 7;
    const uniform = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const masses = contexts(5000).flatMap((c) =>
      [0.001, 0.02].map((jitter) =>
        next(c, { jitter }, uniform).reduce((sum, x) => sum + Math.exp(x.logprob), 0),
      ),
    );
    expect(Math.max(...masses)).toBeLessThan(1);
  });

  it('flattens with SIM_LOGPROB_SPREAD and keeps the greedy token', () => {
    for (const c of contexts(200)) {
      const sharp = next(c, {});
      const flat = next(c, { spread: 0.5 });
      expect(flat[0]!.id).toBe(sharp[0]!.id);
      // A temperature of 1.5: every gap between candidates shrinks to 1/1.5 of itself.
      const gap = (cs: Candidate[]) => cs[0]!.logprob - cs[1]!.logprob;
      expect(gap(flat)).toBeCloseTo(gap(sharp) / 1.5, 9);
    }
  });

  it('tokenizes a text the same way every time, one id a word or mark', () => {
    expect(model.tokenize('Hello, world!')).toEqual(model.tokenize('Hello, world!'));
    expect(model.tokenize('Hello, world!')).toHaveLength(4);
  });
});
