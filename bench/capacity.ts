// Capacity under an SLO, measured on synthetic sweeps with the gate's own derive and
// judge stages: a server whose P99 latency grows with load as a queue's does,
// base / (1 − rate / saturation), measured at 5 request rates with run-to-run CV 3% on
// every variant's P99, and on a noisier host at CV 10%. Two SLOs: P99 ≤ 450 ms crosses at
// 78% of saturation, where the curve is steep; P99 ≤ 250 ms at 60%, where it is flatter
// and the same latency noise moves the crossing further. For each it answers:
//
// 1. how much the capacity of unchanged code varies from run to run (and the gate's
//    figure, the mean of its runs), against one step of the sweep (target: less);
// 2. how often a 10% capacity loss (saturation 10% lower) fails the gate (target ≥ 90%);
// 3. how often a gate run of unchanged code fails (target ≤ 1%): the sweep's variants and
//    its capacity judged as the gate judges them, each with its share of the budget.
//
// The capacity is judged twice on the same draws: in one look with its whole share (the
// rule before confirmation passes), and as the gate judges it now, with passes of the
// whole sweep while it is open (compare/capacity-passes.ts, up to confirm-runs 10 passes,
// every variant one more draw a pass); the passes taken are counted. The variants are
// judged in one look either way. The baseline is what the gate compares with by default:
// the newest 5 stored records of 3 runs each (baseline-window 5, runs 3). Synthetic
// noise, not measured inf2 runs.
//
//   npm run bench:capacity -- [--trials 2000] [--seed perf-gate]

