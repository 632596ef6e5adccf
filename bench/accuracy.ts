// How often the gate fails a pull request, with and without a real slowdown, on synthetic
// offline-benchmark results that go through the gate's own parsing, aggregation and
// comparison; beside it, the single-ratio rule of github-action-benchmark on the same data.
//
//   npm run bench:accuracy -- --pairs 500 --seed perf-gate

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { ParsedRun } from '../src/formats/aggregate.js';
import type { Direction } from '../src/model.js';
import type { BenchmarkComparison } from '../src/compare/benchmark.js';
import { worsening } from '../src/compare/compare.js';
import { DEFAULT_THRESHOLDS, DEFAULTS } from '../src/config/defaults.js';
import { GATED_METRICS, judge, parseRun, singleRatioAlerts, type JudgeSettings } from './gate.js';
import { createRng } from './random.js';
import {
  drawQuerySet,
  FIXED_QUERY_JITTER,
  REFERENCE_WORKLOAD,
  syntheticRunText,
  type NoiseModel,
} from './synthetic.js';
import { percent, rateWithInterval, table } from './text.js';

interface NoiseLevel {
  name: string;
  runCv: number;
}

const NOISE_LEVELS: readonly NoiseLevel[] = [
  { name: 'quiet', runCv: 0.01 },
  { name: 'noisy', runCv: 0.05 },
];

/** The reference threshold the slowdowns are multiples of (throughput and P50: 5%). */
const REFERENCE_THRESHOLD = 0.05;
const SLOWDOWN_MULTIPLES: readonly number[] = [0, 0.5, 1, 2, 3];

const BASELINE_RECORDS = DEFAULTS.baselineWindow;
const RUNS = DEFAULTS.runs;
const CONFIRM_RUNS = DEFAULTS.confirmRuns;

interface MetricCounts {
  /** Regression on the first runs. */
  first: number;
  /** Regression in the final verdict (after confirmation when there was one). */
  final: number;
  /** Inconclusive in the final verdict. */
  inconclusive: number;
  /** Alert of the single-ratio rule. */
  single: number;
  /** Sum of the per-run spread (sd of ln value over the baseline's runs), for a mean. */
  runSpread: number;
  /** Sum of the gate's change on the first runs (worse is positive), for a mean. */
  change: number;
  /** First comparisons whose interval holds the true change (the slowdown). */
  covered: number;
}

interface CaseStats {
  noise: NoiseLevel;
  multiple: number;
  slowdown: number;
  pairs: number;
  failFirst: number;
  failFinal: number;
  inconclusive: number;
  singleFail: number;
  metrics: Map<string, MetricCounts>;
}

interface PairOutcome {
  first: BenchmarkComparison;
  final: BenchmarkComparison;
  singleAlerts: string[];
  runSpread: Map<string, number>;
}

