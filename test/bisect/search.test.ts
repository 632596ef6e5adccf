// The bisection driver on a measurer that draws runs in-process: where it looks, how many
// runs it asks for, and what it answers.
import { describe, expect, it } from 'vitest';
import { bisect, BisectError, type Measured, type Measurer } from '../../src/bisect/search.js';
import type { Environment } from '../../src/model.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

/** Latency runs: 100 ms before `culprit` (0-based candidate index), 100 × slowdown from it on. */
class DrawnMeasurer implements Measurer {
  readonly asked: string[] = [];
  readonly released: string[] = [];
  private readonly values = new Map<string, number[]>();
  private readonly random;

  constructor(
    private readonly levelOf: (commit: string) => number,
    private readonly cv = 0.01,
    private readonly environmentOf: (commit: string) => Environment = () => ({}),
  ) {
    this.random = seededRandom('search-test');
  }

  measure(commit: string, runs: number): Promise<Measured> {
    this.asked.push(`${commit}×${runs}`);
    const values = this.values.get(commit) ?? [];
    for (let i = 0; i < runs; i += 1) {
      values.push(this.levelOf(commit) * Math.exp(this.cv * normal(this.random)));
    }
    this.values.set(commit, values);
    return Promise.resolve({
      metrics: [
        { id: 'latency_p50', unit: 'ms', direction: 'lower-is-better', values: [...values] },
      ],
      environment: this.environmentOf(commit),
      runs: values.length,
    });
  }

  release(commit: string): Promise<void> {
    this.released.push(commit);
    return Promise.resolve();
  }
}

const candidates = (n: number) => Array.from({ length: n }, (_, i) => `c${i + 1}`);
const settings = { confidence: 0.99, endRuns: 8, commitRuns: 2, maxRuns: 10 };
const levels = (culprit: number, slowdown: number) => (commit: string) =>
  commit !== 'c0' && Number(commit.slice(1)) >= culprit ? 100 * slowdown : 100;

describe('bisect', () => {
  it('finds the culprit wherever it is among 16 commits, in 4 steps', async () => {
    for (let culprit = 1; culprit <= 16; culprit += 1) {
      const measurer = new DrawnMeasurer(levels(culprit, 1.08));
      const result = await bisect(measurer, {
        ...settings,
        good: 'c0',
        candidates: candidates(16),
      });
      expect(result.firstBad).toBe(`c${culprit}`);
      expect(result.lastGood).toBe(`c${culprit - 1}`);
      expect(result.steps).toHaveLength(4);
      expect(result.step.change).toBeGreaterThan(0.05);
      expect(result.step.ci![0]).toBeGreaterThan(0);
      // Every worktree is given back.
      expect(new Set(measurer.released)).toEqual(
        new Set(measurer.asked.map((a) => a.split('×')[0])),
      );
    }
  });

  it('measures the ends first and adds runs to a commit one at a time, only while it is open', async () => {
    // c3 sits exactly halfway: it can never be decided, so it takes every run allowed.
    const measurer = new DrawnMeasurer((commit) =>
      commit === 'c0' ? 100 : commit === 'c3' ? 104.9 : commit < 'c3' ? 100 : 110,
    );
    const result = await bisect(measurer, { ...settings, good: 'c0', candidates: candidates(4) });
    expect(measurer.asked.slice(0, 2)).toEqual(['c0×8', 'c4×8']);
    const middle = result.steps.find((s) => s.commit === 'c2')!;
    expect(middle.runs).toBeLessThanOrEqual(4);
    const halfway = result.steps.find((s) => s.commit === 'c3')!;
    expect(halfway.uncertain).toBe(true);
    expect(halfway.runs).toBe(10);
    expect(measurer.asked.filter((a) => a.startsWith('c3×'))).toEqual([
      'c3×2',
      ...Array(8).fill('c3×1'),
    ]);
    expect(halfway.between).toBe(true);
  });

  it('stops with an error naming the figures when the ends do not differ', async () => {
    const measurer = new DrawnMeasurer(() => 100);
    const run = bisect(measurer, { ...settings, good: 'c0', candidates: candidates(8) });
    await expect(run).rejects.toThrow(BisectError);
    await expect(
      bisect(new DrawnMeasurer(() => 100), { ...settings, good: 'c0', candidates: candidates(8) }),
    ).rejects.toThrow(/no metric is surely worse .* after 10 run\(s\) of each[\s\S]*latency_p50: /);
  });

  it('carries the environments of the commits on both sides of the step', async () => {
    const measurer = new DrawnMeasurer(levels(5, 1.1), 0.01, (commit) => ({
      neuronSdkVersion: commit !== 'c0' && Number(commit.slice(1)) >= 5 ? '2.27' : '2.26',
    }));
    const result = await bisect(measurer, { ...settings, good: 'c0', candidates: candidates(8) });
    expect(result.environments.lastGood.neuronSdkVersion).toBe('2.26');
    expect(result.environments.firstBad.neuronSdkVersion).toBe('2.27');
  });
});
