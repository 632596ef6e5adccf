import { describe, expect, it } from 'vitest';
import type { ScoredPosition } from '../../src/accuracy/agreement.js';
import { comparedPass, referencePass } from '../../src/accuracy/passes.js';
import { teacherForced, type Scorer } from '../../src/accuracy/teacher-forced.js';

/** A model whose next token is the sum of its context mod 100, plus `bias` where `flipAt` says. */
function model(flipAt: (context: readonly number[]) => boolean): Scorer & { contexts: number[][] } {
  const contexts: number[][] = [];
  return {
    contexts,
    complete: (prompt, maxTokens) => {
      contexts.push([...prompt]);
      const context = [...prompt];
      const positions: ScoredPosition[] = [];
      for (let i = 0; i < maxTokens; i += 1) {
        const natural = context.reduce((a, b) => a + b, 0) % 100;
        const token = flipAt(context) ? natural + 1000 : natural;
        positions.push({ token, top: new Map([[token, -0.1]]) });
        context.push(token);
      }
      return Promise.resolve(positions);
    },
  };
}

describe('teacherForced', () => {
  it('asks once when the answer is the reference', async () => {
    const scorer = model(() => false);
    const [reference] = await referencePass(scorer, [[1, 2]], 6);
    const forced = await teacherForced(scorer, [1, 2], reference!);
    expect(forced.requests).toBe(1);
    expect(forced.positions.map((p) => p.token)).toEqual(reference!.map((p) => p.token));
  });

  it('asks again after each flip, from the prompt and the reference up to it', async () => {
    const [reference] = await referencePass(
      model(() => false),
      [[1, 2]],
      6,
    );
    // The head flips where its context has 3 and 5 tokens: positions 1 and 3.
    const head = model((context) => context.length === 3 || context.length === 5);
    const forced = await teacherForced(head, [1, 2], reference!);
    expect(forced.requests).toBe(3);
    const ids = reference!.map((p) => p.token);
    expect(head.contexts).toEqual([
      [1, 2],
      [1, 2, ...ids.slice(0, 2)],
      [1, 2, ...ids.slice(0, 4)],
    ]);
    const flipped = forced.positions.map((p, i) => p.token !== ids[i]);
    expect(flipped).toEqual([false, true, false, true, false, false]);
  });

  it('refuses a server that answers fewer tokens than asked', async () => {
    const short: Scorer = {
      complete: () => Promise.resolve([{ token: 1, top: new Map([[1, -0.1]]) }]),
    };
    const reference = Array.from({ length: 3 }, () => ({ token: 1, top: new Map([[1, -0.1]]) }));
    await expect(teacherForced(short, [1], reference)).rejects.toThrow(
      /answered 1 token\(s\) where 3/,
    );
    await expect(referencePass(short, [[1]], 3)).rejects.toThrow(/answered 1 token\(s\) where 3/);
  });

  it('counts each prompt of a pass against its own reference', async () => {
    const prompts = [[1], [2], [3]];
    const reference = await referencePass(
      model(() => false),
      prompts,
      4,
    );
    const pass = await comparedPass(
      model((context) => context[0] === 2 && context.length === 1),
      prompts,
      reference,
    );
    expect(pass.agreements.map((a) => a.flips)).toEqual([0, 1, 0]);
    expect(pass.requests).toBe(4);
  });
});