function main(): void {
  const options = readOptions();
  const started = performance.now();
  const settingsLine =
    `baseline ${BASELINE_RECORDS} records × ${RUNS} runs = ${BASELINE_RECORDS * RUNS} runs; ` +
    `current ${RUNS} runs, +${CONFIRM_RUNS} confirmation runs when the first verdict is a regression; ` +
    `confidence ${percent(DEFAULTS.confidence, 0)}; fail-on-inconclusive off`;
  console.log(
    `neuron-perf-gate accuracy bench — ${options.pairs} pairs per case, seed "${options.seed}"`,
  );
  console.log(
    `workload: ${REFERENCE_WORKLOAD.queriesPerRun} queries/run, per-query latency lognormal ` +
      `(median ${REFERENCE_WORKLOAD.medianSeconds} s, ln-sigma ${REFERENCE_WORKLOAD.querySigma}), ` +
      `${percent(REFERENCE_WORKLOAD.outlierRate, 0)} outliers ×${REFERENCE_WORKLOAD.outlierFactor}, ` +
      `per-run drift lognormal with CV = noise level; ` +
      (options.queries === 'fixed'
        ? `the same 10 queries every run like the reference script (drawn once per pair), ` +
          `run-to-run jitter ${percent(FIXED_QUERY_JITTER, 2)} per query, so run CV ≈ the noise level ` +
          `(--queries fresh: new queries every run, run CV ≈ 5% even when "quiet")`
        : 'fresh queries drawn every run, so run CV ≈ 5% from query sampling alone'),
  );
  console.log(settingsLine);
  console.log(
    `thresholds: ${GATED_METRICS.filter((id) => id !== 'mfu')
      .map((id) => `${id} ${percent(DEFAULT_THRESHOLDS[id]!, 0)}`)
      .join(', ')}; single-ratio rule: current run 1 vs newest baseline run, same thresholds`,
  );
  console.log('');

  const cases: CaseStats[] = [];
  for (const noise of NOISE_LEVELS) {
    for (const multiple of SLOWDOWN_MULTIPLES) {
      cases.push(runCase(noise, multiple, options));
    }
  }

  printSummary(cases);
  printPerMetric(cases, 0, 'A/A (no slowdown): false alarms by metric');
  printPerMetric(
    cases,
    2,
    `2× threshold (${percent(2 * REFERENCE_THRESHOLD, 0)} slower): detections by metric`,
  );
  const missed = printTargets(cases);
  const seconds = (performance.now() - started) / 1000;
  console.log('');
  console.log(
    `wall time ${seconds.toFixed(1)} s for ${cases.length} cases × ${options.pairs} pairs` +
      (missed > 0
        ? `; ${missed} target(s) MISSED (see the MISS lines above)`
        : '; all targets met'),
  );
}

interface Options {
  pairs: number;
  seed: string;
  /**
   * fixed (default): the same 10 queries every run, as the reference script runs them, so
   * the run CV is the noise level; fresh: new queries every run.
   */
  queries: 'fresh' | 'fixed';
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      pairs: { type: 'string', default: '500' },
      seed: { type: 'string', default: 'perf-gate' },
      queries: { type: 'string', default: 'fixed' },
    },
  });
  if (values.queries !== 'fresh' && values.queries !== 'fixed') {
    throw new Error(`--queries must be fresh or fixed, got ${JSON.stringify(values.queries)}`);
  }
  const pairs = Number(values.pairs);
  if (!Number.isInteger(pairs) || pairs < 1) {
    throw new Error(`--pairs must be a positive integer, got ${JSON.stringify(values.pairs)}`);
  }
  return { pairs, seed: values.seed, queries: values.queries };
}

function runCase(noise: NoiseLevel, multiple: number, options: Options): CaseStats {
  const slowdown = multiple * REFERENCE_THRESHOLD;
  const stats: CaseStats = {
    noise,
    multiple,
    slowdown,
    pairs: options.pairs,
    failFirst: 0,
    failFinal: 0,
    inconclusive: 0,
    singleFail: 0,
    metrics: new Map(
      GATED_METRICS.map((id) => [
        id,
        { first: 0, final: 0, inconclusive: 0, single: 0, runSpread: 0, change: 0, covered: 0 },
      ]),
    ),
  };
  const model: NoiseModel = { ...REFERENCE_WORKLOAD, runCv: noise.runCv };
  for (let pair = 0; pair < options.pairs; pair += 1) {
    const stream = `${options.seed}/${noise.name}/${pair}`;
    const pairModel: NoiseModel =
      options.queries === 'fixed'
        ? {
            ...model,
            fixedQueries: {
              queryOffsets: drawQuerySet(createRng(`${stream}/queries`), model),
              queryJitter: FIXED_QUERY_JITTER,
            },
          }
        : model;
    const outcome = simulatePair(pairModel, slowdown, stream);
    if (outcome.first.verdict === 'regression') stats.failFirst += 1;
    if (outcome.final.verdict === 'regression') stats.failFinal += 1;
    else if (outcome.final.metrics.some((m) => m.verdict === 'inconclusive')) {
      stats.inconclusive += 1;
    }
    if (outcome.singleAlerts.length > 0) stats.singleFail += 1;
    for (const [id, counts] of stats.metrics) {
      const first = outcome.first.metrics.find((m) => m.id === id);
      if (first?.verdict === 'regression') counts.first += 1;
      if (first?.change != null) counts.change += worsening(first.change, first.direction);
      if (first?.ci && covers(first.ci, trueChange(slowdown, first.direction))) {
        counts.covered += 1;
      }
      const final = outcome.final.metrics.find((m) => m.id === id)?.verdict;
      if (final === 'regression') counts.final += 1;
      if (final === 'inconclusive') counts.inconclusive += 1;
      if (outcome.singleAlerts.includes(id)) counts.single += 1;
      counts.runSpread += outcome.runSpread.get(id) ?? 0;
    }
  }
  return stats;
}

