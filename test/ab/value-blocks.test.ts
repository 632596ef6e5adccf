// The block of each value of a side's metrics (src/ab/value-blocks.ts): a file's metric
// value by value, a figure derived per parsed run by the runs, a figure of the run itself
// (start-up, memory) by the run outcomes, which differ when one file holds several runs.
import { describe, expect, it } from 'vitest';
import { withValueBlocks } from '../../src/ab/value-blocks.js';
import type { BenchmarkResult, Metric } from '../../src/model.js';

const metric = (id: string, values: number[]): Metric => ({
  id,
  unit: 'ms',
  direction: 'lower-is-better',
  values,
});

const parsed = (file: string, ids: string[]) => ({
  file,
  benchmarks: [
    {
      metrics: ids.map((id) => ({
        id,
        unit: 'ms',
        direction: 'lower-is-better' as const,
        value: 1,
      })),
    },
  ],
});

describe('withValueBlocks', () => {
  it('gives each kind of metric the blocks of its own values', () => {
    // Two outcomes (blocks 0 and 1), each file holding two runs (JSON Lines); the first
    // file's second run has no `tail`.
    const runs = [
      parsed('a', ['p50', 'tail']),
      parsed('a', ['p50']),
      parsed('b', ['p50', 'tail']),
      parsed('b', ['p50', 'tail']),
    ];
    const result: BenchmarkResult = {
      name: 'bench',
      format: 'x',
      runs: [],
      metrics: [
        metric('p50', [1, 2, 3, 4]),
        metric('tail', [1, 3, 4]),
        metric('goodput', [5, 6, 7, 8]),
        metric('server_startup', [9, 10]),
        metric('odd', [1, 2, 3]),
      ],
    };
    withValueBlocks([result], { runs, runBlocks: [0, 0, 1, 1], outcomeBlocks: [0, 1] }, 'bench');
    const blocks = Object.fromEntries(result.metrics.map((m) => [m.id, m.blocks]));
    expect(blocks).toEqual({
      p50: [0, 0, 1, 1],
      tail: [0, 1, 1],
      goodput: [0, 0, 1, 1],
      server_startup: [0, 1],
      odd: undefined,
    });
  });

  it('reads the blocks of a benchmark the file names by that name', () => {
    const runs = [
      {
        file: 'a',
        benchmarks: [
          { name: 'one', metrics: [] },
          {
            name: 'two',
            metrics: [{ id: 'x', unit: 'ms', direction: 'lower-is-better' as const, value: 1 }],
          },
        ],
      },
      {
        file: 'b',
        benchmarks: [
          {
            name: 'two',
            metrics: [{ id: 'x', unit: 'ms', direction: 'lower-is-better' as const, value: 1 }],
          },
        ],
      },
      {
        file: 'c',
        benchmarks: [
          {
            name: 'one',
            metrics: [{ id: 'x', unit: 'ms', direction: 'lower-is-better' as const, value: 1 }],
          },
        ],
      },
    ];
    const one: BenchmarkResult = {
      name: 'one',
      format: 'x',
      runs: [],
      metrics: [metric('x', [1])],
    };
    const two: BenchmarkResult = {
      name: 'two',
      format: 'x',
      runs: [],
      metrics: [metric('x', [1, 2])],
    };
    withValueBlocks([one, two], { runs, runBlocks: [0, 1, 2], outcomeBlocks: [0, 1, 2] }, 'entry');
    expect(one.metrics[0]!.blocks).toEqual([2]);
    expect(two.metrics[0]!.blocks).toEqual([0, 1]);
  });
});
