// The SLO boundary searched: bracketing, regula falsi to the resolution within a run
// budget, and the interval widened by the probes' noise.
import { describe, expect, it } from 'vitest';
import {
  nextStep,
  searchBoundary,
  type BoundarySearchOptions,
} from '../../src/derive/boundary-search.js';
import { attainmentMargin, sloMargin } from '../../src/derive/slo-margin.js';
import { normal, seededRandom } from '../../src/stats/rng.js';

/** A queue's headroom at `load`: P99 = base / (1 − load / saturation) against `limitMs`. */
function queue(truth: number, noise = 0, seed = 'queue') {
  const saturation = truth * 2.5; // the limit is 1 / (1 − 0.4) of the latency at no load
  const baseMs = 1000 * (1 - truth / saturation);
  const random = seededRandom(seed);
  return (load: number) => {
    const p99 = (baseMs / Math.max(1e-9, 1 - load / saturation)) * (1 + noise * normal(random));
    return Promise.resolve(
      sloMargin([{ value: load >= saturation ? Infinity : p99, limit: 1000, holds: 'at-most' }]),
    );
  };
}

const options = (more: Partial<BoundarySearchOptions> = {}): BoundarySearchOptions => ({
  from: 1,
  to: 8,
  resolution: { relative: 0.05 },
  maxRuns: 15,
  ...more,
});

describe('the SLO margin', () => {
  it('is the smallest headroom ratio, ≥ 0 exactly when every objective holds', () => {
    expect(sloMargin([{ value: 400, limit: 500, holds: 'at-most' }])).toBeCloseTo(0.25);
    expect(sloMargin([{ value: 500, limit: 500, holds: 'at-most' }])).toBe(0);
    const both = sloMargin([
      { value: 400, limit: 500, holds: 'at-most' },
      { value: 81, limit: 90, holds: 'at-least' },
    ]);
    expect(both).toBeCloseTo(-0.1);
    expect(sloMargin([{ value: 0, limit: 500, holds: 'at-most' }])).toBe(1e6);
  });

  it('reads an attainment as the ratio of the request at that share: ≥ 0 exactly when enough met', () => {
    // 10 requests, 90% needed: the 9th best ratio decides.
    const ratios = [0.5, 0.6, 0.7, 0.7, 0.8, 0.8, 0.9, 0.9, 0.95, 3];
    expect(attainmentMargin(ratios, 0.9)).toBeCloseTo(1 / 0.95 - 1);
    const tenth = [...ratios.slice(0, 8), 1.25, 3];
    expect(attainmentMargin(tenth, 0.9)).toBeCloseTo(-0.2); // only 8 of 10 met: fails
    expect(attainmentMargin(tenth, 0.8)).toBeCloseTo(1 / 0.9 - 1); // 8 of 10 is 80%: holds
    expect(attainmentMargin([], 0.9)).toBe(-1);
  });
});

