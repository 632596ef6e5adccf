// `neuron-perf-gate compare` on guidellm 0.1.x reports, from the committed bundle: a report
// against itself passes, and a copy with one kind of per-request time worse fails on the
// metrics computed from that time alone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';
import { compareTexts, failingIds } from '../support/compare-files.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'formats', 'guidellm');
/** v0.1.0: first_token_time from the start, decode_times between tokens. */
const SWEEP = readFileSync(join(FIXTURES, 'v0.1-sweep.json'), 'utf8');
/** guidellm main of 2025: first_token_time and last_token_time since the epoch. */
const LAST_TOKEN_TIME = readFileSync(join(FIXTURES, 'v0.1-last-token-time.json'), 'utf8');

const WORSE = 1.3;

interface Result {
  start_time: number;
  end_time: number;
  first_token_time: number | null;
  last_time?: number;
  last_token_time?: number | null;
  decode_times?: { data: number[] };
}
interface Benchmark {
  mode: string;
  rate: number | null;
  results: Result[];
}
type Args = { mode: string };
type Report = { benchmarks: { benchmarks: Benchmark[]; args: Args }[] };
type Change = (benchmark: Benchmark, args: Args) => void;

/** The report's text with every benchmark changed by `change`. */
function changed(text: string, change: Change): string {
  const data = JSON.parse(text) as Report;
  for (const report of data.benchmarks) {
    for (const benchmark of report.benchmarks) change(benchmark, report.args);
  }
  return JSON.stringify(data);
}

/** Every request's first token 30% later from its start (v0.1.0 keeps it apart). */
function ttftSlower(benchmark: Benchmark): void {
  for (const result of benchmark.results) result.first_token_time! *= WORSE;
}

/** Every gap between two tokens 30% longer. */
function decodeSlower(benchmark: Benchmark): void {
  for (const result of benchmark.results) {
    result.decode_times!.data = result.decode_times!.data.map((gap) => gap * WORSE);
  }
}

/**
 * The last request sent later, each request as fast as before: the benchmark's duration
 * (first start to last end, guidellm 0.1's) 30% longer, so requests/s and tokens/s fall.
 * The points of a sweep ran at rates computed from the measured ones, so theirs fall too;
 * a rate the user gave stays.
 */
function rateLower(benchmark: Benchmark, args: Args): void {
  const { results } = benchmark;
  const last = results[results.length - 1]!;
  const shift = (last.end_time - results[0]!.start_time) * (WORSE - 1);
  last.start_time += shift;
  last.end_time += shift;
  if (last.last_time !== undefined) last.last_time += shift;
  if (typeof last.last_token_time === 'number') last.last_token_time += shift;
  if (last.decode_times === undefined) last.first_token_time! += shift;
  if (args.mode === 'sweep' && benchmark.rate !== null) benchmark.rate /= WORSE;
}

const RATES = /^(throughput|tokens_per_second)$/;
const NAMES: Record<string, string[]> = {
  'v0.1-sweep.json': ['synchronous', 'throughput', 'constant@11.1111%', 'constant@22.2222%'],
  'v0.1-last-token-time.json': ['constant@2'],
};

const CASES: { file: string; text: string; metric: string; change: Change; only: RegExp }[] = [
  { file: 'v0.1-sweep.json', text: SWEEP, metric: 'ttft', change: ttftSlower, only: /^ttft_/ },
  {
    file: 'v0.1-sweep.json',
    text: SWEEP,
    metric: 'itl/tpot',
    change: decodeSlower,
    only: /^(itl|tpot)_/,
  },
  { file: 'v0.1-sweep.json', text: SWEEP, metric: 'throughput', change: rateLower, only: RATES },
  {
    file: 'v0.1-last-token-time.json',
    text: LAST_TOKEN_TIME,
    metric: 'throughput',
    change: rateLower,
    only: RATES,
  },
];

describe('compare on guidellm 0.1.x reports', () => {
  it.each([
    ['v0.1-sweep.json', SWEEP],
    ['v0.1-last-token-time.json', LAST_TOKEN_TIME],
  ])('passes %s against itself, read as guidellm', async (file, text) => {
    const same = await compareTexts(text, text);
    expect(same.code, same.stderr).toBe(0);
    expect(same.report.benchmarks.map((b: { name: string }) => b.name)).toEqual(NAMES[file]);
    expect(same.report.benchmarks[0].format).toBe('guidellm');
    expect(failingIds(same.report)).toEqual([]);
  });

  it.each(CASES)('$file: $metric worse alone fails on it only', async (c) => {
    const worse = await compareTexts(c.text, changed(c.text, c.change));
    expect(worse.code, worse.stdout + worse.stderr).toBe(1);
    const ids = failingIds(worse.report);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(id).toMatch(c.only);
    // The names stayed, so every benchmark met its baseline and was judged against it.
    const judged = worse.report.benchmarks as { name: string; verdict: string }[];
    expect(judged.map((b) => b.name)).toEqual(NAMES[c.file]);
    for (const benchmark of judged)
      expect(benchmark.verdict, benchmark.name).not.toBe('no-baseline');
  });
});
