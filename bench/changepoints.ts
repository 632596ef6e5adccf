// How well the history finds regressions, next to Apache Otava's defaults on the same
// series (bench/otava.ts re-implements Otava; PyPI is not reachable here to run it).
//
// Nights are made with the simulator's own noise model (examples/simulated-inf2,
// lib/latency-model.mjs): each run is 10 queries of the fixed data set, times a lognormal
// drift of the whole run (CV = the run CV asked for), per-query jitter and rare 1.5×
// stalls; the metric is throughput (queries / total time), so the noise is the
// simulator's, not a normal distribution the detector assumes. Every night is analysed
// as the nightly job does: the whole history up to that night, from scratch.
//
// Figures:
// - step: a 3% slowdown at run CV 5%: share of series where a regression change point
//   naming the right first bad night (±1) is reported by the 1st, 2nd, 3rd ... night;
// - false change points per night: on series without any change, regression change points
//   that appear on a night (not there the night before), per night analysed;
// - creep: five 1% slowdowns, 8 nights apart: share flagged within 3 nights of the night
//   the total crosses 5%;
// - false issues: a gate of `--year-series` unchanged series followed for a year, night
//   by night as the nightly job does (change points, regressions, and an issue only when
//   two nights in a row show one at least the metric's threshold, 5% for throughput):
//   false regression issues opened a year;
// - issue for a step: with `--issue-trials N`, a slowdown of `--issue-step` (8%) in N gates
//   at each of `--year-runs`: the share whose issue the nightly job asks for by the 2nd,
//   3rd ... night.
// Every series is judged in a gate of `--gate-series` series (default 3: a gate of a few
// benchmarks on one machine; 1: each alone), its companions unchanged with the same kind
// of nights, as the history fits a drift across a gate's series (src/history/shared-drift.ts).
// Otava (window 50, p 0.001, one value per night: the night's mean) on the same series,
// on fewer of them (it is the slow part: about 0.3 s a series against 0.003 s).
//
//   npm run bench:changepoints -- [--trials 2000] [--null-trials 1000] [--otava-trials 200]
//                                  [--otava-null-trials 100] [--year-series 200] [--year-nights 365]
//                                  [--year-runs N] [--issue-trials 0] [--issue-step 0.08]
//                                  [--runs 3,N] [--only ours|otava]
//                                  [--detect '{"tailAlpha":0.004}'] [--seed perf-gate]
//                                  [--nights independent|night-1%|ar1-0.5|…|ar1-0.95] [--night-cv 0.01]
//                                  [--shared-nights] [--run-cv 0.05] [--gate-series 3]
//                                  [--runners 3 --runner-spread 0.015 --runner-order random|rotate]
//                                  [--runner-stay 1] [--companion-night-cv 0.015] [--step 0.03]
//
// `--runners K` (a fleet): each night of a gate runs on one of K runners of one instance
// type (at random, or in turn with `--runner-order rotate`; `--runner-stay N`: for N nights
// on average, or each N nights in turn), each with its own fixed level,
// evenly spread over ±`--runner-spread` (K = 3, 0.015: −1.5%, 0, +1.5%), recorded in the
// point's environment.runner as the gate records RUNNER_NAME.
//
// `--companion-night-cv X`: the gate's companions have nights of CV X, the series under
// test `--night-cv`'s (a quiet series beside noisy ones, the same phi); the false change
// points are then also given for the series under test alone. `--step`: the step figures'
// slowdown (0.03: each run takes 3% longer).

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { DEFAULTS } from '../src/config/defaults.js';
import { analyzeHistory } from '../src/history/analyze.js';
import type { DetectOptions } from '../src/history/changepoints.js';
import { seenTheNightBefore } from '../src/history/regressions.js';
import {
  changepointSims,
  HISTORY,
  loadSimModel,
  WATCH,
  type NightModel,
} from './changepoint-sims.js';
import { normalQuantile } from '../src/stats/distributions.js';
import { percent, table, wilson } from './text.js';
import { createRng } from './random.js';