/**
 * One pull request: a baseline, the first current runs, and confirmation runs when the
 * first verdict fails. The noise streams are named by noise level and pair, not by the
 * slowdown, so every slowdown of a pair sees the same draws (common random numbers): the
 * rates across slowdowns differ by the slowdown alone.
 */
function simulatePair(model: NoiseModel, slowdown: number, stream: string): PairOutcome {
  const baselineRng = createRng(`${stream}/baseline`);
  const currentRng = createRng(`${stream}/current`);
  const confirmRng = createRng(`${stream}/confirm`);
  const baseline = runs(BASELINE_RECORDS * RUNS, () => syntheticRunText(baselineRng, model));
  const current = runs(RUNS, () => syntheticRunText(currentRng, model, slowdown));
  const settings: JudgeSettings = {
    confidence: DEFAULTS.confidence,
    seed: `${stream}/${slowdown}`,
    failOnInconclusive: false,
  };
  const first = judge(current, baseline, settings);
  let final = first;
  if (first.verdict === 'regression' && CONFIRM_RUNS > 0) {
    const more = runs(CONFIRM_RUNS, () => syntheticRunText(confirmRng, model, slowdown));
    final = judge([...current, ...more], baseline, settings);
  }
  return {
    first,
    final,
    singleAlerts: singleRatioAlerts(current[0]!, baseline[baseline.length - 1]!),
    runSpread: logSpreadByMetric(baseline),
  };
}

/** A slowdown multiplies every latency: percentiles by 1 + s, throughput by 1 / (1 + s). */
function trueChange(slowdown: number, direction: Direction): number {
  return direction === 'higher-is-better' ? 1 / (1 + slowdown) - 1 : slowdown;
}

function covers(ci: [number, number], value: number): boolean {
  const tolerance = 1e-12;
  return ci[0] - tolerance <= value && value <= ci[1] + tolerance;
}

function runs(count: number, text: () => string): ParsedRun[] {
  return Array.from({ length: count }, () => parseRun(text()));
}

/** Sample sd of ln(per-run value) over the runs, per metric: how much one run moves. */
function logSpreadByMetric(parsed: ParsedRun[]): Map<string, number> {
  const byMetric = new Map<string, number[]>();
  for (const run of parsed) {
    for (const benchmark of run.benchmarks) {
      for (const metric of benchmark.metrics) {
        if (metric.value <= 0) continue;
        let logs = byMetric.get(metric.id);
        if (!logs) byMetric.set(metric.id, (logs = []));
        logs.push(Math.log(metric.value));
      }
    }
  }
  const spread = new Map<string, number>();
  for (const [id, logs] of byMetric) {
    if (logs.length < 2) continue;
    const mean = logs.reduce((sum, v) => sum + v, 0) / logs.length;
    const variance = logs.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (logs.length - 1);
    spread.set(id, Math.sqrt(variance));
  }
  return spread;
}

