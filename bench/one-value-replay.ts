// One value a commit (github-action-benchmark's one number per benchmark per commit, a
// benchmark with runs: 1), replayed as the gate sees it on the default branch: every
// commit is judged against the records stored before it and stored with its verdict (a
// regression's record leaves the baseline, as select.ts does), on the same draws for the
// bare threshold and for the gate's rule (src/stats/history-spread.ts, src/compare/one-value.ts).
//
// Noise shapes (NOISE_SHAPES) measured on 45 real histories of 5 projects' gh-pages
// dev/bench/data.js (hyperium/hyper, rune-rs/rune, risc0/risc0, huggingface/safetensors and
// benchmark-action/github-action-benchmark's own examples; cargo, go, benchmark.js,
// googlecpp and pytest), one number per commit: their commit-to-commit spread, tails,
// autocorrelation and one-commit spikes; plus the two plain models of bench:one-value.
//
// Per series: 20 stored records of unchanged code, then UNCHANGED_COMMITS more commits of
// unchanged code (each one's verdict counts as a same-code re-run), then a step of twice
// the threshold or four times the series' own noise (the SD of its log values), whichever
// is larger, found when the 1st or 2nd commit after it fails.

import { judgeResults } from '../src/compare/judge.js';
import { GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import type { BenchmarkResult, Metric } from '../src/model.js';
import { meanOf } from '../src/stats/mean.js';
import { sampleVariance } from '../src/stats/spread.js';
import { createRng, type Rng } from './random.js';
import { percent, rateWithInterval, table } from './text.js';

const WINDOW = 5;
const STORED = 20;
const UNCHANGED_COMMITS = 10;
const THRESHOLD = 0.1;

/** A series' noise: each call draws the next commit's factor (1 = the true value). */
type Noise = (rng: Rng) => number;

interface NoiseShape {
  name: string;
  /** Where the shape was seen, with its parameters. */
  description: string;
  /** A fresh series' noise (state such as AR(1) lives in the closure). */
  series: () => Noise;
}

const lognormal =
  (cv: number): NoiseShape['series'] =>
  () =>
  (rng) =>
    Math.exp(cv * rng.normal());

/** Student's t with `df` degrees of freedom from normals (df an integer). */
function studentT(rng: Rng, df: number): number {
  let chiSquare = 0;
  for (let i = 0; i < df; i += 1) chiSquare += rng.normal() ** 2;
  return rng.normal() / Math.sqrt(chiSquare / df);
}

export const NOISE_SHAPES: readonly NoiseShape[] = [
  {
    name: 'lognormal 5%',
    description: 'independent lognormal commits, CV 5% (bench:one-value)',
    series: lognormal(0.05),
  },
  {
    name: 'noisy days',
    description: 'lognormal CV 3%, and 1 commit in 20 is 25% slower (bench:one-value)',
    series: () => (rng) => Math.exp(0.03 * rng.normal()) * (rng.next() < 0.05 ? 1.25 : 1),
  },
  {
    name: 'quiet machine',
    description: 'a dedicated machine (risc0 on its own Macs): CV 0.3%, AR(1) φ 0.4',
    series: () => {
      const phi = 0.4;
      let level = 0;
      return (rng) => {
        level = phi * level + Math.sqrt(1 - phi * phi) * 0.003 * rng.normal();
        return Math.exp(level);
      };
    },
  },
  {
    name: 'shared runner',
    description: 'GitHub-hosted runners (rune, the action’s examples, hyper): CV 9%, independent',
    series: lognormal(0.09),
  },
  {
    name: 'two machines',
    description: 'hyper 2021: 45% of commits on a machine 38% slower, CV 6% on each',
    series: () => (rng) => Math.exp(0.06 * rng.normal()) * (rng.next() < 0.45 ? 1.38 : 1),
  },
  {
    name: 'heavy tails',
    description: 'I/O-bound (safetensors): Student t 3 df, scale 12%; 5% spikes +30–60%',
    series: () => (rng) => {
      const spike = rng.next() < 0.05 ? 1.3 + 0.3 * rng.next() : 1;
      return Math.exp(0.12 * studentT(rng, 3)) * spike;
    },
  },
];

/** The SD of a shape's log values, from a long series of its own draws. */
function logSd(shape: NoiseShape, seed: string): number {
  const rng = createRng(`${seed}/sd/${shape.name}`);
  const draw = shape.series();
  return Math.sqrt(sampleVariance(Array.from({ length: 20_000 }, () => Math.log(draw(rng))))!);
}

interface Stored {
  value: number;
  regression: boolean;
}

type Rule = (stored: readonly Stored[], now: number) => 'regression' | 'inconclusive' | 'other';

/** The newest accepted records, newest first: a regression's record leaves the baseline. */
function accepted(stored: readonly Stored[]): number[] {
  return stored.filter((record) => !record.regression).map((record) => record.value);
}

const bare: Rule = (stored, now) =>
  now / meanOf(accepted(stored).slice(0, WINDOW)) - 1 > THRESHOLD ? 'regression' : 'other';

const metric = (values: number[]): Metric => ({
  id: 'time',
  unit: 'ms',
  direction: 'lower-is-better',
  values,
});

const result = (m: Metric): BenchmarkResult => ({
  name: 'bench',
  format: 'custom-smaller-is-better',
  metrics: [m],
  runs: [],
});

/** The gate's verdict on one new value (custom-smaller-is-better, threshold 10%). */
const gate: Rule = (stored, now) => {
  const values = accepted(stored).slice(0, STORED);
  const window = values.slice(0, WINDOW);
  const baseline: Metric = {
    ...metric(window),
    records: window.map(() => 1),
    olderRecords: values.slice(WINDOW).map((v) => [v]),
  };
  const [report] = judgeResults(
    [result(metric([now]))],
    { source: 'records', benchmarks: [result(baseline)] },
    () => ({}),
    { confidence: 0.95, failOnInconclusive: false, falseAlarmRate: GATE_FALSE_ALARM_RATE },
  );
  const verdict = report!.metrics.find((m) => m.id === 'time')!.verdict;
  return verdict === 'regression' || verdict === 'inconclusive' ? verdict : 'other';
};

interface Tally {
  unchangedFails: number;
  unchangedInconclusive: number;
  found: number;
}

/** One series replayed under `rule`; the same seed gives both rules the same draws. */
function replay(shape: NoiseShape, step: number, rule: Rule, seed: string, tally: Tally): void {
  const rng = createRng(seed);
  const noise = shape.series();
  const stored: Stored[] = [];
  const commit = (factor: number) => {
    const value = 100 * noise(rng) * factor;
    const verdict = stored.length >= STORED ? rule(stored, value) : 'other';
    stored.unshift({ value, regression: verdict === 'regression' });
    return verdict;
  };
  for (let i = 0; i < STORED; i += 1) commit(1);
  for (let i = 0; i < UNCHANGED_COMMITS; i += 1) {
    const verdict = commit(1);
    if (verdict === 'regression') tally.unchangedFails += 1;
    if (verdict === 'inconclusive') tally.unchangedInconclusive += 1;
  }
  const first = commit(1 + step);
  const second = commit(1 + step);
  if (first === 'regression' || second === 'regression') tally.found += 1;
}

export interface OneValueReplayOptions {
  series: number;
  seed: string;
}

/** Prints the replay's table; returns the targets it misses (≤ 1% same-code fails, ≥ 90% found). */
export function runOneValueReplay(options: OneValueReplayOptions): string[] {
  const rows: string[][] = [];
  const missed: string[] = [];
  for (const shape of NOISE_SHAPES) {
    const sd = logSd(shape, options.seed);
    const step = Math.max(2 * THRESHOLD, Math.expm1(4 * sd));
    for (const [name, rule] of [
      ['bare 10% threshold', bare],
      ['gate (learned, 2 in a row)', gate],
    ] as const) {
      const tally: Tally = { unchangedFails: 0, unchangedInconclusive: 0, found: 0 };
      for (let s = 0; s < options.series; s += 1) {
        replay(shape, step, rule, `${options.seed}/one-value-replay/${shape.name}/${s}`, tally);
      }
      const commits = options.series * UNCHANGED_COMMITS;
      rows.push([
        shape.name,
        percent(sd),
        `+${percent(step, 0)}`,
        name,
        rateWithInterval(tally.unchangedFails, commits),
        percent(tally.unchangedInconclusive / commits),
        rateWithInterval(tally.found, options.series),
      ]);
      if (rule === gate && tally.unchangedFails / commits > 0.01) {
        missed.push(`one-value ${shape.name} same-code fails`);
      }
      if (rule === gate && tally.found / options.series < 0.9) {
        missed.push(`one-value ${shape.name} detection`);
      }
    }
  }
  console.log(
    `one value a commit, replayed on the default branch — ${options.series} series per noise shape: ` +
      `${STORED} stored records, ${UNCHANGED_COMMITS} commits of unchanged code, then a step of ` +
      `max(2 × ${percent(THRESHOLD, 0)}, 4 × the series' log SD); targets: same-code commits fail ≤ 1%, ` +
      'the step is found by the 2nd commit ≥ 90%\n',
  );
  for (const shape of NOISE_SHAPES) console.log(`  ${shape.name.padEnd(14)} ${shape.description}`);
  console.log('');
  console.log(
    table(
      [
        'noise',
        'log SD',
        'step',
        'rule',
        'same-code commits fail',
        'inconclusive',
        'step found by the 2nd commit',
      ],
      rows,
    ),
  );
  return missed;
}