const { values: args } = parseArgs({
  options: {
    trials: { type: 'string', default: '2000' },
    'null-trials': { type: 'string', default: '1000' },
    'otava-trials': { type: 'string', default: '200' },
    'otava-null-trials': { type: 'string', default: '100' },
    'year-series': { type: 'string', default: '200' },
    'year-nights': { type: 'string', default: '365' },
    'year-runs': { type: 'string', default: String(DEFAULTS.nightlyRuns) },
    'issue-trials': { type: 'string', default: '0' },
    'issue-step': { type: 'string', default: '0.08' },
    runs: { type: 'string', default: `3,${DEFAULTS.nightlyRuns}` },
    seed: { type: 'string', default: 'perf-gate' },
    only: { type: 'string', default: '' },
    detect: { type: 'string', default: '{}' },
    nights: { type: 'string', default: 'independent' },
    'night-cv': { type: 'string', default: '0.01' },
    'run-cv': { type: 'string', default: '0.05' },
    'shared-nights': { type: 'boolean', default: false },
    'gate-series': { type: 'string', default: '3' },
    runners: { type: 'string', default: '1' },
    'runner-spread': { type: 'string', default: '0.015' },
    'runner-order': { type: 'string', default: 'random' },
    'runner-stay': { type: 'string', default: '1' },
    'companion-night-cv': { type: 'string', default: '' },
    step: { type: 'string', default: '0.03' },
  },
});
/** A whole number ≥ `least` from a flag, or a clear error naming it. */
function wholeNumber(flag: string, text: string, least: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) {
    throw new Error(`--${flag} ${text}: a whole number ≥ ${least}`);
  }
  return value;
}

const YEAR_SERIES = wholeNumber('year-series', args['year-series'], 0);
const YEAR_NIGHTS = wholeNumber('year-nights', args['year-nights'], 1);
const RUNS_LIST = args.runs.split(',').map((runs) => wholeNumber('runs', runs, 1));
const SEED = args.seed;
const DETECT = JSON.parse(args.detect) as Partial<DetectOptions>;
const CV = Number(args['run-cv']);
const NIGHT_CV = Number(args['night-cv']);
if (!(CV > 0) || !(NIGHT_CV >= 0)) throw new Error('--run-cv must be > 0, --night-cv ≥ 0');
const COMPANION_NIGHT_CV =
  args['companion-night-cv'] === '' ? undefined : Number(args['companion-night-cv']);
if (COMPANION_NIGHT_CV !== undefined && !(COMPANION_NIGHT_CV >= 0)) {
  throw new Error('--companion-night-cv must be ≥ 0');
}
const STEP = Number(args.step);
if (!(STEP > 0)) throw new Error('--step must be > 0');
/** Series a gate holds in the step, creep and false change point figures (1: each alone). */
const GATE_SERIES = wholeNumber('gate-series', args['gate-series'], 1);

const RUNNERS = wholeNumber('runners', args.runners, 1);
const RUNNER_SPREAD = Number(args['runner-spread']);
if (!(RUNNER_SPREAD >= 0)) throw new Error('--runner-spread must be ≥ 0');
if (args['runner-order'] !== 'random' && args['runner-order'] !== 'rotate') {
  throw new Error(`--runner-order ${args['runner-order']}: random or rotate`);
}
/** Runner k's level: evenly spread over ±RUNNER_SPREAD (one runner: 1). */
function runnerLevel(k: number): number {
  return RUNNERS === 1 ? 1 : 1 + RUNNER_SPREAD * ((2 * k) / (RUNNERS - 1) - 1);
}

/** Nights a runner holds a gate: `rotate`, each in turn so long; `random`, so long on average. */
const RUNNER_STAY = wholeNumber('runner-stay', args['runner-stay'], 1);

/**
 * Which runner each night of gate `id` ran on, the same for every series of the gate:
 * `rotate`, each runner RUNNER_STAY nights in turn; `random`, a night keeps the night
 * before's runner with probability 1 − 1/RUNNER_STAY, else any runner at random (1: a
 * fresh pick every night).
 */
