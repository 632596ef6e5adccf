// Capacity under an SLO, measured on synthetic sweeps with the gate's own derive and
// judge stages: a server whose P99 latency grows with load as a queue's does,
// base / (1 − rate / saturation), measured at 5 request rates with run-to-run CV 3% on
// every variant's P99. Two SLOs: P99 ≤ 450 ms crosses at 78% of saturation, where the
// curve is steep; P99 ≤ 250 ms at 60%, where it is flatter and the same latency noise
// moves the crossing further. For each it answers three questions:
//
// 1. how much the capacity of unchanged code varies from run to run (and the gate's
//    figure, the mean of its runs), against one step of the sweep (target: less);
// 2. how often a 10% capacity loss (saturation 10% lower) fails the gate (target ≥ 90%);
// 3. how often a gate run of unchanged code fails (target ≤ 1%): the sweep's variants and
//    its capacity judged as the gate judges them, each with its share of the budget.
//
// The baseline is what the gate compares with by default: the newest 5 stored records of
// 3 runs each (baseline-window 5, runs 3). Synthetic noise, not measured inf2 runs.
//
//   npm run bench:capacity -- [--trials 2000] [--seed perf-gate]

import { trialsAndSeed } from './options.js';
import { performance } from 'node:perf_hooks';
import type { SloSpec } from '../src/config/slo.js';
import { DEFAULTS, GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import { judgeResults } from '../src/compare/judge.js';
import { deriveCapacity } from '../src/derive/capacity.js';
import type { BenchmarkResult, Metric } from '../src/model.js';
import { sidakLevel } from '../src/stats/multiplicity.js';
import { percentile } from '../src/stats/percentile.js';
import { createRng, type Rng } from './random.js';
import { percent, rateWithInterval, table } from './text.js';
import { cleanRuns } from './synthetic.js';

const RATES = [2, 4, 6, 8, 10];
const STEP = 2;
const SATURATION = 12;
const BASE_MS = 100;
const CV = 0.03;
const LIMITS_MS = [450, 250];
const RUNS = DEFAULTS.runs;
const RECORDS = DEFAULTS.baselineWindow;

const { trials, seed } = trialsAndSeed();

/** P99 latency of one run at `rate`: the queue's curve times the run's noise. */
function p99(rng: Rng, rate: number, saturation: number): number {
  return (BASE_MS / (1 - rate / saturation)) * (1 + CV * rng.normal());
}

/** One variant's result over `runs` runs (`records`: how many runs each stored record holds). */
function variant(rate: number, values: number[], records?: number[]): BenchmarkResult {
  const metric: Metric = {
    id: 'latency_p99',
    unit: 'ms',
    direction: 'lower-is-better',
    values,
    ...(records ? { records } : {}),
  };
  return {
    name: `serve/rate-${rate}`,
    format: 'vllm-bench-serve',
    metrics: [metric],
    runs: cleanRuns(values.length),
    sweep: { name: 'serve', variant: `rate-${rate}`, params: { request_rate: rate } },
  };
}

/** One side's sweep: every variant measured `runs` times. */
function sweep(rng: Rng, saturation: number, runs: number): BenchmarkResult[] {
  return RATES.map((rate) =>
    variant(
      rate,
      Array.from({ length: runs }, () => p99(rng, rate, saturation)),
    ),
  );
}

/** An SLO of P99 E2E latency ≤ `limitMs`. */
function sloOf(limitMs: number): SloSpec {
  return { objectives: [{ metric: 'e2el', limitMs, percentile: 99 }], attainment: 0.9 };
}

let SLO = sloOf(LIMITS_MS[0]!);

function capacityOf(variants: BenchmarkResult[]): BenchmarkResult {
  const derived = deriveCapacity(
    'serve',
    SLO,
    variants.map((result) => ({ variant: result.sweep!.variant, result })),
  );
  return derived.result;
}

/** The stored baseline: RECORDS gate runs of RUNS runs, pooled as the record store pools them. */
function baseline(rng: Rng): BenchmarkResult[] {
  const records = Array.from({ length: RECORDS }, () => sweep(rng, SATURATION, RUNS));
  const capacities = records.map(capacityOf);
  const pooled = RATES.map((rate, i) =>
    variant(
      rate,
      records.flatMap((record) => record[i]!.metrics[0]!.values),
      records.map(() => RUNS),
    ),
  );
  const capacity = capacities[0]!;
  const capacityValues = capacities.flatMap((c) => c.metrics[0]?.values ?? []);
  return [
    ...pooled,
    {
      ...capacity,
      metrics: [
        {
          ...capacity.metrics[0]!,
          values: capacityValues,
          records: capacities.map((c) => c.metrics[0]?.values.length ?? 0),
        },
      ],
    },
  ];
}

/** Whether one gate run fails: any variant or the capacity judged a regression. */
function gateFails(
  current: BenchmarkResult[],
  before: BenchmarkResult[],
): {
  gate: boolean;
  capacity: boolean;
} {
  // The gate's budget: each benchmark (5 variants and the capacity) its Šidák share.
  const budget = sidakLevel(GATE_FALSE_ALARM_RATE, RATES.length + 1);
  const reports = current.map(
    (result) =>
      judgeResults([result], { source: 'records', benchmarks: before }, () => ({}), {
        confidence: 0.95,
        failOnInconclusive: false,
        falseAlarmRate: budget,
      })[0]!,
  );
  return {
    gate: reports.some((r) => r.verdict === 'regression'),
    capacity: reports.at(-1)!.verdict === 'regression',
  };
}

/** One pull request: a fresh baseline and a current sweep at `saturation`. */
function trial(rng: Rng, saturation: number) {
  const before = baseline(rng);
  const variants = sweep(rng, saturation, RUNS);
  return gateFails([...variants, capacityOf(variants)], before);
}

function spreadOfUnchanged(rng: Rng): string[][] {
  const perRun: number[] = [];
  const perGate: number[] = [];
  for (let i = 0; i < trials; i += 1) {
    const values = capacityOf(sweep(rng, SATURATION, RUNS)).metrics[0]?.values ?? [];
    perRun.push(...values);
    if (values.length > 0) perGate.push(values.reduce((s, v) => s + v, 0) / values.length);
  }
  const row = (label: string, xs: number[]) => {
    const low = percentile(xs, 2.5);
    const high = percentile(xs, 97.5);
    const mean = xs.reduce((s, v) => s + v, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, v) => s + (v - mean) ** 2, 0) / (xs.length - 1));
    return [
      label,
      mean.toFixed(3),
      percent(sd / mean, 2),
      `${low.toFixed(3)}–${high.toFixed(3)}`,
      `${((high - low) / STEP).toFixed(2)} step`,
    ];
  };
  return [row('one run', perRun), row(`gate figure (mean of ${RUNS} runs)`, perGate)];
}

