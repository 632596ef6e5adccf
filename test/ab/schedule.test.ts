import { describe, expect, it } from 'vitest';
import { abbaBlocks } from '../../src/ab/schedule.js';

describe('abbaBlocks', () => {
  it('runs base, head, head, base in every block, numbered on from the first', () => {
    expect(abbaBlocks(2, 2)).toEqual([
      { side: 'base', block: 2 },
      { side: 'head', block: 2 },
      { side: 'head', block: 2 },
      { side: 'base', block: 2 },
      { side: 'base', block: 3 },
      { side: 'head', block: 3 },
      { side: 'head', block: 3 },
      { side: 'base', block: 3 },
    ]);
  });

  it('gives both sides the same mean position in each block: linear drift cancels', () => {
    const runs = abbaBlocks(0, 3);
    for (const block of [0, 1, 2]) {
      const at = (side: string) =>
        runs
          .map((run, i) => ({ ...run, i }))
          .filter((run) => run.block === block && run.side === side)
          .map((run) => run.i);
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      expect(at('base')).toHaveLength(2);
      expect(mean(at('base'))).toBe(mean(at('head')));
    }
  });
});