describe('the boundary search', () => {
  it('finds a queue’s crossing within the resolution in few runs', async () => {
    for (const truth of [1.3, 2.7, 4.4, 5.1, 6.04, 7.9]) {
      const result = await searchBoundary(queue(truth), options());
      expect(result.kind).toBe('crossed');
      expect(result.resolved).toBe(true);
      const [low, high] = result.bracket!;
      expect(low).toBeLessThanOrEqual(truth);
      expect(high).toBeGreaterThan(truth);
      expect(high - low).toBeLessThanOrEqual(0.05 * low + 1e-12);
      // The headroom ratio is linear in the load: the line through the probes is exact.
      expect(result.value).toBeCloseTo(truth, 6);
      expect(result.runs).toBeLessThanOrEqual(6);
    }
  });

  it('expands the range up when the SLO holds at its top, down when it fails at its bottom', async () => {
    const up = await searchBoundary(queue(20), options());
    expect(up.probes.slice(0, 3).map((p) => p.load)).toEqual([1, 8, 16]);
    expect(up.kind).toBe('crossed');
    expect(Math.abs(up.value - 20)).toBeLessThan(up.resolutionWidth);
    const down = await searchBoundary(queue(0.3), options());
    expect(down.probes.slice(0, 3).map((p) => p.load)).toEqual([1, 0.5, 0.25]);
    expect(down.kind).toBe('crossed');
    expect(Math.abs(down.value - 0.3)).toBeLessThan(down.resolutionWidth);
  });

  it('says when the budget ran out before the resolution', async () => {
    // A margin that only says held or failed: interpolation cannot help, each probe halves at best.
    const step = (load: number) => Promise.resolve(load <= 3.3 ? 1 : -1);
    const result = await searchBoundary(step, options({ maxRuns: 4 }));
    expect(result.kind).toBe('crossed');
    expect(result.resolved).toBe(false);
    expect(result.runs).toBe(4);
    expect(result.notes[0]).toMatch(/run budget \(4\) ran out before the resolution/);
    const [low, high] = result.bracket!;
    expect(low <= 3.3 && 3.3 < high).toBe(true);
  });

  it('still closes the bracket on a margin with no slope to follow', async () => {
    const step = (load: number) => Promise.resolve(load <= 3.3 ? 1 : -1);
    const result = await searchBoundary(step, options({ maxRuns: 30 }));
    expect(result.resolved).toBe(true);
    const [low, high] = result.bracket!;
    expect(high - low).toBeLessThanOrEqual(0.05 * low);
    expect(low <= 3.3 && 3.3 < high).toBe(true);
  });

  it('reports at least the top, or below the bottom, when the budget never brackets', async () => {
    const never = await searchBoundary(() => Promise.resolve(0.5), options({ maxRuns: 4 }));
    expect(never).toMatchObject({ kind: 'at-least', value: 32, resolved: false, runs: 4 });
    expect(never.notes[0]).toMatch(/held at every load probed, up to 32/);
    const always = await searchBoundary(() => Promise.resolve(-0.5), options({ maxRuns: 3 }));
    expect(always).toMatchObject({ kind: 'below', value: 0.25, resolved: false, runs: 3 });
  });

  it('stops at a concurrency of 1, saying no whole load is lower', async () => {
    const result = await searchBoundary(
      () => Promise.resolve(-0.2),
      options({ from: 2, to: 16, integer: true, maxRuns: 10 }),
    );
    expect(result).toMatchObject({ kind: 'below', value: 1, runs: 2 });
    expect(result.notes[0]).toMatch(/down to 1: the capacity is below it; no whole load is lower/);
  });

  it('refuses a probe that gives no margin', async () => {
    await expect(searchBoundary(() => Promise.resolve(NaN), options())).rejects.toThrow(
      /probe at load 1 gave no margin/,
    );
  });

  it('counts a probe of N runs as N runs against the budget', async () => {
    const result = await searchBoundary(queue(5), options({ runsPerProbe: 3, maxRuns: 10 }));
    expect(result.probes).toHaveLength(3);
    expect(result.runs).toBe(9);
  });

  it('probes whole loads for a concurrency, to a resolution of at least 1', async () => {
    const result = await searchBoundary(
      queue(11.5),
      options({ from: 1, to: 64, integer: true, resolution: { absolute: 0.5 } }),
    );
    expect(result.probes.every((p) => Number.isInteger(p.load))).toBe(true);
    expect(result.bracket).toEqual([11, 12]);
    expect(result.resolved).toBe(true);
  });

  it('widens the interval by the noise, which then holds the truth', async () => {
    let covered = 0;
    let within = 0;
    for (let trial = 0; trial < 200; trial += 1) {
      const truth = 2 + (trial % 50) / 10;
      const result = await searchBoundary(queue(truth, 0.02, `noisy-${trial}`), options());
      const [low, high] = result.interval!;
      if (low <= truth && truth <= high) covered += 1;
      if (Math.abs(result.value - truth) <= result.resolutionWidth) within += 1;
      expect(result.noiseWidening).toBeGreaterThan(0);
      expect(low).toBeLessThan(result.bracket![0]);
    }
    expect(covered).toBeGreaterThanOrEqual(190);
    expect(within).toBeGreaterThanOrEqual(190);
  });

  it('does not probe past the budget or repeat a load', () => {
    const step = nextStep(
      [
        { load: 1, margin: 0.5 },
        { load: 8, margin: -0.5 },
      ],
      options({ maxRuns: 2 }),
    );
    expect(step.kind).toBe('done');
    const next = nextStep(
      [
        { load: 1, margin: 0.5 },
        { load: 8, margin: -0.5 },
      ],
      options(),
    );
    expect(next).toEqual({ kind: 'probe', load: 4.5 });
  });

  it('refuses options it cannot search with', async () => {
    const probe = () => Promise.resolve(0);
    await expect(searchBoundary(probe, options({ from: 8, to: 1 }))).rejects.toThrow(
      /0 < from < to/,
    );
    await expect(searchBoundary(probe, options({ maxRuns: 0 }))).rejects.toThrow(/max runs 0/);
    await expect(searchBoundary(probe, options({ resolution: { relative: 0 } }))).rejects.toThrow(
      /resolution must be above 0/,
    );
  });
});