function nightRunners(id: string, nights: number): number[] {
  const rng = createRng(`${SEED}/runners/${id}`);
  const pick = () => Math.min(RUNNERS - 1, Math.floor(rng.next() * RUNNERS));
  const offset = pick();
  const runners: number[] = [];
  for (let night = 0; night < nights; night += 1) {
    if (args['runner-order'] === 'rotate') {
      runners.push((Math.floor(night / RUNNER_STAY) + offset) % RUNNERS);
    } else {
      const keep = night > 0 && rng.next() >= 1 / RUNNER_STAY;
      runners.push(keep ? runners[night - 1]! : pick());
    }
  }
  return runners;
}

/**
 * How nights differ besides their runs (`--nights`): `independent` (none), `night-1%`
 * (each night on its own, `--night-cv` CV, 1% by default), `ar1-0.5` … `ar1-0.95` (the
 * machine or room drifting slowly: an AR(1) night effect of `--night-cv` with that φ).
 * Every run of a night shares it; with `--shared-nights`, every series of a gate too
 * (one machine's drift, as MFU, memory and start-up share it).
 */
const NIGHT_MODELS: Record<string, NightModel> = {
  independent: { cv: 0, phi: 0 },
  'night-1%': { cv: NIGHT_CV, phi: 0 },
  ...Object.fromEntries(
    [0.5, 0.6, 0.8, 0.9, 0.95].map((phi) => [`ar1-${phi}`, { cv: NIGHT_CV, phi }]),
  ),
};
const NIGHTS_MODEL = NIGHT_MODELS[args.nights];
if (!NIGHTS_MODEL) {
  throw new Error(`--nights ${args.nights}: one of ${Object.keys(NIGHT_MODELS).join(', ')}`);
}

const sims = changepointSims(await loadSimModel(), {
  seed: SEED,
  runCv: CV,
  nights: NIGHTS_MODEL,
  sharedNights: args['shared-nights'],
  gateSeries: GATE_SERIES,
  ...(COMPANION_NIGHT_CV !== undefined ? { companionNightCv: COMPANION_NIGHT_CV } : {}),
  step: STEP,
  detect: DETECT,
  runners: (gate, nights) =>
    nightRunners(gate, nights).map((k) => ({
      level: runnerLevel(k),
      ...(RUNNERS > 1 ? { runner: `runner-${k}` } : {}),
    })),
});
const { makeSeries, gateOf, prefix, stepFigures, falseRate, creepFigures, measuredRunCv } = sims;
const oursAt = sims.ours;
const otavaAt = sims.otava;
type Detector = typeof oursAt;

/**
 * A gate of `count` series without any change, followed night by night for `nights`
 * nights as the nightly job does: every series analysed from scratch, grouped into
 * regressions, and an issue opened only when two nights in a row show a regression
 * (four, and beyond its own earlier nights, with one run a night: own-nights.ts)
 * (persistent, and seen the night before); issues are matched, kept and closed as
 * src/publish/regression-issues.ts does. Every issue is a false one.
 */
