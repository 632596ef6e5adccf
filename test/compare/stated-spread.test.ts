// One value a side with the spread its file states (a github-action-benchmark `range`):
// the noise of last resort, read in the forms the action writes (its src/extract.ts).
import { describe, expect, it } from 'vitest';
import { judgeResults } from '../../src/compare/judge.js';
import { parseResultText } from '../../src/formats/index.js';
import { statedSpread } from '../../src/formats/stated-spread.js';
import type { BenchmarkResult } from '../../src/model.js';
import { benchmarkResults, fixtureJson } from '../formats/support.js';

describe('statedSpread', () => {
  it.each([
    ['± 7527', 37174, 'ns/iter', 7527 / 37174], // cargo (extractCargoResult), Catch2
    ['+/- 1,234', 10000, 'ns/iter', 0.1234], // older action versions kept libtest's words
    ['±1.12%', 11465, 'ops/sec', 0.0112], // benchmark.js
    ['+-1.70%', 81.61, 'ops/sec', 0.017], // benchmark.js's other sign, which its regex allows
    ['stddev: 0.0001', 2500, 'iter/sec', 0.25], // pytest: seconds beside ops
    ['stddev: 0.0001', 2, 'ms', 0.05], // seconds beside a time in ms
  ])('reads %j of %d %s as a relative SD', (range, value, unit, expected) => {
    expect(statedSpread(range, value, unit)).toBeCloseTo(expected, 12);
  });

  it.each([['n/a'], ['± 0'], ['stddev: 3'], [42], [null]])('reads nothing from %j', (range) => {
    // "stddev: 3" beside a unit that is neither a time nor a rate says nothing relative.
    expect(statedSpread(range, 10, 'x')).toBeUndefined();
  });

  it('reads no range that is more likely in another unit than its value', () => {
    // Catch2 through the action (its test/data/extract/catch2_output.txt): a mean of
    // 3.789 us beside an SD of 362 ns, whose unit the action drops.
    expect(statedSpread('± 362', 3.789, 'us')).toBeUndefined();
    // A stddev in seconds says nothing relative beside megabytes a second.
    expect(statedSpread('stddev: 0.01', 500, 'MB/s')).toBeUndefined();
  });
});

const SMALLER = 'custom-smaller-is-better';
type Entry = { name: string; value: number; range?: string; unit: string };

function result(entries: Entry[]): BenchmarkResult {
  const parsed = parseResultText(JSON.stringify(entries), 'bench.json', SMALLER);
  return benchmarkResults(parsed, 'bench.json', 'custom')[0]!;
}

function judge(now: Entry[], before: Entry[]) {
  const [report] = judgeResults(
    [result(now)],
    { source: 'baseline.json', benchmarks: [result(before)] },
    () => ({}),
    { confidence: 0.95, failOnInconclusive: false },
  );
  return report!;
}

describe('one value a side with a stated range (cargo bench through github-action-benchmark)', () => {
  const before = fixtureJson<Entry[]>('custom/cargo-range.json');
  const slower = (factor: number, range: (e: Entry) => string | undefined) =>
    before.map((entry) => {
      const value = Math.round(entry.value * factor);
      const stated = range(entry);
      return { ...entry, value, ...(stated ? { range: stated } : { range: undefined }) };
    });

  it('keeps a change within the files’ own spread from failing, and says which noise it used', () => {
    // +12% on bench_fib_10 (±12 of 151 now, of 135 before: ±7.9% and ±8.9%) is beyond the
    // 10% threshold but not beyond the noise the two files state.
    const report = judge(
      slower(1.12, (e) => e.range),
      before,
    );
    const fib10 = report.metrics.find((m) => m.id === 'bench_fib_10')!;
    expect(fib10.verdict).toBe('inconclusive');
    expect(fib10.ci).not.toBeNull();
    expect(fib10.reason).toContain(
      "the noise the files state in their range, ±7.9% this run's and ±8.9% the baseline's",
    );
  });

  it('fails a change beyond both the threshold and the stated spread', () => {
    // +30% on bench_fib_20 (±4.1% a side).
    const report = judge(
      slower(1.3, (e) => e.range),
      before,
    );
    const fib20 = report.metrics.find((m) => m.id === 'bench_fib_20')!;
    expect(fib20.verdict).toBe('regression');
    expect(fib20.reason).toMatch(/^30\.0% higher \(95% CI \d/);
  });

  it('reads each side’s range in its own unit when the sides’ units differ', () => {
    // 1500 ± 15 ms against 1.8 ± 0.018 s: ±1% each, and 20% slower beyond both.
    const report = judge(
      [{ name: 'load', value: 1.8, range: '± 0.018', unit: 's' }],
      [{ name: 'load', value: 1500, range: '± 15', unit: 'ms' }],
    );
    const load = report.metrics.find((m) => m.id === 'load')!;
    expect(load.reason).toContain("±1.0% this run's and ±1.0% the baseline's");
    expect(load.verdict).toBe('regression');
    const { statedRange } = load.noise as { statedRange: { current: number; baseline: number } };
    expect(statedRange.current).toBeCloseTo(0.01, 12);
    expect(statedRange.baseline).toBeCloseTo(0.01, 12);
  });

  it('keeps the bare threshold, saying so, when a side states no range', () => {
    const report = judge(
      slower(1.12, () => undefined),
      before,
    );
    const fib10 = report.metrics.find((m) => m.id === 'bench_fib_10')!;
    expect(fib10.verdict).toBe('regression');
    expect(fib10.reason).toContain('no noise estimate');
  });
});
