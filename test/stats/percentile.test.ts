import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mean, median, percentile, percentiles } from '../../src/stats/percentile.js';

// Debian's numpy is installed for the system interpreter, not for a pyenv python on PATH.
const SYSTEM_PYTHON = '/usr/bin/python3';
const PS = [0, 1, 5, 25, 33.3, 50, 75, 90, 95, 99, 99.9, 100];

interface Case {
  label: string;
  values: number[];
}

/** mulberry32: a tiny seeded generator, so the arrays are the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generatedCases(): Case[] {
  const random = seededRandom(20260815);
  const uniform = (n: number) => Array.from({ length: n }, () => random());
  // Latency-like: a long right tail, in seconds.
  const latencies = (n: number) => Array.from({ length: n }, () => 0.3 * Math.exp(random()));
  const duplicates = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 4));
  return [
    { label: 'one value', values: [0.4217] },
    { label: 'two values', values: [0.9, 0.1] },
    { label: 'three values', values: uniform(3) },
    { label: 'ten latencies', values: latencies(10) },
    { label: '101 uniform', values: uniform(101) },
    { label: '1000 latencies', values: latencies(1000) },
    { label: '12345 uniform', values: uniform(12345) },
    { label: 'many duplicates', values: duplicates(57) },
    { label: 'all equal', values: Array.from({ length: 9 }, () => 7.25) },
    { label: 'negative and positive', values: uniform(40).map((v) => (v - 0.5) * 1e6) },
    { label: 'tiny magnitudes', values: uniform(33).map((v) => v * 1e-9) },
  ];
}

function numpyPercentiles(cases: Case[]): number[][] {
  const script =
    'import json, sys, numpy as np\n' +
    'request = json.load(sys.stdin)\n' +
    'print(json.dumps([[float(np.percentile(np.array(values, dtype=float), p)) ' +
    'for p in request["ps"]] for values in request["cases"]]))';
  let output: string;
  try {
    output = execFileSync(SYSTEM_PYTHON, ['-c', script], {
      input: JSON.stringify({ ps: PS, cases: cases.map((c) => c.values) }),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    throw new Error(
      `numpy is needed to check percentiles: apt-get install python3-numpy (${String(error)})`,
      { cause: error },
    );
  }
  return JSON.parse(output) as number[][];
}

function expectClose(actual: number, expected: number, context: string): void {
  const tolerance = 1e-12 * Math.max(Math.abs(expected), Number.MIN_VALUE);
  expect(Math.abs(actual - expected), context).toBeLessThanOrEqual(tolerance);
}

describe('percentile against numpy', () => {
  const cases = generatedCases();
  const expected = numpyPercentiles(cases);

  it.each(cases.map((c, index) => [c.label, index] as const))(
    'matches np.percentile: %s',
    (_, index) => {
      const { values } = cases[index]!;
      PS.forEach((p, column) => {
        expectClose(percentile(values, p), expected[index]![column]!, `p=${p}`);
      });
    },
  );

  it('percentiles() sorts once and gives the same numbers', () => {
    const index = cases.findIndex((c) => c.label === '1000 latencies');
    const all = percentiles(cases[index]!.values, PS);
    PS.forEach((p, column) => expectClose(all[column]!, expected[index]![column]!, `p=${p}`));
  });
});

describe('percentile, known values', () => {
  it('interpolates between closest ranks', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    // rank (5 − 1) × 0.4 = 1.6: 20 + 0.6 × (35 − 20)
    expect(percentile([15, 20, 35, 40, 50], 40)).toBeCloseTo(29, 12);
    expect(percentile([10, 0], 25)).toBe(2.5);
  });

  it('gives the minimum at 0 and the maximum at 100', () => {
    const values = [3, -1, 8, 2];
    expect(percentile(values, 0)).toBe(-1);
    expect(percentile(values, 100)).toBe(8);
  });

  it('reproduces the reference offline benchmark P50/P95/P99', () => {
    // raw_times and metrics.p*_time of test/fixtures/formats/offline-benchmark/reference.json
    const rawTimes = [0.2961, 0.3012, 0.2987, 0.3071, 0.3105, 0.295, 0.334, 0.3972, 0.312, 0.315];
    expect(percentile(rawTimes, 50)).toBeCloseTo(0.30879999999999996, 15);
    expect(percentile(rawTimes, 95)).toBeCloseTo(0.36876000000000003, 15);
    expect(percentile(rawTimes, 99)).toBeCloseTo(0.391512, 15);
  });

  it('returns the single value for any p', () => {
    for (const p of [0, 37.5, 100]) expect(percentile([0.42], p)).toBe(0.42);
  });

  it('leaves the input unsorted', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });

  it('rejects empty input, p outside 0..100 and non-finite values', () => {
    expect(() => percentile([], 50)).toThrow(/at least one value/);
    expect(() => percentile([1], -0.1)).toThrow(/between 0 and 100/);
    expect(() => percentile([1], 100.01)).toThrow(/between 0 and 100/);
    expect(() => percentile([1], Number.NaN)).toThrow(/between 0 and 100/);
    expect(() => percentile([1, Number.NaN], 50)).toThrow(/finite/);
    expect(() => percentiles([1], [50, 101])).toThrow(/between 0 and 100/);
  });
});

describe('median and mean', () => {
  it('median is the 50th percentile', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('mean averages and rejects empty input', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(mean([0.25])).toBe(0.25);
    expect(() => mean([])).toThrow(/at least one value/);
    expect(() => median([])).toThrow(/at least one value/);
  });
});
