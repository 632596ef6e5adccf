// One value a gate run (github-action-benchmark's one number per commit, a benchmark with
// runs: 1): the bare threshold against the rule that learns the noise from the stored
// single-value records (src/stats/history-spread.ts), on the same series.
//
//   npm run bench:one-value -- [--series 2000] [--seed perf-gate]
//
// Each series: 20 stored records of one value (the window's 5 and 15 older), day-to-day
// noise lognormal at the series' CV, in a second model also 1 day in 20 a 25% slower value
// (a noisy neighbour: no rule that learns from 20 days can tell its next one from a
// regression, since 1 in 21 new values beats all 20); then new values of unchanged code, and of code slower by twice the
// threshold or four times the series' noise, whichever is larger. Detection counts a step
// found by the 1st or 2nd gate run after it (two commits, each against the same window,
// as pull requests are). Gated as a custom-smaller-is-better metric (threshold 10%) at the
// gate's whole false-alarm budget.

import { parseArgs } from 'node:util';
import { judgeResults } from '../src/compare/judge.js';
import { GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import type { BenchmarkResult, Metric } from '../src/model.js';
import { meanOf } from '../src/stats/mean.js';
import { createRng, type Rng } from './random.js';
import { percent, rateWithInterval, table } from './text.js';

const WINDOW = 5;
const OLDER = 15;
const THRESHOLD = 0.1;
const NOISY_FACTOR = 1.25;
const NOISY_CHANCES = [0, 0.05];
const CVS = [0.01, 0.03, 0.05];

const { values } = parseArgs({
  options: {
    series: { type: 'string', default: '2000' },
    seed: { type: 'string', default: 'perf-gate' },
  },
});
const seriesCount = Number(values.series);
if (!Number.isInteger(seriesCount) || seriesCount < 1) {
  throw new Error(`--series must be a positive integer, got ${values.series}`);
}

function day(rng: Rng, cv: number, noisyChance: number): number {
  const noisy = rng.next() < noisyChance ? NOISY_FACTOR : 1;
  return 100 * Math.exp(cv * rng.normal()) * noisy;
}

function result(metric: Metric): BenchmarkResult {
  return { name: 'bench', format: 'custom-smaller-is-better', metrics: [metric], runs: [] };
}

const metric = (values: number[]): Metric => ({
  id: 'time',
  unit: 'ms',
  direction: 'lower-is-better',
  values,
});

/** Whether each rule fails one new value against the stored records. */
function verdicts(stored: number[], now: number): { bare: boolean; history: boolean } {
  const window = stored.slice(0, WINDOW);
  const baseline: Metric = {
    ...metric(window),
    records: window.map(() => 1),
    olderRecords: stored.slice(WINDOW).map((v) => [v]),
  };
  const [report] = judgeResults(
    [result(metric([now]))],
    { source: 'records', benchmarks: [result(baseline)] },
    () => ({}),
    { confidence: 0.95, failOnInconclusive: false, falseAlarmRate: GATE_FALSE_ALARM_RATE },
  );
  return { bare: now / meanOf(window) - 1 > THRESHOLD, history: report!.verdict === 'regression' };
}

const rows: string[][] = [];
for (const noisyChance of NOISY_CHANCES)
  for (const cv of CVS) {
    const step = Math.max(2 * THRESHOLD, Math.expm1(4 * cv));
    const counts = { bareFa: 0, historyFa: 0, bareFound: 0, historyFound: 0 };
    for (let s = 0; s < seriesCount; s += 1) {
      const rng = createRng(`${values.seed}/one-value/${noisyChance}/${cv}/${s}`);
      const stored = Array.from({ length: WINDOW + OLDER }, () => day(rng, cv, noisyChance));
      const unchanged = verdicts(stored, day(rng, cv, noisyChance));
      if (unchanged.bare) counts.bareFa += 1;
      if (unchanged.history) counts.historyFa += 1;
      const first = verdicts(stored, day(rng, cv, noisyChance) * (1 + step));
      const second = verdicts(stored, day(rng, cv, noisyChance) * (1 + step));
      if (first.bare || second.bare) counts.bareFound += 1;
      if (first.history || second.history) counts.historyFound += 1;
    }
    for (const [rule, fa, found] of [
      ['bare 10% threshold', counts.bareFa, counts.bareFound],
      ['learned from 20 records', counts.historyFa, counts.historyFound],
    ] as const) {
      rows.push([
        noisyChance === 0 ? 'lognormal' : `+ ${percent(noisyChance, 0)} noisy days`,
        percent(cv, 0),
        `+${percent(step, 1)}`,
        rule,
        rateWithInterval(fa, seriesCount),
        rateWithInterval(found, seriesCount),
      ]);
    }
  }

console.log(
  `neuron-perf-gate one-value bench — ${seriesCount} series per noise level, seed "${values.seed}"; ` +
    `${WINDOW} + ${OLDER} stored records of one value; noisy days ${percent(NOISY_FACTOR - 1, 0)} slower; ` +
    'targets: unchanged code fails ≤ 1%, the step is found by the 2nd commit ≥ 90%\n',
);
console.log(
  table(
    ['noise', 'day CV', 'step', 'rule', 'unchanged code fails', 'step found by the 2nd commit'],
    rows,
  ),
);