function falseIssues(
  runs: number,
  count: number,
  nights: number,
): { changePoints: number; regressions: number; issues: number; openNights: number[] } {
  const all = Array.from({ length: count }, (_, t) => {
    const series = makeSeries(`year:${runs}:${t}`, nights, () => 1, runs, `year:${runs}`);
    const benchmark = `b${t}`;
    return { ...series, benchmark, id: `g · ${benchmark} · throughput · any` };
  });
  interface Issue {
    runId: string;
    opened: number;
    closed?: number;
  }
  const issues: Issue[] = [];
  const regressionsSeen = new Set<string>();
  let changePoints = 0;
  let before = new Map<string, number[]>();
  for (let n = 1; n <= nights; n += 1) {
    const set = { series: all.map((s) => prefix(s, n)), acceptances: [], skipped: 0 };
    const { analyses, regressions } = analyzeHistory(set, { detect: DETECT });
    const now = new Map<string, number[]>();
    for (const analysis of analyses) {
      const found = analysis.changePoints
        .filter((cp) => cp.direction === 'regression' && !cp.runnerChange)
        .map((cp) => cp.firstBad.index);
      const earlier = before.get(analysis.series.id) ?? [];
      changePoints += found.filter((i) => !earlier.some((b) => Math.abs(b - i) <= 2)).length;
      now.set(analysis.series.id, found);
    }
    before = now;
    const claimed = new Set<Issue>();
    for (const regression of regressions) {
      const aliases = new Set(regression.nearbyRunIds);
      const issue = issues.find((i) => !claimed.has(i) && aliases.has(i.runId));
      if (issue) claimed.add(issue);
      if (regression.status === 'open') {
        regressionsSeen.add(regression.id);
        if (!issue && regression.persistent && seenTheNightBefore(analyses, regression, DETECT)) {
          const opened = { runId: regression.firstBad.runId, opened: n };
          issues.push(opened);
          claimed.add(opened);
        }
      } else if (issue && issue.closed === undefined) {
        issue.closed = n;
      }
    }
    for (const issue of issues)
      if (!claimed.has(issue) && issue.closed === undefined) issue.closed = n;
  }
  return {
    changePoints,
    regressions: regressionsSeen.size,
    issues: issues.length,
    openNights: issues.map((i) => (i.closed ?? nights + 1) - i.opened),
  };
}

/**
 * Nights after the first bad one until the nightly job would open an issue for a step of
 * `step` (a slowdown, beyond the 5% threshold) on the first series of a gate: a persistent
 * regression within 2 nights of it, seen the night before (∞: not within WATCH nights).
 */
function issueDelays(runs: number, trials: number, step: number): number[] {
  const delays: number[] = [];
  for (let t = 0; t < trials; t += 1) {
    const gate = gateOf(
      `issue:${runs}:${t}`,
      HISTORY + WATCH,
      // A run slower by 1/(1 − step): its throughput `step` lower.
      (n) => (n >= HISTORY ? 1 / (1 - step) : 1),
      runs,
    );
    let delay = Number.POSITIVE_INFINITY;
    for (let seen = 0; seen < WATCH; seen += 1) {
      const set = {
        series: gate.map((s) => prefix(s, HISTORY + seen + 1)),
        acceptances: [],
        skipped: 0,
      };
      const { analyses, regressions } = analyzeHistory(set, { detect: DETECT });
      const asked = regressions.some(
        (r) =>
          r.persistent &&
          Math.abs(r.firstBad.index - HISTORY) <= 2 &&
          seenTheNightBefore(analyses, r, DETECT),
      );
      if (asked) {
        delay = seen;
        break;
      }
    }
    delays.push(delay);
  }
  return delays;
}

/** A rate with its 95% interval and its count. */
function rateWithin(hits: number, total: number): string {
  const [lo, hi] = wilson(hits, total);
  return `${percent(hits / total, 2)} (${percent(lo, 2)}–${percent(hi, 2)}; ${hits}/${total})`;
}

function share(delays: number[], within: number): string {
  const hits = delays.filter((d) => d <= within).length;
  const [lo, hi] = wilson(hits, delays.length);
  return `${percent(hits / delays.length, 0)} (${percent(lo, 0)}–${percent(hi, 0)})`;
}

/**
 * Runs a night that a 3% step needs to be found by its 2nd night with probability 0.75
 * by a one-sided test at `alpha`, 2 nights against `reference` nights, at run CV `cv`:
 * (z_alpha + z_0.75)² · cv² · (1/2 + 1/reference) / step².
 */
function runsNeeded(alpha: number, cv: number, step: number, reference: number): number {
  const z = normalQuantile(1 - alpha) + normalQuantile(0.75);
  return Math.ceil(((z * cv) / step) ** 2 * (1 / 2 + 1 / reference));
}