function scenario(
  rng: Rng,
  limitMs: number,
): { spread: string[][]; rows: string[][]; missed: string[] } {
  SLO = sloOf(limitMs);
  const spread = spreadOfUnchanged(rng);
  let caught = 0;
  let caughtCapacity = 0;
  let alarms = 0;
  let capacityAlarms = 0;
  for (let i = 0; i < trials; i += 1) {
    const loss = trial(rng, SATURATION * 0.9);
    if (loss.gate) caught += 1;
    if (loss.capacity) caughtCapacity += 1;
    const same = trial(rng, SATURATION);
    if (same.gate) alarms += 1;
    if (same.capacity) capacityAlarms += 1;
  }
  const slo = `P99 ≤ ${limitMs} ms`;
  const rows = [
    [slo, '10% capacity loss: on capacity', rateWithInterval(caughtCapacity, trials), '≥ 90%'],
    [slo, '10% capacity loss: the gate', rateWithInterval(caught, trials), '≥ 90%'],
    [slo, 'unchanged code: on capacity', rateWithInterval(capacityAlarms, trials), ''],
    [slo, 'unchanged code: the gate', rateWithInterval(alarms, trials), '≤ 1%'],
  ];
  const rangeSteps = Number(spread[0]![4]!.split(' ')[0]);
  const missed = [
    ...(rangeSteps >= 1 ? [`${slo}: the spread of one run is a sweep step or more`] : []),
    ...(caughtCapacity / trials < 0.9
      ? [`${slo}: a 10% capacity loss fails on capacity < 90%`]
      : []),
    ...(alarms / trials > 0.01 ? [`${slo}: unchanged code fails > 1% of gate runs`] : []),
  ];
  return { spread: spread.map((row) => [slo, ...row]), rows, missed };
}

const started = performance.now();
const rng = createRng(`capacity:${seed}`);
console.log(
  `Capacity under an SLO on sweeps of ${RATES.length} rates (${RATES.join(', ')} req/s, ` +
    `step ${STEP}), P99 = ${BASE_MS} ms / (1 − rate / ${SATURATION}), run CV ${percent(CV, 0)}, ` +
    `${RUNS} runs a gate run, baseline ${RECORDS} records of ${RUNS} runs; ${trials} trials each\n`,
);
const results = LIMITS_MS.map((limit) => scenario(rng, limit));
console.log(
  table(
    ['SLO', 'capacity of unchanged code', 'mean (req/s)', 'CV', '95% range', 'range / step'],
    results.flatMap((r) => r.spread),
  ),
);
console.log('');
console.log(
  table(
    ['SLO', 'gate runs', 'fail (95% Wilson interval)', 'target'],
    results.flatMap((r) => r.rows),
  ),
);
const missed = results.flatMap((r) => r.missed);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `\nwall time ${seconds} s` +
    (missed.length > 0 ? `; target(s) MISSED: ${missed.join(', ')}` : '; all targets met'),
);