function printSummary(cases: CaseStats[]): void {
  console.log(
    table(
      [
        'noise',
        'slowdown',
        'pairs',
        'gate fail',
        'gate fail before confirm',
        'gate inconclusive',
        'single-ratio fail',
      ],
      cases.map((c) => [
        `${c.noise.name} (${percent(c.noise.runCv, 0)})`,
        `${percent(c.slowdown)} (${c.multiple === 0 ? 'A/A' : `${c.multiple}×`})`,
        String(c.pairs),
        percent(c.failFinal / c.pairs),
        percent(c.failFirst / c.pairs),
        percent(c.inconclusive / c.pairs),
        percent(c.singleFail / c.pairs),
      ]),
    ),
  );
}

function signedPercent(fraction: number): string {
  return `${fraction >= 0 ? '+' : ''}${percent(fraction, 2)}`;
}

function printPerMetric(cases: CaseStats[], multiple: number, title: string): void {
  console.log('');
  console.log(title);
  console.log(
    '(run-to-run sd: of ln per-run value over the 15 baseline runs; mean change and CI coverage: ' +
      'first comparison, coverage = interval holds the true change, nominal 95%)',
  );
  const rows: string[][] = [];
  for (const c of cases.filter((c) => c.multiple === multiple)) {
    for (const [id, counts] of c.metrics) {
      if (id === 'mfu') continue;
      rows.push([
        `${c.noise.name} (${percent(c.noise.runCv, 0)})`,
        id,
        percent(DEFAULT_THRESHOLDS[id]!, 0),
        percent(counts.runSpread / c.pairs),
        signedPercent(counts.change / c.pairs),
        percent(counts.covered / c.pairs),
        percent(counts.first / c.pairs),
        percent(counts.final / c.pairs),
        percent(counts.inconclusive / c.pairs),
        percent(counts.single / c.pairs),
      ]);
    }
  }
  console.log(
    table(
      [
        'noise',
        'metric',
        'threshold',
        'run-to-run sd',
        'mean change (worse +)',
        'CI coverage',
        'regression before confirm',
        'regression after confirm',
        'inconclusive',
        'single-ratio alert',
      ],
      rows,
    ),
  );
}

/** Prints the targets with PASS/MISS; returns how many were missed. */
function printTargets(cases: CaseStats[]): number {
  const find = (noise: string, multiple: number) =>
    cases.find((c) => c.noise.name === noise && c.multiple === multiple)!;
  let missed = 0;
  const line = (
    kind: 'target' | 'info',
    label: string,
    c: CaseStats,
    ok: (rate: number) => boolean,
    bound: string,
  ) => {
    const rate = c.failFinal / c.pairs;
    const pass = ok(rate);
    if (kind === 'target' && !pass) missed += 1;
    const status = kind === 'info' ? 'INFO' : pass ? 'PASS' : 'MISS';
    const marker = status === 'MISS' ? '>>> ' : '    ';
    console.log(
      `${marker}${status.padEnd(4)}  ${label}: gate fail ${rateWithInterval(c.failFinal, c.pairs)} ${bound}` +
        `  [before confirmation ${percent(c.failFirst / c.pairs)}; single-ratio ${percent(c.singleFail / c.pairs)}]`,
    );
  };
  console.log('');
  console.log('Targets (the gate fail rate after confirmation):');
  for (const noise of NOISE_LEVELS) {
    line(
      'target',
      `A/A false alarms, ${noise.name}`,
      find(noise.name, 0),
      (r) => r <= 0.01,
      '≤ 1%',
    );
  }
  line('target', 'quiet, 2× threshold (10% slower)', find('quiet', 2), (r) => r >= 0.95, '≥ 95%');
  line(
    'target',
    'quiet, 0.5× threshold (2.5% slower)',
    find('quiet', 0.5),
    (r) => r <= 0.05,
    '≤ 5%',
  );
  line(
    'info',
    'noisy, 2× threshold (10% slower)',
    find('noisy', 2),
    (r) => r >= 0.95,
    '(quiet target ≥ 95%)',
  );
  line(
    'info',
    'noisy, 0.5× threshold (2.5% slower)',
    find('noisy', 0.5),
    (r) => r <= 0.05,
    '(quiet target ≤ 5%)',
  );
  return missed;
}

main();
