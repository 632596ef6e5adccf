// The bisection driver on a measurer that draws runs in-process: where it looks, how many
// runs it asks for, and what it answers.
import { describe, expect, it } from 'vitest';
import {
  bisect,
  BisectError,
  nextToTry,
  UnmeasurableCommit,
  type Measured,
  type Measurer,
} from '../../src/bisect/search.js';
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
    /** Commits that cannot be built: measuring them throws, as a failing --command does. */
    private readonly broken: ReadonlySet<string> = new Set(),
  ) {
    this.random = seededRandom('search-test');
  }

  measure(commit: string, runs: number): Promise<Measured> {
    this.asked.push(`${commit}×${runs}`);
    if (this.broken.has(commit)) {
      return Promise.reject(new UnmeasurableCommit(`commit ${commit}: --command exited with 1`));
    }
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

  describe('commits that cannot be built (skipped, as git bisect skip does)', () => {
    const broken = (...commits: string[]) => new Set(commits);

    it('measures a neighbour instead and still names the culprit', async () => {
      // c8 is the middle of 16, so c9 is measured instead; then c4 (broken: c5 instead),
      // c7 and c6. c12 is never needed.
      const measurer = new DrawnMeasurer(
        levels(6, 1.08),
        0.01,
        () => ({}),
        broken('c8', 'c4', 'c12'),
      );
      const result = await bisect(measurer, {
        ...settings,
        good: 'c0',
        candidates: candidates(16),
      });
      expect(result.firstBad).toBe('c6');
      expect(result.undecided).toEqual([]);
      expect(result.skipped.map((s) => s.commit)).toEqual(['c8', 'c4']);
      expect(result.lastGood).toBe('c5');
      expect(result.skipped[0]).toEqual({
        commit: 'c8',
        index: 8,
        reason: 'commit c8: --command exited with 1',
      });
      // Skipped commits are released too, and are neither good nor bad steps.
      expect(measurer.released).toEqual(expect.arrayContaining(['c8', 'c4']));
      expect(result.steps.map((s) => s.commit)).not.toContain('c8');
      // One build attempt each: a broken commit is not retried.
      expect(measurer.asked.filter((a) => a.startsWith('c8×'))).toHaveLength(1);
    });

    it('narrows the answer to a range when the culprit itself cannot be built', async () => {
      const measurer = new DrawnMeasurer(levels(6, 1.08), 0.01, () => ({}), broken('c5', 'c6'));
      const result = await bisect(measurer, {
        ...settings,
        good: 'c0',
        candidates: candidates(16),
      });
      expect(result.lastGood).toBe('c4');
      expect(result.firstBad).toBe('c7');
      expect(result.undecided).toEqual(['c5', 'c6']);
    });

    it('finds the culprit with every other commit broken, in a few more steps', async () => {
      const odd = candidates(15).filter((c) => Number(c.slice(1)) % 2 === 1);
      for (const culprit of [2, 8, 14]) {
        const measurer = new DrawnMeasurer(levels(culprit, 1.08), 0.01, () => ({}), broken(...odd));
        const result = await bisect(measurer, {
          ...settings,
          good: 'c0',
          candidates: candidates(16),
        });
        // Only even commits can be measured: the culprit's odd parent is undecided.
        expect(result.firstBad).toBe(`c${culprit}`);
        expect(result.lastGood).toBe(`c${culprit - 2}`);
        expect(result.undecided).toEqual([`c${culprit - 1}`]);
      }
    });

    it('stops with exit 3 when an end cannot be built: the ends are the yardsticks', async () => {
      for (const end of ['c0', 'c8']) {
        const run = bisect(new DrawnMeasurer(levels(4, 1.08), 0.01, () => ({}), broken(end)), {
          ...settings,
          good: 'c0',
          candidates: candidates(8),
        });
        await expect(run).rejects.toThrow(
          new RegExp(
            `commit ${end}: --command exited with 1\nThe --(good|bad) end must be measured`,
          ),
        );
        await run.catch((error: BisectError) => {
          expect(error).not.toBeInstanceOf(UnmeasurableCommit);
          expect(error.exitCode).toBe(3);
        });
      }
    });

    it('tries the middle, then its nearest untried neighbours, after then before', () => {
      expect(nextToTry(-1, 8, new Set())).toBe(3);
      expect(nextToTry(-1, 8, new Set([3]))).toBe(4);
      expect(nextToTry(-1, 8, new Set([3, 4]))).toBe(2);
      expect(nextToTry(-1, 8, new Set([3, 4, 2]))).toBe(5);
      expect(nextToTry(2, 4, new Set())).toBe(3);
      expect(nextToTry(2, 4, new Set([3]))).toBeUndefined();
      expect(nextToTry(3, 4, new Set())).toBeUndefined();
      expect(nextToTry(-1, 8, new Set([0, 1, 2, 3, 4, 5, 6, 7]))).toBeUndefined();
    });
  });
});