const started = performance.now();
interface Entry {
  key: string;
  name: string;
  detector: Detector;
  trials: number;
  nullTrials: number;
}
const all: Entry[] = [
  {
    key: 'ours',
    name: 'neuron-perf-gate (every run)',
    detector: oursAt,
    trials: wholeNumber('trials', args.trials, 1),
    nullTrials: wholeNumber('null-trials', args['null-trials'], 1),
  },
  {
    key: 'otava',
    name: 'Otava window 50, p 0.001 (night means)',
    detector: otavaAt,
    trials: wholeNumber('otava-trials', args['otava-trials'], 1),
    nullTrials: wholeNumber('otava-null-trials', args['otava-null-trials'], 1),
  },
];
const detectors = all.filter((entry) => !args.only || entry.key === args.only);
const runCv = measuredRunCv();
const step = Math.log(1 + STEP);
console.log(
  `Nights: ${args.nights} (--nights), night CV ${percent(NIGHT_CV, 2)}${COMPANION_NIGHT_CV !== undefined ? ` (the companions': ${percent(COMPANION_NIGHT_CV, 2)}, --companion-night-cv)` : ''}${args['shared-nights'] ? ', shared by the series of a gate' : ''}; each series judged in a gate of ${GATE_SERIES} (--gate-series).`,
);
if (RUNNERS > 1) {
  console.log(
    `Runners: ${RUNNERS} (--runners), levels ${Array.from({ length: RUNNERS }, (_, k) => percent(runnerLevel(k) - 1, 1)).join(', ')}, ${args['runner-order'] === 'rotate' ? `each in turn for ${RUNNER_STAY} night(s)` : `each night's picked at random${RUNNER_STAY > 1 ? `, kept for ${RUNNER_STAY} nights on average` : ''}`} (the same for every series of a gate).`,
  );
}
console.log(
  `The simulator's runs at CV ${percent(CV, 0)} vary by ${percent(runCv, 1)} (log sd, stalls included). ` +
    `Runs a night for a one-sided test of 2 nights against ${HISTORY} to find a 3% step with probability 75% ` +
    `at 1% false alarms a night: ${runsNeeded(0.01, runCv, step, HISTORY)}; at 0.5%: ${runsNeeded(0.005, runCv, step, HISTORY)} ` +
    `(the default for scheduled runs, nightly-runs, is ${DEFAULTS.nightlyRuns}; pull requests run ${DEFAULTS.runs}).\n`,
);
const rows: string[][] = [];
const creepRows: string[][] = [];
/** Otava's false change points a series-night, by runs a night: each would be an alert. */
const otavaFalseRates = new Map<number, number>();
for (const runs of RUNS_LIST) {
  for (const { name, detector, trials, nullTrials } of detectors) {
    const delays = stepFigures(runs, detector, trials);
    const fp = falseRate(runs, detector, nullTrials);
    if (detector === otavaAt) otavaFalseRates.set(runs, fp.alarms / fp.nights);
    const [, fpHigh] = wilson(fp.alarms, fp.nights);
    rows.push([
      name,
      String(runs),
      `${trials} / ${nullTrials}`,
      share(delays, 0),
      share(delays, 1),
      share(delays, 2),
      share(delays, WATCH - 1),
      `${percent(fp.alarms / fp.nights, 2)} (≤ ${percent(fpHigh, 2)}; ${fp.alarms}/${fp.nights})`,
      ...(COMPANION_NIGHT_CV !== undefined ? [rateWithin(fp.first.alarms, fp.first.nights)] : []),
    ]);
    const { flagged, early } = creepFigures(runs, detector, trials);
    const [lo, hi] = wilson(flagged, trials);
    creepRows.push([
      name,
      String(runs),
      String(trials),
      `${percent(flagged / trials, 0)} (${percent(lo, 0)}–${percent(hi, 0)})`,
      percent(early / trials, 1),
    ]);
  }
}
console.log(
  `${percent(STEP, 1)} step at run CV ${percent(CV, 0)} after ${HISTORY} nights (95% intervals); found = a regression change point within ±1 night of the first bad one; false CPs: new regression change points a night on series without a change (${HISTORY + 40} nights, from the 20th on), with the 95% upper bound\n`,
);
console.log(
  table(
    [
      'detector',
      'runs/night',
      'series (step / no change)',
      'by 1st bad night',
      'by 2nd',
      'by 3rd',
      `by ${WATCH}th`,
      'false CPs/night',
      ...(COMPANION_NIGHT_CV !== undefined ? ['false CPs/night, series under test'] : []),
    ],
    rows,
  ),
);
console.log(
  `\nfive 1% creeps, 8 nights apart, run CV ${percent(CV, 0)}; flagged = a regression change point within 3 nights of crossing 5% total\n`,
);
console.log(
  table(['detector', 'runs/night', 'series', 'flagged', 'flagged before any step'], creepRows),
);
const ISSUE_TRIALS = wholeNumber('issue-trials', args['issue-trials'], 0);
const ISSUE_STEP = Number(args['issue-step']);
if (ISSUE_TRIALS > 0) {
  console.log(
    `\n${percent(ISSUE_STEP, 0)} slowdown after ${HISTORY} nights (threshold 5%): issue asked for = a persistent regression within 2 nights of the first bad one, seen the night before, as the nightly job opens one (--issue-trials, --issue-step)\n`,
  );
  const issueRows = args['year-runs'].split(',').map((text) => {
    const runs = Number(text);
    const delays = issueDelays(runs, ISSUE_TRIALS, ISSUE_STEP);
    return [
      String(runs),
      String(ISSUE_TRIALS),
      ...[1, 2, 3, 4, WATCH - 1].map((k) => share(delays, k)),
    ];
  });
  console.log(
    table(
      ['runs/night', 'series', 'by 2nd bad night', 'by 3rd', 'by 4th', 'by 5th', `by ${WATCH}th`],
      issueRows,
    ),
  );
}
const stepsDone = performance.now();
console.log(`\n${((stepsDone - started) / 1000).toFixed(1)} s`);

if (YEAR_SERIES > 0 && (!args.only || args.only === 'ours')) {
  const yearRows: string[][] = [];
  for (const runs of args['year-runs'].split(',').map(Number)) {
    const year = falseIssues(runs, YEAR_SERIES, YEAR_NIGHTS);
    const perYear = (count: number) => (count * 365) / YEAR_NIGHTS;
    const open = [...year.openNights].sort((a, b) => a - b);
    yearRows.push([
      String(runs),
      perYear(year.changePoints).toFixed(1),
      perYear(year.regressions).toFixed(1),
      `${perYear(year.issues).toFixed(1)} (${year.issues})`,
      (perYear(year.issues) / YEAR_SERIES).toFixed(3),
      open.length > 0 ? String(open[open.length >> 1]) : '–',
      String(year.openNights.filter((nights) => nights > YEAR_NIGHTS - 1).length),
    ]);
  }
  console.log(
    `\nfalse regression issues: one gate of ${YEAR_SERIES} series without any change (independent: a gate whose metrics come from the same runs groups more of them into one regression), ${YEAR_NIGHTS} nights, every night analysed as the nightly job does; an issue opens only when two nights in a row show a regression (four with one run a night)\n`,
  );
  console.log(
    table(
      [
        'runs/night',
        'regression CPs/year',
        'regressions/year',
        'issues/year (opened)',
        'issues/series/year',
        'median nights open',
        'open at the end',
      ],
      yearRows,
    ),
  );
  for (const [runs, rate] of otavaFalseRates) {
    console.log(
      `Otava on the same kind of series (${runs} runs a night): ${percent(rate, 2)} false change points a series-night, ` +
        `${(rate * 365 * YEAR_SERIES).toFixed(0)} false alerts a year for ${YEAR_SERIES} series (every new change point an alert; it has no threshold or persistence rule).`,
    );
  }
  console.log(`\n${((performance.now() - stepsDone) / 1000).toFixed(1)} s`);
}
