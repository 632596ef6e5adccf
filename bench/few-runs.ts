// Few runs a gate run: a `vllm bench sweep` summary gives 2 runs per setting. Measured on
// synthetic sweeps with the gate's own judge stage (judgeResults, the family budget of one
// benchmark of 8 gated metrics: throughput and 7 latencies, P99s at a 15% threshold, the
// others at 5%), next to a plain Welch t test on the same draws (each metric at the
// family's Šidák level, beyond its threshold; the gate run fails when any metric does).
//
// Noise: each run's log value is a night offset (SD `night`) plus run noise (SD `run`),
// half of it shared by the 8 metrics of a run, half their own. A gate run is 2 current runs
// of one night; its stored history is records of 2 runs of other nights:
//
// - data branch: the window's 5 records and 5 older ones (10 nights; older records as the
//   git-branch store hands them over, Metric.olderRecords);
// - no history: one stored record of 2 runs (compare of one summary against another).
//
// For each: how often unchanged code fails a gate run (A/A; budget 0.5%) and how often
// every figure 10% and 15% worse does, with Wilson intervals. Synthetic noise, not
// measured inf2 runs.
//
//   npm run bench:few-runs -- [--trials 2000] [--seed perf-gate]

import { trialsAndSeed } from './options.js';
import { performance } from 'node:perf_hooks';
import { GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import { judgeResults } from '../src/compare/judge.js';
import type { BenchmarkResult, Metric } from '../src/model.js';
import { studentTQuantile } from '../src/stats/distributions.js';
import { meanOf } from '../src/stats/mean.js';
import { sidakLevel } from '../src/stats/multiplicity.js';
import { welchSpread } from '../src/stats/spread.js';
import { createRng, type Rng } from './random.js';
import { rateWithInterval, table } from './text.js';

const METRICS: { id: string; threshold: number; higher: boolean }[] = [
  { id: 'throughput', threshold: 0.05, higher: true },
  { id: 'ttft_p50', threshold: 0.05, higher: false },
  { id: 'ttft_p99', threshold: 0.15, higher: false },
  { id: 'tpot_p50', threshold: 0.05, higher: false },
  { id: 'tpot_p99', threshold: 0.15, higher: false },
  { id: 'itl_p50', threshold: 0.05, higher: false },
  { id: 'itl_p99', threshold: 0.15, higher: false },
  { id: 'e2el_p50', threshold: 0.05, higher: false },
];
const THRESHOLDS = Object.fromEntries(METRICS.map((m) => [m.id, m.threshold]));
const RUNS = 2;
const WINDOW = 5;

interface Noise {
  name: string;
  run: number;
  night: number;
}
const NOISES: Noise[] = [
  { name: 'run CV 2%', run: 0.02, night: 0 },
  { name: 'run CV 1%, night CV 2%', run: 0.01, night: 0.02 },
];
const HISTORIES = [
  { name: 'data branch (5 + 5 older records of 2 runs)', window: WINDOW, older: 5 },
  { name: 'no history (1 record of 2 runs)', window: 1, older: 0 },
];
const EFFECTS = [0, 0.1, 0.15];

const { trials, seed } = trialsAndSeed();

/** One night's runs: per run, the log value of each metric (before its level). */
function night(rng: Rng, noise: Noise): number[][] {
  const offset = METRICS.map(() => noise.night * rng.normal());
  return Array.from({ length: RUNS }, () => {
    const shared = rng.normal();
    return METRICS.map((_, i) => offset[i]! + noise.run * Math.SQRT1_2 * (shared + rng.normal()));
  });
}

function valueOf(index: number, log: number, effect: number): number {
  const worse = METRICS[index]!.higher ? -Math.log1p(effect) : Math.log1p(effect);
  return 100 * Math.exp(log + worse);
}

function metric(index: number, values: number[], extra: Partial<Metric> = {}): Metric {
  const { id, higher } = METRICS[index]!;
  return {
    id,
    unit: higher ? 'requests/s' : 'ms',
    direction: higher ? 'higher-is-better' : 'lower-is-better',
    values,
    ...extra,
  };
}

interface Trial {
  gate: boolean;
  welch: boolean;
}

const PLAIN_LEVEL = sidakLevel(GATE_FALSE_ALARM_RATE, METRICS.length);

function trial(rng: Rng, noise: Noise, history: (typeof HISTORIES)[number], effect: number): Trial {
  const stored = Array.from({ length: history.window + history.older }, () => night(rng, noise));
  const now = night(rng, noise);
  const window = stored.slice(0, history.window);
  const older = stored.slice(history.window);
  const current: BenchmarkResult = {
    name: 'sweep',
    format: 'vllm-bench-serve',
    runs: [],
    metrics: METRICS.map((_, i) =>
      metric(
        i,
        now.map((run) => valueOf(i, run[i]!, effect)),
      ),
    ),
  };
  const baseline: BenchmarkResult = {
    name: 'sweep',
    format: 'vllm-bench-serve',
    runs: [],
    metrics: METRICS.map((_, i) =>
      metric(
        i,
        window.flatMap((record) => record.map((run) => valueOf(i, run[i]!, 0))),
        {
          ...(window.length > 1 ? { records: window.map((record) => record.length) } : {}),
          ...(older.length > 0
            ? { olderRecords: older.map((record) => record.map((run) => valueOf(i, run[i]!, 0))) }
            : {}),
        },
      ),
    ),
  };
  const [report] = judgeResults(
    [current],
    { source: 'bench', benchmarks: [baseline] },
    () => THRESHOLDS,
    {
      confidence: 0.95,
      failOnInconclusive: false,
      falseAlarmRate: GATE_FALSE_ALARM_RATE,
    },
  );
  const welch = METRICS.some((m, i) => {
    const a = current.metrics[i]!.values.map(Math.log);
    const b = baseline.metrics[i]!.values.map(Math.log);
    const sign = m.higher ? -1 : 1;
    const worse = sign * (meanOf(a) - meanOf(b));
    const { se, df } = welchSpread(a, b);
    const t = studentTQuantile(1 - PLAIN_LEVEL, df);
    return worse > Math.log1p(m.threshold) && worse - t * se > 0;
  });
  return { gate: report!.verdict === 'regression', welch };
}

const started = performance.now();
const rows: string[][] = [];
for (const noise of NOISES) {
  for (const history of HISTORIES) {
    for (const effect of EFFECTS) {
      const rng = createRng(`few-runs:${seed}:${noise.name}:${history.name}:${effect}`);
      let gate = 0;
      let welch = 0;
      for (let i = 0; i < trials; i += 1) {
        const outcome = trial(rng, noise, history, effect);
        if (outcome.gate) gate += 1;
        if (outcome.welch) welch += 1;
      }
      rows.push([
        noise.name,
        history.name,
        effect === 0 ? 'unchanged (A/A)' : `${effect * 100}% worse`,
        rateWithInterval(gate, trials),
        rateWithInterval(welch, trials),
      ]);
    }
  }
}
console.log(
  `2 current runs a gate run, 8 gated metrics, budget ${GATE_FALSE_ALARM_RATE * 100}% a gate run; ` +
    `${trials} seeded draws each\n`,
);
console.log(
  table(['noise', 'history', 'change', 'gate fails (95% Wilson)', 'plain Welch t fails'], rows),
);
console.log(`\nwall time ${((performance.now() - started) / 1000).toFixed(1)} s`);