import { trialsAndSeed } from './options.js';
import { performance } from 'node:perf_hooks';
import type { SloSpec } from '../src/config/slo.js';
import { DEFAULTS, GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import { familyMembers, judgeResults } from '../src/compare/judge.js';
import { deriveCapacity, type DerivedCapacity } from '../src/derive/capacity.js';
import { MemoryLogger } from '../src/log.js';
import type { BenchmarkReport, BenchmarkResult, Metric, RunOutcome } from '../src/model.js';
import type { LookOptions } from '../src/compare/sequential.js';
import type { FamilyMember } from '../src/compare/family.js';
import type { Baseline } from '../src/baseline/types.js';
import { judgeCapacityWithPasses } from '../src/compare/capacity-passes.js';
import type { BenchmarkSpec } from '../src/config/types.js';
import { sidakLevel } from '../src/stats/multiplicity.js';
import { percentile } from '../src/stats/percentile.js';
import { createRng, type Rng } from './random.js';
import { percent, rateWithInterval, table } from './text.js';
import { cleanRuns } from './synthetic.js';

const RATES = [2, 4, 6, 8, 10];
const STEP = 2;
const SATURATION = 12;
const BASE_MS = 100;
const CVS = [0.03, 0.1];
let CV = CVS[0]!;
const LIMITS_MS = [450, 250];
const CONFIRM_PASSES = DEFAULTS.confirmRuns;
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

/** The gate's budget: each benchmark (5 variants and the capacity) its Šidák share. */
const BUDGET = sidakLevel(GATE_FALSE_ALARM_RATE, RATES.length + 1);

function judged(result: BenchmarkResult, baseline: Baseline, look: Partial<LookOptions>) {
  return judgeResults([result], baseline, () => ({}), {
    confidence: 0.95,
    failOnInconclusive: false,
    falseAlarmRate: BUDGET,
    ...look,
  });
}

interface GateRun {
  /** A variant or the capacity in one look failed (the rule before passes). */
  before: boolean;
  capacityBefore: boolean;
  /** A variant or the capacity after its passes failed (the rule now). */
  after: boolean;
  capacityAfter: boolean;
  passes: number;
}

/** One gate run: the variants in one look, the capacity in one look and with passes. */
async function gateRun(
  rng: Rng,
  saturation: number,
  current: number[][],
  before: BenchmarkResult[],
): Promise<GateRun> {
  const baseline: Baseline = { source: 'records', benchmarks: before };
  const variants = current.map((values, i) => variant(RATES[i]!, values));
  const variantFails = variants.some((v) => judged(v, baseline, {})[0]!.verdict === 'regression');
  const capacityBefore = judged(capacityOf(variants), baseline, {})[0]!.verdict === 'regression';
  // The passes draw their runs as the gate takes them: every variant one more a pass.
  const draws = current.map((values) => [...values]);
  const runOnce = async (spec: BenchmarkSpec, index: number): Promise<RunOutcome> => {
    const at = RATES.indexOf(spec.sweep!.params.request_rate as number);
    draws[at]!.push(p99(rng, RATES[at]!, saturation));
    return { index, kind: 'clean', ok: true } as RunOutcome;
  };
  const measure = async (spec: BenchmarkSpec) => {
    const at = RATES.indexOf(spec.sweep!.params.request_rate as number);
    return variant(RATES[at]!, draws[at]!);
  };
  const judge = async (
    derived: DerivedCapacity,
    lookOf: (members: FamilyMember[]) => LookOptions,
  ): Promise<BenchmarkReport[]> =>
    judged(derived.result, baseline, lookOf(familyMembers([derived.result], baseline, () => ({}))));
  const specs = variants.map(
    (v) => ({ name: v.name, sweep: v.sweep, slo: SLO }) as unknown as BenchmarkSpec,
  );
  const [capacity] = await judgeCapacityWithPasses(
    { name: 'serve', slo: SLO },
    specs.map((spec, i) => ({
      spec,
      outcomes: current[i]!.map((_, r) => ({ index: r + 1 }) as RunOutcome),
      result: variants[i]!,
    })),
    { budget: BUDGET, maxPasses: CONFIRM_PASSES, log: new MemoryLogger(), runOnce, judge, measure },
  );
  const capacityAfter = capacity!.verdict === 'regression';
  return {
    before: variantFails || capacityBefore,
    capacityBefore,
    after: variantFails || capacityAfter,
    capacityAfter,
    passes: capacity!.confirmation?.sweepPasses ?? 0,
  };
}

/** One pull request: a fresh baseline and a current sweep at `saturation`. */
function trial(rng: Rng, saturation: number): Promise<GateRun> {
  const before = baseline(rng);
  const current = RATES.map((rate) =>
    Array.from({ length: RUNS }, () => p99(rng, rate, saturation)),
  );
  return gateRun(rng, saturation, current, before);
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

/** Counts of one kind of gate run: failures before and after, and the passes taken. */
class Tally {
  before = 0;
  capacityBefore = 0;
  after = 0;
  capacityAfter = 0;
  passes = 0;
  add(run: GateRun): void {
    this.before += Number(run.before);
    this.capacityBefore += Number(run.capacityBefore);
    this.after += Number(run.after);
    this.capacityAfter += Number(run.capacityAfter);
    this.passes += run.passes;
  }
}

async function scenario(
  rng: Rng,
  limitMs: number,
  cv: number,
): Promise<{ spread: string[][]; rows: string[][]; missed: string[] }> {
  SLO = sloOf(limitMs);
  CV = cv;
  const spread = spreadOfUnchanged(rng);
  const loss = new Tally();
  const same = new Tally();
  for (let i = 0; i < trials; i += 1) {
    loss.add(await trial(rng, SATURATION * 0.9));
    same.add(await trial(rng, SATURATION));
  }
  const label = `P99 ≤ ${limitMs} ms, CV ${percent(cv, 0)}`;
  const rate = (n: number) => rateWithInterval(n, trials);
  const passes = (t: Tally) => (t.passes / trials).toFixed(2);
  const rows = [
    [
      label,
      '10% loss: on capacity',
      rate(loss.capacityBefore),
      rate(loss.capacityAfter),
      passes(loss),
      '≥ 90%',
    ],
    [label, '10% loss: the gate', rate(loss.before), rate(loss.after), '', '≥ 90%'],
    [
      label,
      'unchanged: on capacity',
      rate(same.capacityBefore),
      rate(same.capacityAfter),
      passes(same),
      '',
    ],
    [label, 'unchanged: the gate', rate(same.before), rate(same.after), '', '≤ 1%'],
  ];
  const rangeSteps = Number(spread[0]![4]!.split(' ')[0]);
  const missed = [
    ...(rangeSteps >= 1 ? [`${label}: the spread of one run is a sweep step or more`] : []),
    ...(loss.capacityAfter / trials < 0.9
      ? [`${label}: a 10% capacity loss fails on capacity < 90%`]
      : []),
    ...(same.after / trials > 0.01 ? [`${label}: unchanged code fails > 1% of gate runs`] : []),
  ];
  return { spread: spread.map((row) => [label, ...row]), rows, missed };
}

const started = performance.now();
const rng = createRng(`capacity:${seed}`);
console.log(
  `Capacity under an SLO on sweeps of ${RATES.length} rates (${RATES.join(', ')} req/s, ` +
    `step ${STEP}), P99 = ${BASE_MS} ms / (1 − rate / ${SATURATION}), run CV ` +
    `${CVS.map((cv) => percent(cv, 0)).join(' and ')}, ${RUNS} runs a gate run, up to ` +
    `${CONFIRM_PASSES} passes, baseline ${RECORDS} records of ${RUNS} runs; ${trials} trials each\n`,
);
const results = [];
for (const cv of CVS) for (const limit of LIMITS_MS) results.push(await scenario(rng, limit, cv));
console.log(
  table(
    [
      'SLO, run CV',
      'capacity of unchanged code',
      'mean (req/s)',
      'CV',
      '95% range',
      'range / step',
    ],
    results.flatMap((r) => r.spread),
  ),
);
console.log('');
console.log(
  table(
    [
      'SLO, run CV',
      'gate runs',
      'fail, one look (before)',
      'fail, with passes (now)',
      'passes a gate run',
      'target',
    ],
    results.flatMap((r) => r.rows),
  ),
);
const missed = results.flatMap((r) => r.missed);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `\nwall time ${seconds} s` +
    (missed.length > 0 ? `; target(s) MISSED: ${missed.join(', ')}` : '; all targets met'),
);
