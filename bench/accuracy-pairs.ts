// One pull request of bench:accuracy (accuracy.ts): its draws under a noise model
// (noise-models.ts) and what each rule decided, with the gate's own code. Shared with the
// quick accuracy check (accuracy-check.ts), which runs the two gated rules alone.

import { performance } from 'node:perf_hooks';
import type { BenchmarkComparison } from '../src/compare/benchmark.js';
import {
  lookOptions,
  metricsNeedMoreRuns,
  planLooks,
  type LookOptions,
} from '../src/compare/sequential.js';
import { DEFAULT_THRESHOLDS, DEFAULTS, GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import type { ParsedRun } from '../src/formats/aggregate.js';
import type { BenchmarkResult } from '../src/model.js';
import { familyLevel } from '../src/compare/family.js';
import { studentTQuantile } from '../src/stats/distributions.js';
import { changeInterval } from '../src/stats/interval.js';
import { baselineSide, judgeAgainst, parseRun, sideResult, singleRatioAlerts } from './gate.js';
import type { Scenario } from './noise-models.js';
import { learnedNoiseStatistics, oracleStatistics, summarizeRun } from './oracle.js';
import { firstRunsOnly, PLAIN_TESTS, plainTestFails } from './plain-tests.js';
import { createRng } from './random.js';
import { offlineResult } from './synthetic.js';

/** The reference threshold the slowdown is a multiple of (throughput and P50: 5%). */
export const REFERENCE_THRESHOLD = 0.05;
export const DETECT_SLOWDOWN = 2 * REFERENCE_THRESHOLD;
export const RECORDS = DEFAULTS.baselineWindow;
export const RUNS = DEFAULTS.runs;
/** The rule before issue 14 took 2 confirmation runs on a regression. */
const BEFORE_CONFIRM_RUNS = 2;

/** What one path decided for one pull request. */
export interface PathOutcome {
  fail: boolean;
  inconclusive: boolean;
  extraRuns: number;
}

export const PATHS = ['compare', 'action', 'before #14', 'single-ratio', ...PLAIN_TESTS] as const;
export type PathName = (typeof PATHS)[number];

export interface Detectable {
  /** Smallest slowdown detected 95% of the time. */
  change: number;
  /** Standard error of the log change. */
  se: number;
}

/** Records a scenario's store holds, the window's included (Scenario.storedRecords), given the bench's `--history`. */
export function storedRecords(scenario: Scenario, history: number): number {
  return Math.max(RECORDS, scenario.storedRecords ?? history);
}

export interface PairResult {
  paths: Record<PathName, PathOutcome>;
  firstLook: BenchmarkComparison;
  lastLook: BenchmarkComparison;
  detectable: Detectable | undefined;
  oracle: { known: number[]; learned: number[] };
}

/** The gated rules' outcomes for one pull request: `compare` (one look) and the action. */
export interface GatedOutcome {
  compare: PathOutcome;
  action: PathOutcome;
  /** compare's look (the first look at the whole budget). */
  firstLook: BenchmarkComparison;
  /** The action's last look. */
  lastLook: BenchmarkComparison;
}

/** One pull request's draws, and the looks at them. */
interface PairDraws {
  baseline: ParsedRun[][];
  olderRecords: ParsedRun[][];
  current: ParsedRun[];
  confirm: ParsedRun[];
  storedBaseline: BenchmarkResult | undefined;
  judgeAt(runs: ParsedRun[], look?: Partial<LookOptions>): BenchmarkComparison;
}

function drawPair(
  scenario: Scenario,
  slowdown: number,
  stream: string,
  confirmRuns: number,
  stored: number,
): PairDraws {
  // Records 0 (oldest) … stored − 1 (newest) on their days, the pull request on the next.
  const world = scenario.world(createRng(`${stream}/world`), stored);
  const baselineRng = createRng(`${stream}/baseline`);
  const olderRng = createRng(`${stream}/older`);
  const currentRng = createRng(`${stream}/current`);
  const confirmRng = createRng(`${stream}/confirm`);
  const recordOf = (rng: ReturnType<typeof createRng>, record: number) =>
    Array.from({ length: RUNS }, () => runOf(world.run(rng, { side: 'baseline', record }, 0)));
  const older = stored - RECORDS;
  // The window: the newest RECORDS records; before them, the older ones, newest first.
  const baseline: ParsedRun[][] = Array.from({ length: RECORDS }, (_, i) =>
    recordOf(baselineRng, older + i),
  );
  const olderRecords: ParsedRun[][] = Array.from({ length: older }, (_, i) =>
    recordOf(olderRng, older - 1 - i),
  );
  const place = { side: 'current', record: stored } as const;
  const current = Array.from({ length: RUNS }, () => runOf(world.run(currentRng, place, slowdown)));
  const confirm = Array.from({ length: Math.max(confirmRuns, BEFORE_CONFIRM_RUNS) }, () =>
    runOf(world.run(confirmRng, place, slowdown)),
  );
  const seed = `${stream}/${slowdown}`;
  // Built once: every look of this pull request compares with the same stored records.
  const storedBaseline = baselineSide(baseline, olderRecords);
  const judgeAt = (runs: ParsedRun[], look: Partial<LookOptions> = {}) =>
    judgeAgainst(runs, storedBaseline, {
      confidence: DEFAULTS.confidence,
      seed,
      failOnInconclusive: false,
      ...look,
    });

  return { baseline, olderRecords, current, confirm, storedBaseline, judgeAt };
}

/**
 * What `compare` and the action decide for one pull request (the runs named by `stream`):
 * the same draws and looks as simulatePair's, without the other rules.
 */
export function simulateGated(
  scenario: Scenario,
  slowdown: number,
  stream: string,
  confirmRuns: number,
  stored: number,
): GatedOutcome {
  return gatedOutcome(drawPair(scenario, slowdown, stream, confirmRuns, stored), confirmRuns);
}

function gatedOutcome(
  { current, confirm, storedBaseline, judgeAt }: PairDraws,
  confirmRuns: number,
): GatedOutcome {
  const firstLook = judgeAt(current, { falseAlarmRate: GATE_FALSE_ALARM_RATE });
  const compare = outcomeOf(firstLook, 0);

  // The action: the same looks as src/pipeline.ts, a batch of confirmation runs at a time,
  // planned at the first look (one look at the whole budget when runs cannot pay off).
  const plan = planLooks(
    [{ current: sideResult(current), baseline: storedBaseline, thresholds: DEFAULT_THRESHOLDS }],
    GATE_FALSE_ALARM_RATE,
    confirmRuns,
  );
  const { schedule } = plan;
  let look = judgeAt(current, lookOptions(plan, 0));
  let extra = 0;
  for (let k = 1; k < schedule.length && metricsNeedMoreRuns(look.metrics); k += 1) {
    extra = schedule[k]!;
    look = judgeAt([...current, ...confirm.slice(0, extra)], lookOptions(plan, k));
  }
  const action = outcomeOf(look, extra);
  return { compare, action, firstLook, lastLook: look };
}

export function simulatePair(
  scenario: Scenario,
  slowdown: number,
  stream: string,
  confirmRuns: number,
  stored: number,
): PairResult {
  const pair = drawPair(scenario, slowdown, stream, confirmRuns, stored);
  const { baseline, olderRecords, current, confirm, storedBaseline, judgeAt } = pair;
  const { compare, action, firstLook, lastLook } = gatedOutcome(pair, confirmRuns);

  // Before issue 14: each metric at 95% on its own; 2 runs more when the first look fails.
  const old = judgeAt(current);
  const before =
    old.verdict === 'regression'
      ? outcomeOf(
          judgeAt([...current, ...confirm.slice(0, BEFORE_CONFIRM_RUNS)]),
          BEFORE_CONFIRM_RUNS,
        )
      : outcomeOf(old, 0);

  const single = singleRatioAlerts(current[0]!, baseline[RECORDS - 1]![RUNS - 1]!).length > 0;
  // The same draws: every run the action could take, the window and the older records.
  const draws = {
    current: current.map(summarizeRun),
    confirm: confirm.slice(0, confirmRuns).map(summarizeRun),
    window: baseline.map((record) => record.map(summarizeRun)),
    older: olderRecords.map((record) => record.map(summarizeRun)),
  };
  const plain = (test: (typeof PLAIN_TESTS)[number]): PathOutcome => {
    const first = firstRunsOnly(test);
    const runs = first ? draws.current : [...draws.current, ...draws.confirm];
    return {
      fail: plainTestFails(test, runs, draws.window.flat(), GATE_FALSE_ALARM_RATE),
      inconclusive: false,
      extraRuns: first ? 0 : confirmRuns,
    };
  };
  return {
    paths: {
      compare,
      action,
      'before #14': before,
      'single-ratio': { fail: single, inconclusive: false, extraRuns: 0 },
      ...(Object.fromEntries(PLAIN_TESTS.map((test) => [test, plain(test)])) as Record<
        (typeof PLAIN_TESTS)[number],
        PathOutcome
      >),
    },
    firstLook,
    lastLook,
    detectable: minimumDetectable(sideResult(current), storedBaseline),
    oracle: timedOracle(() => ({
      known: oracleStatistics(draws),
      learned: learnedNoiseStatistics(draws),
    })),
  };
}

/** Time spent on the oracle's statistics (oracle.ts), to show what it adds to the bench. */
let oracleMs = 0;

/** Milliseconds spent so far on the oracle's statistics. */
export function oracleMilliseconds(): number {
  return oracleMs;
}

function timedOracle<T>(statistics: () => T): T {
  const started = performance.now();
  const values = statistics();
  oracleMs += performance.now() - started;
  return values;
}

/**
 * The smallest P50 slowdown that `compare` (one look at these runs, the whole per-gate
 * budget) fails 95% of the time, from this pair's standard error of the change: the
 * estimate must clear both the test, (t(1 − level) + t(0.95)) standard errors, and the
 * threshold, ln(1 + threshold) + t(0.95) standard errors. What no rule at this
 * false-alarm level can beat with these runs, whatever it does with them.
 */
function minimumDetectable(
  now: BenchmarkResult,
  before: BenchmarkResult | undefined,
): Detectable | undefined {
  const id = 'latency_p50';
  const a = now.metrics.find((m) => m.id === id);
  const b = before?.metrics.find((m) => m.id === id);
  if (!a || !b || !before) return undefined;
  const spread = changeInterval(a, b, { confidence: 0.95, seed: 'detectable' }).spread;
  if (!spread) return undefined;
  const { level } = familyLevel(
    [{ current: now, baseline: before, thresholds: DEFAULT_THRESHOLDS }],
    GATE_FALSE_ALARM_RATE,
  );
  const power = studentTQuantile(0.95, spread.df);
  const test = (studentTQuantile(1 - level, spread.df) + power) * spread.se;
  const threshold = Math.log1p(DEFAULT_THRESHOLDS[id]!) + power * spread.se;
  return { change: Math.expm1(Math.max(test, threshold)), se: spread.se };
}

function outcomeOf(comparison: BenchmarkComparison, extraRuns: number): PathOutcome {
  return {
    fail: comparison.verdict === 'regression',
    inconclusive: comparison.metrics.some((m) => m.verdict === 'inconclusive'),
    extraRuns,
  };
}

function runOf(rawTimes: number[]): ParsedRun {
  return parseRun(JSON.stringify(offlineResult(rawTimes)));
}
