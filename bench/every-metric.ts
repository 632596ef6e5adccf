// Every default metric judged together (bench:accuracy --scenario every-metric): each
// simulated gate run yields ONE benchmark result carrying every metric the pipeline adds
// (src/pipeline.ts: measureAndJudge), plus the capacity of a sweep as one more benchmark
// (pipeline.ts: gateCapacity), drawn from noise shaped like the simulator's
// (examples/simulated-inf2) and like a self-hosted runner's:
//
// - throughput and the latency percentiles of 3 clean runs of the offline benchmark's 10
//   fixed queries (synthetic.ts, parsed by the gate's own parser): run CV 1% (SIM_NOISE),
//   per-query jitter 0.6 × that, 1% of queries stalled × 1.5 (SIM_OUTLIERS); the first run
//   after the server's start 0–6% slower (uniform: warm-up);
// - server_startup, one value per clean start (STARTS a gate run, see there): a model load
//   of 42 s (the simulator's) × lognormal jitter (CV 4%); the first start of a gate run reads
//   the model through a cold page cache, 5–30% slower (uniform); a gate run whose compile
//   cache was wiped compiles its 4 graphs during that first start (~310 s, CV 3%);
// - mfu and mbu, one value: the one profiled run, its drift (CV 1%) shared with the device
//   time, so a slower build lowers both (as SIM_SLOWDOWN does);
// - device_memory_peak and host_rss_peak, one value per clean run (memory-figures.ts:
//   memoryMetrics), CV 0.1% and 1.5%;
// - graphs_compiled / graphs_cached / compile_time from the compile cache's summary
//   (withCompileCache): warm, 0 compiled and 4 cached, no compile_time; with chance
//   COLD_SHARE a gate run, stored or current alike, finds its cache wiped (a new or
//   re-imaged runner, a cleaned disk): 4 compiled, 0 cached, compile_time present, and
//   `coldBefore` as the observer notes it (the folder held nothing of that compiler);
// - capacity under P99 ≤ 450 ms from a sweep of 5 request rates with 3 runs each
//   (bench/capacity.ts' queue, run CV 3%), one capacity per run index (derive/capacity.ts);
//   the sweep's variants only feed the capacity here (a config with a sweep gates them as
//   benchmarks too, each with a share of the budget: bench:capacity measures that);
// - a busy host: with chance BUSY_SHARE a gate run (stored records too) has every timing
//   (runs, starts, compile, the sweep's latencies) 2–6% slower (uniform); memory, MFU and
//   MBU (device time) are not timings of the host;
// - the host load each run recorded (runner/host-load.ts: the share of CPU other processes
//   took): a busy gate run's 20–60%, only loosely tied to how much slower it ran (its load
//   is 40% that slowdown's place in 2–6% and 60% chance: correlation about 0.55), a quiet
//   one's 0–8%, each run ± 2 points of CPU around its gate run's (normal). Drawn from a
//   stream of their own, so every other draw is the one the bench made before loads were
//   recorded; the sweep's runs record none (a capacity is derived, not run).
//
// The baseline is the record store's: the newest DEFAULTS.baselineWindow records merged
// (mergeByName) and the older ones up to --history carried for the spreads
// (withOlderRecords), every record a gate run of the same model. Judged as `compare` does
// (one look, the whole per-gate budget shared by every gated metric of both benchmarks,
// default thresholds: judgeResults), and as the action does on the same draws (judgeAction:
// each benchmark its share of the budget and its looks, adding confirmation runs, restarts
// of the server while server_startup is undecided, passes of the sweep while the capacity
// is open, as src/pipeline.ts does). Counted: gate runs of unchanged code that fail, and
// which metric failed them; detection of a 10% slower build (every latency × 1.1, throughput
// ÷ 1.1, MFU and MBU ÷ 1.1), of a 25% slower server start and of a 10% capacity loss
// (saturation × 0.9), each on the same draws as an unchanged gate run. The oracle: the
// gate on the same draws with the current gate run's busy host divided out (the best a
// rule could do knowing each day's load), for unchanged code and the slower build. Beside
// it, on the same draws, a plain reference: each gated metric on its own, a one-sided
// Welch t test at 95% of the current values against the window's (one value: a
// prediction t test). Each gate run is judged twice on the same draws: with its runs' host
// loads (compare/host-load.ts adjusts the timings) and with them stripped (the gate before
// loads were recorded).

import { withOlderRecords } from '../src/baseline/older-records.js';
import { mergeByName } from '../src/baseline/result-files.js';
import { familyMembers, judgeResults } from '../src/compare/judge.js';
import { lookAdds, type Taken } from '../src/compare/confirmation-looks.js';
import {
  lookOptions,
  needsMoreRuns,
  planLooks,
  type LookOptions,
} from '../src/compare/sequential.js';
import type { Baseline } from '../src/baseline/types.js';
import { sidakLevel } from '../src/stats/multiplicity.js';
import { builtInThreshold } from '../src/config/default-thresholds.js';
import { DEFAULTS, GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import type { SloSpec } from '../src/config/slo.js';
import { deriveCapacity } from '../src/derive/capacity.js';
import type { BenchmarkReport, BenchmarkResult, Metric } from '../src/model.js';
import { withCompileCache } from '../src/observe/compile-metrics.js';
import { MEMORY_METRICS } from '../src/observe/memory-figures.js';
import { PROFILE_METRIC } from '../src/profile/metrics.js';
import { SERVER_STARTUP_METRIC } from '../src/runner/served-benchmarks.js';
import { studentTQuantile } from '../src/stats/distributions.js';
import { meanOf } from '../src/stats/mean.js';
import { wilson } from '../src/stats/proportion.js';
import { sampleVariance, welchSpread } from '../src/stats/spread.js';
import { parseRun, sideResult } from './gate.js';
import { createRng, type Rng } from './random.js';
import { cleanRuns, drawQuerySet, offlineResult, REFERENCE_WORKLOAD } from './synthetic.js';
import { percent, table } from './text.js';

const RUNS = DEFAULTS.runs;
const RECORDS = DEFAULTS.baselineWindow;

/** Run-to-run CV of the benchmark's runs (SIM_NOISE's default) and per-query jitter (0.6 ×). */
const RUN_CV = 0.01;
const QUERY_JITTER = 0.6 * RUN_CV;
/** SIM_OUTLIERS: a query stalls × 1.5 with this chance. */
const STALL_CHANCE = 0.01;
const STALL_FACTOR = 1.5;
/** The first run after the server's start is up to this much slower (uniform). */
const FIRST_RUN_SLOWER = 0.06;

/**
 * Clean starts of the server a gate run: the benchmark's, and clean restarts after
 * profiled runs (docs/serving.md; a sweep profiling each variant restarts per variant).
 * A gate run with one start alone is judged on the history (one value a gate run).
 */
const STARTS = 3;
/** The model load, seconds (the simulator's ~42 s), its jitter, the first start's extra. */
const LOAD_SECONDS = 42;
const START_CV = 0.04;
const FIRST_START_SLOWER: readonly [number, number] = [0.05, 0.3];
/** The simulator's 4 graphs: 2 context encoding (~95 s) and 2 token generation (~60 s). */
const GRAPHS = 4;
const COMPILE_SECONDS = 2 * 95 + 2 * 60;
const COMPILE_CV = 0.03;
/** A gate run whose compile cache was wiped (a new or re-imaged runner), stored or current. */
const COLD_SHARE = 0.01;

/** The profiled run's MFU and MBU, percent. */
const MFU = 18.4;
const MBU = 36.2;
/** Peaks per clean run, MiB, and their CVs. */
const DEVICE_MIB = 9_412;
const DEVICE_CV = 0.001;
const HOST_MIB = 5_630;
const HOST_CV = 0.015;

/** A busy host: this share of gate runs has every timing slower by an amount in the range. */
const BUSY_SHARE = 0.2;
const BUSY_SLOWER: readonly [number, number] = [0.02, 0.06];
/** The share of CPU others took during a busy and a quiet gate run, and each run's jitter. */
const BUSY_LOAD: readonly [number, number] = [0.2, 0.6];
const QUIET_LOAD: readonly [number, number] = [0, 0.08];
const RUN_LOAD_SD = 0.02;
/** How much of a busy gate run's load its slowdown decides (the rest is chance). */
const LOAD_TIED = 0.4;

/** The sweep (bench/capacity.ts): P99 = 100 ms / (1 − rate / 12) × (1 + 3% noise). */
const RATES = [2, 4, 6, 8, 10];
const SATURATION = 12;
const BASE_MS = 100;
const SWEEP_CV = 0.03;
const SLO: SloSpec = {
  objectives: [{ metric: 'e2el', limitMs: 450, percentile: 99 }],
  attainment: 0.9,
};

const MAIN = 'serve';
const CAPACITY_BENCHMARK = 'sweep';

/** What a gate run's code changed: none (unchanged) or one of the changes to detect. */
interface Change {
  name: string;
  /** Every latency × (1 + this); throughput, MFU and MBU ÷ it. */
  slowdown: number;
  /** Every clean start × (1 + this). */
  startup: number;
  /** The sweep's saturation × (1 − this). */
  capacityLoss: number;
  /** The metric whose own verdict the change is meant for. */
  target?: string;
}

const UNCHANGED: Change = { name: 'unchanged', slowdown: 0, startup: 0, capacityLoss: 0 };
const CHANGES: readonly Change[] = [
  {
    name: '10% slower build (throughput ÷ 1.1)',
    slowdown: 0.1,
    startup: 0,
    capacityLoss: 0,
    target: 'throughput',
  },
  {
    name: '25% slower server start',
    slowdown: 0,
    startup: 0.25,
    capacityLoss: 0,
    target: 'server_startup',
  },
  {
    // Twice the change the issue names: how far past it every slower start is found.
    name: '50% slower server start',
    slowdown: 0,
    startup: 0.5,
    capacityLoss: 0,
    target: 'server_startup',
  },
  {
    name: '10% capacity loss',
    slowdown: 0,
    startup: 0,
    capacityLoss: 0.1,
    target: 'capacity',
  },
];

/** One trial's fixed data set (the same queries every run of every gate run). */
interface World {
  offsets: number[];
}

/** One gate run: the benchmark's result and the sweep's capacity. */
interface GateRun {
  main: BenchmarkResult;
  capacity: BenchmarkResult;
  busy: boolean;
  cold: boolean;
  /** Its timings' factor (1: the host was not busy). */
  host: number;
}

function lognormal(rng: Rng, cv: number): number {
  return Math.exp(Math.sqrt(Math.log1p(cv * cv)) * rng.normal());
}

/** `count` values drawn one after another from `rng`. */
function drawMore<T>(rng: Rng, count: number, draw: (rng: Rng) => T): T[] {
  return Array.from({ length: count }, () => draw(rng));
}

/** What the action's confirmation adds to a gate run (compare/confirmation-looks.ts, capacity-passes.ts). */
interface More {
  runs: number;
  restarts: number;
  passes: number;
  /** The stream each kind's draws come from (`${stream}/runs`, …). */
  stream: string;
}

const NO_MORE: More = { runs: 0, restarts: 0, passes: 0, stream: 'none' };

function uniform(rng: Rng, [low, high]: readonly [number, number]): number {
  return low + (high - low) * rng.next();
}

/**
 * One gate run drawn with `change`. Every random number is drawn whatever the change,
 * in the same order, so a stream gives the unchanged and the changed gate run the same noise.
 * `dayKnown`: its busy host's slowdown divided out (the oracle), the same draws otherwise.
 */
function gateRun(
  rng: Rng,
  loadRng: Rng,
  world: World,
  change: Change,
  dayKnown = false,
  more: More = NO_MORE,
): GateRun {
  const busyDraw = rng.next();
  const busyBy = uniform(rng, BUSY_SLOWER);
  const busy = busyDraw < BUSY_SHARE;
  const load = hostLoadOf(loadRng, busy, busyBy);
  // The oracle's gate run: its host's slowdown known and divided out.
  const host = busy && !dayKnown ? 1 + busyBy : 1;
  const cold = rng.next() < COLD_SHARE;

  const drawRun = (draw: Rng, run: number) => {
    const warmUp = 1 + FIRST_RUN_SLOWER * draw.next();
    const scale =
      REFERENCE_WORKLOAD.medianSeconds *
      lognormal(draw, RUN_CV) *
      (run === 0 ? warmUp : 1) *
      host *
      (1 + change.slowdown);
    const times = world.offsets.map((offset) => {
      const jitter = Math.exp(offset + QUERY_JITTER * draw.normal());
      const stall = draw.next() < STALL_CHANCE ? STALL_FACTOR : 1;
      return scale * jitter * stall;
    });
    return parseRun(JSON.stringify(offlineResult(times)));
  };
  const runs = Array.from({ length: RUNS }, (_, run) => drawRun(rng, run));
  // The action's confirmation draws come from streams of their own, after the gate run's.
  const moreRng = (kind: string) => createRng(`${more.stream}/${kind}`);
  const main = sideResult([...runs, ...drawMore(moreRng('runs'), more.runs, (d) => drawRun(d, 1))]);
  main.name = MAIN;
  main.runs = cleanRuns(RUNS + more.runs).map((run) => ({
    ...run,
    hostLoad: { other: load(), steal: 0 },
  }));

  const compileSeconds = COMPILE_SECONDS * lognormal(rng, COMPILE_CV) * host;
  const drawStart = (draw: Rng, start: number) => {
    const pageCache = 1 + uniform(draw, FIRST_START_SLOWER);
    const load = LOAD_SECONDS * lognormal(draw, START_CV) * (start === 0 ? pageCache : 1) * host;
    const compile = start === 0 && cold ? compileSeconds : 0;
    return (load + compile) * (1 + change.startup);
  };
  const starts = Array.from({ length: STARTS }, (_, start) => drawStart(rng, start));
  // Confirmation restarts: the model's page cache warm, as every restart's.
  const restarts = drawMore(moreRng('restarts'), more.restarts, (draw) => drawStart(draw, 1));
  main.metrics.push({ ...SERVER_STARTUP_METRIC, values: [...starts, ...restarts] });

  withCompileCache(main, {
    dir: '/var/tmp/neuron-compile-cache',
    graphsCompiled: cold ? GRAPHS : 0,
    compiled: cold
      ? Array.from({ length: GRAPHS }, (_, i) => `neuronxcc-2.21.18209.0/MODULE_${i}`)
      : [],
    cached: cold ? 0 : GRAPHS,
    // The observer's note: the folder held nothing of this compiler before the run.
    ...(cold ? { coldBefore: true } : {}),
    ...(cold ? { compileSeconds, compileTimeFrom: 'log' as const } : {}),
    warnings: [],
  });

  const deviceTime = lognormal(rng, RUN_CV) * (1 + change.slowdown);
  main.metrics.push(
    { id: 'mfu', ...PROFILE_METRIC, values: [MFU / deviceTime] },
    { id: 'mbu', ...PROFILE_METRIC, values: [MBU / deviceTime] },
  );

  const mib = (value: number) => Math.round(value * 10_000) / 10_000;
  const memory = (id: string, unit: string, base: number, cv: number): Metric => ({
    id,
    unit,
    direction: 'lower-is-better',
    values: [
      ...Array.from({ length: RUNS }, () => mib(base * lognormal(rng, cv))),
      ...drawMore(moreRng(id), more.runs, (draw) => mib(base * lognormal(draw, cv))),
    ],
  });
  main.metrics.push(
    memory(MEMORY_METRICS.device.id, MEMORY_METRICS.device.unit, DEVICE_MIB, DEVICE_CV),
    memory(MEMORY_METRICS.host.id, MEMORY_METRICS.host.unit, HOST_MIB, HOST_CV),
  );

  const saturation = SATURATION * (1 - change.capacityLoss);
  const p99 = (draw: Rng, rate: number) =>
    (BASE_MS / (1 - rate / saturation)) * (1 + SWEEP_CV * draw.normal()) * host;
  // A pass runs every rate once: drawn pass by pass, so a later look extends the earlier's.
  const passes = drawMore(moreRng('passes'), more.passes, (draw) =>
    RATES.map((rate) => p99(draw, rate)),
  );
  const variants = RATES.map((rate, r) => ({
    variant: `rate-${rate}`,
    result: sweepVariant(rate, [
      ...Array.from({ length: RUNS }, () => p99(rng, rate)),
      ...passes.map((pass) => pass[r]!),
    ]),
  }));
  const capacity = deriveCapacity(CAPACITY_BENCHMARK, SLO, variants).result;
  return { main, capacity, busy, cold, host };
}

/**
 * Each run's host load of one gate run: busy, tied to its slowdown only in part (LOAD_TIED);
 * quiet, a few percent. Every draw from `rng`, always as many, so streams stay aligned.
 */
function hostLoadOf(rng: Rng, busy: boolean, busyBy: number): () => number {
  const chance = rng.next();
  const tied = (busyBy - BUSY_SLOWER[0]) / (BUSY_SLOWER[1] - BUSY_SLOWER[0]);
  const [low, high] = busy ? BUSY_LOAD : QUIET_LOAD;
  const place = busy ? LOAD_TIED * tied + (1 - LOAD_TIED) * chance : chance;
  const base = low + (high - low) * place;
  return () => Math.min(1, Math.max(0, base + RUN_LOAD_SD * rng.normal()));
}

/** The gate run as the gate saw it before runs recorded the host's load. */
function withoutLoads(run: GateRun): GateRun {
  const strip = (result: BenchmarkResult): BenchmarkResult => ({
    ...result,
    runs: result.runs.map(({ hostLoad: _, ...rest }) => rest),
  });
  return { ...run, main: strip(run.main) };
}

/** One variant of the sweep as bench/capacity.ts builds it: its P99 per run. */
function sweepVariant(rate: number, values: number[]): BenchmarkResult {
  return {
    name: `${CAPACITY_BENCHMARK}/rate-${rate}`,
    format: 'vllm-bench-serve',
    metrics: [{ id: 'latency_p99', unit: 'ms', direction: 'lower-is-better', values }],
    runs: cleanRuns(values.length),
    sweep: {
      name: CAPACITY_BENCHMARK,
      variant: `rate-${rate}`,
      params: { request_rate: rate },
    },
  };
}

/** The record store's baseline of one benchmark: the window merged, the older ones for spreads. */
function storedBaseline(
  records: readonly GateRun[],
  of: (run: GateRun) => BenchmarkResult,
): BenchmarkResult {
  const [merged] = mergeByName(records.slice(0, RECORDS).map(of));
  return withOlderRecords(merged!, records.slice(RECORDS).map(of));
}

interface Judged {
  fail: boolean;
  inconclusive: boolean;
  /** Metrics judged a regression (capacity as `capacity`). */
  failed: string[];
  /** Whether a verdict says the host's load moved its baseline. */
  adjusted: boolean;
}

/** `compare`'s look: one judgement of both benchmarks at the whole budget. */
function judgeGateRun(current: GateRun, records: readonly GateRun[]): Judged {
  const baseline = {
    source: 'records',
    benchmarks: [
      storedBaseline(records, (r) => r.main),
      storedBaseline(records, (r) => r.capacity),
    ],
  };
  const reports: BenchmarkReport[] = judgeResults(
    [current.main, current.capacity],
    baseline,
    () => ({}),
    {
      confidence: DEFAULTS.confidence,
      failOnInconclusive: false,
      falseAlarmRate: GATE_FALSE_ALARM_RATE,
    },
  );
  return verdictOf(reports);
}

/**
 * The action's share of the budget for each of the two benchmarks (pipeline.ts:
 * benchmarkBudget: the measured benchmark and the sweep's capacity) and its confirmations.
 */
const ACTION_BUDGET = sidakLevel(GATE_FALSE_ALARM_RATE, 2);
const CONFIRM_RUNS = DEFAULTS.confirmRuns;

/** The action's verdict and what its confirmation added. */
interface ActionJudged extends Judged {
  taken: Taken;
  passes: number;
}

/**
 * The action's looks on the same draws (pipeline.ts: gateBenchmark, gateCapacity): each
 * benchmark planned at its first look (planLooks) and, while a metric is open, its next
 * look with what that metric needs (compare/confirmation-looks.ts: lookAdds): clean runs,
 * restarts of the server for server_startup, passes of the sweep for the capacity, each
 * drawn from streams of their own so a later look extends the earlier's draws.
 */
function judgeAction(
  draw: (more: Omit<More, 'stream'>) => GateRun,
  records: readonly GateRun[],
): ActionJudged {
  const judgeAt = (result: BenchmarkResult, baseline: Baseline, look: LookOptions) =>
    judgeResults([result], baseline, () => ({}), {
      confidence: DEFAULTS.confidence,
      failOnInconclusive: false,
      ...look,
    });
  const planOf = (result: BenchmarkResult, baseline: Baseline) =>
    planLooks(
      familyMembers([result], baseline, () => ({})),
      ACTION_BUDGET,
      CONFIRM_RUNS,
    );
  const first = draw({ runs: 0, restarts: 0, passes: 0 });

  const mainBaseline = { source: 'records', benchmarks: [storedBaseline(records, (r) => r.main)] };
  const mainPlan = planOf(first.main, mainBaseline);
  let main = judgeAt(first.main, mainBaseline, lookOptions(mainPlan, 0));
  const taken: Taken = { runs: 0, restarts: 0 };
  for (let look = 1; look < mainPlan.schedule.length && needsMoreRuns(main); look += 1) {
    const adds = lookAdds(main, mainPlan.schedule[look]!, taken, true);
    taken.runs += adds.runs;
    taken.restarts += adds.restarts;
    const current = draw({ ...taken, passes: 0 }).main;
    main = judgeAt(current, mainBaseline, lookOptions(mainPlan, look));
  }

  const sweepBaseline = {
    source: 'records',
    benchmarks: [storedBaseline(records, (r) => r.capacity)],
  };
  const sweepPlan = planOf(first.capacity, sweepBaseline);
  let sweep = judgeAt(first.capacity, sweepBaseline, lookOptions(sweepPlan, 0));
  let passes = 0;
  for (let look = 1; look < sweepPlan.schedule.length && needsMoreRuns(sweep); look += 1) {
    passes = sweepPlan.schedule[look]!;
    const current = draw({ runs: 0, restarts: 0, passes }).capacity;
    sweep = judgeAt(current, sweepBaseline, lookOptions(sweepPlan, look));
  }
  return { ...verdictOf([...main, ...sweep]), taken, passes };
}

/** The gate run's verdict from its benchmarks' reports. */
function verdictOf(reports: readonly BenchmarkReport[]): Judged {
  const metrics = reports.flatMap((r) => r.metrics);
  return {
    fail: reports.some((r) => r.verdict === 'regression'),
    inconclusive: metrics.some((m) => m.verdict === 'inconclusive'),
    failed: metrics.filter((m) => m.verdict === 'regression').map((m) => m.id),
    adjusted: metrics.some((m) => m.reason.includes('; host ')),
  };
}

/** The plain reference's level: each metric on its own, one-sided 95%. */
const PLAIN_LEVEL = 0.05;

/**
 * The plain reference: every gated metric (a default threshold) both sides measured,
 * tested on its own: one-sided Welch t at 95% of the current values against the window's
 * records pooled; one current value against them as a prediction (se × √(1 + 1/n)); no
 * spread on either side: fails when worse at all. `withThreshold`: and the change past the
 * metric's threshold. Returns the metrics that fail.
 */
function plainFails(current: GateRun, records: readonly GateRun[], withThreshold: boolean) {
  const failed: string[] = [];
  const window = records.slice(0, RECORDS);
  for (const [result, stored] of [
    [current.main, window.map((r) => r.main)],
    [current.capacity, window.map((r) => r.capacity)],
  ] as const) {
    for (const metric of result.metrics) {
      const threshold = builtInThreshold(metric.id, result.format);
      if (threshold === null) continue;
      const before = stored.flatMap((r) => r.metrics.find((m) => m.id === metric.id)?.values ?? []);
      if (before.length === 0 || metric.values.length === 0) continue;
      const worse = metric.direction === 'higher-is-better' ? -1 : 1;
      const a = metric.values;
      const difference = worse * (meanOf(a) - meanOf(before));
      const relative = difference / meanOf(before);
      if (withThreshold && !(relative > threshold)) continue;
      if (plainTTestFails(a, before, difference)) failed.push(metric.id);
    }
  }
  return failed;
}

function plainTTestFails(a: number[], b: number[], difference: number): boolean {
  const tiny = 1e-9 * Math.abs(meanOf(b));
  if (b.length < 2) return false;
  if (a.length < 2) {
    const sd = Math.sqrt(sampleVariance(b)!);
    if (sd <= tiny) return difference > tiny;
    const se = sd * Math.sqrt(1 + 1 / b.length);
    return difference / se > studentTQuantile(1 - PLAIN_LEVEL, b.length - 1);
  }
  const { se, df } = welchSpread(a, b);
  if (se <= tiny) return difference > tiny;
  return difference / se > studentTQuantile(1 - PLAIN_LEVEL, df);
}

/** "0.35% (7/2000, 95% 0.17–0.72%)", Wilson's interval. */
function rateText(count: number, trials: number): string {
  const [low, high] = wilson(count, trials);
  return `${percent(count / trials, 2)} (${count}/${trials}, 95% ${percent(low, 2)}–${percent(high, 2)})`;
}

export interface EveryMetricOptions {
  /** Gate runs of unchanged code. */
  aaRuns: number;
  /** Gate runs per change (the first of the unchanged ones' draws). */
  changedRuns: number;
  /** Records the store holds, the window's included. */
  history: number;
  seed: string;
}

interface Tally {
  fail: number;
  inconclusive: number;
  /** Gate runs the change's own metric failed. */
  onTarget: number;
  byMetric: Map<string, number>;
  /** The same gate runs judged with their host loads stripped (the gate before them). */
  before: number;
  onTargetBefore: number;
  beforeByMetric: Map<string, number>;
  plain: number;
  plainByMetric: Map<string, number>;
  plainThreshold: number;
  action: ActionTally;
}

/** The action's verdicts (judgeAction) and what its confirmations took. */
interface ActionTally {
  fail: number;
  inconclusive: number;
  onTarget: number;
  byMetric: Map<string, number>;
  /** Gate runs that restarted the server to confirm its start-up, and the restarts in all. */
  restarted: number;
  restarts: number;
  /** Confirmation runs and capacity passes in all. */
  runs: number;
  passes: number;
}

function newTally(): Tally {
  return {
    fail: 0,
    inconclusive: 0,
    onTarget: 0,
    byMetric: new Map(),
    before: 0,
    onTargetBefore: 0,
    beforeByMetric: new Map(),
    plain: 0,
    plainByMetric: new Map(),
    plainThreshold: 0,
    action: {
      fail: 0,
      inconclusive: 0,
      onTarget: 0,
      byMetric: new Map(),
      restarted: 0,
      restarts: 0,
      runs: 0,
      passes: 0,
    },
  };
}

function tallyAction(tally: ActionTally, judged: ActionJudged, target: string | undefined): void {
  if (judged.fail) tally.fail += 1;
  else if (judged.inconclusive) tally.inconclusive += 1;
  if (target && judged.failed.includes(target)) tally.onTarget += 1;
  count(tally.byMetric, judged.failed);
  if (judged.taken.restarts > 0) tally.restarted += 1;
  tally.restarts += judged.taken.restarts;
  tally.runs += judged.taken.runs;
  tally.passes += judged.passes;
}

function count(map: Map<string, number>, ids: readonly string[]): void {
  for (const id of new Set(ids)) map.set(id, (map.get(id) ?? 0) + 1);
}

/** What the A/A gate runs that failed had: a busy host (how much slower) or not. */
interface AaFailures {
  busy: number[];
  other: number;
}

function countAaFailure(failures: AaFailures, current: GateRun, judged: Judged): void {
  if (!judged.fail || current.cold) return;
  if (current.busy) failures.busy.push(current.host - 1);
  else failures.other += 1;
}

/** Runs the scenario and prints its tables; returns the targets it misses. */
export function runEveryMetricScenario(options: EveryMetricOptions): string[] {
  const stored = Math.max(RECORDS, options.history);
  const tallies = new Map<string, Tally>([UNCHANGED, ...CHANGES].map((c) => [c.name, newTally()]));
  let busyCurrent = 0;
  let coldCurrent = 0;
  let coldCurrentFails = 0;
  let coldInWindow = 0;
  /** A/A gate runs failed with their own cache warm, with loads and without. */
  const aaFailures: AaFailures = { busy: [], other: 0 };
  const aaFailuresBefore: AaFailures = { busy: [], other: 0 };
  /** Changed gate runs the load's adjustment noted on a metric's reason. */
  let adjustedNoted = 0;
  /** The oracle: the gate on the same draws with the current gate run's busy host divided out. */
  let oracleFails = 0;
  let oracleFound = 0;
  for (let trial = 0; trial < options.aaRuns; trial += 1) {
    const stream = `${options.seed}/every-metric/${trial}`;
    const world: World = {
      offsets: drawQuerySet(createRng(`${stream}/world`), REFERENCE_WORKLOAD),
    };
    const storeRng = createRng(`${stream}/records`);
    const storeLoadRng = createRng(`${stream}/records-load`);
    // Newest first, as the record store reads them.
    const records = Array.from({ length: stored }, () =>
      gateRun(storeRng, storeLoadRng, world, UNCHANGED),
    );
    const recordsBefore = records.map(withoutLoads);
    if (records.slice(0, RECORDS).some((r) => r.cold)) coldInWindow += 1;
    const changes = trial < options.changedRuns ? [UNCHANGED, ...CHANGES] : [UNCHANGED];
    const currentRun = (change: Change, dayKnown = false) =>
      gateRun(
        createRng(`${stream}/current`),
        createRng(`${stream}/current-load`),
        world,
        change,
        dayKnown,
      );
    for (const change of changes) {
      const current = currentRun(change);
      const judged = judgeGateRun(current, records);
      const before = judgeGateRun(withoutLoads(current), recordsBefore);
      const tally = tallies.get(change.name)!;
      const drawAction = (more: Omit<More, 'stream'>) =>
        gateRun(
          createRng(`${stream}/current`),
          createRng(`${stream}/current-load`),
          world,
          change,
          false,
          {
            ...more,
            stream: `${stream}/more`,
          },
        );
      tallyAction(tally.action, judgeAction(drawAction, records), change.target);
      if (judged.fail) tally.fail += 1;
      else if (judged.inconclusive) tally.inconclusive += 1;
      if (before.fail) tally.before += 1;
      if (change.target && judged.failed.includes(change.target)) tally.onTarget += 1;
      if (change.target && before.failed.includes(change.target)) tally.onTargetBefore += 1;
      count(tally.byMetric, judged.failed);
      count(tally.beforeByMetric, before.failed);
      if (judged.adjusted) adjustedNoted += 1;
      const plain = plainFails(current, records, false);
      if (plain.length > 0) tally.plain += 1;
      count(tally.plainByMetric, plain);
      if (plainFails(current, records, true).length > 0) tally.plainThreshold += 1;
      if (change === UNCHANGED || change === CHANGES[0]) {
        // On a quiet host the oracle's gate run is this one (as the gate saw it before loads).
        const known = current.busy
          ? judgeGateRun(withoutLoads(currentRun(change, true)), recordsBefore)
          : before;
        if (known.fail && change === UNCHANGED) oracleFails += 1;
        if (known.fail && change === CHANGES[0]) oracleFound += 1;
      }
      if (change === UNCHANGED) {
        if (current.busy) busyCurrent += 1;
        if (current.cold) {
          coldCurrent += 1;
          if (judged.fail) coldCurrentFails += 1;
        }
        countAaFailure(aaFailures, current, judged);
        countAaFailure(aaFailuresBefore, current, before);
      }
    }
  }
  printEveryMetric(options, tallies, {
    stored,
    busyCurrent,
    coldCurrent,
    coldCurrentFails,
    coldInWindow,
    aaFailures,
    aaFailuresBefore,
    adjustedNoted,
    oracleFails,
    oracleFound,
  });
  return missedTargets(options, tallies);
}

interface Counts {
  stored: number;
  busyCurrent: number;
  coldCurrent: number;
  coldCurrentFails: number;
  coldInWindow: number;
  aaFailures: AaFailures;
  aaFailuresBefore: AaFailures;
  adjustedNoted: number;
  oracleFails: number;
  oracleFound: number;
}

function missedTargets(options: EveryMetricOptions, tallies: Map<string, Tally>): string[] {
  const missed: string[] = [];
  const aa = tallies.get(UNCHANGED.name)!;
  for (const [who, fails] of [
    ['compare', aa.fail],
    ['the action', aa.action.fail],
  ] as const) {
    if (fails / options.aaRuns > GATE_FALSE_ALARM_RATE) {
      missed.push(`every-metric false alarms (${who}) ${percent(fails / options.aaRuns, 2)}`);
    }
  }
  // What a user's gate finds is the action's verdict, with its confirmations.
  for (const change of CHANGES) {
    const found = tallies.get(change.name)!.action.fail / options.changedRuns;
    if (found < 0.9)
      missed.push(`every-metric ${change.name} found ${percent(found)} by the action`);
  }
  return missed;
}

function failuresText(failures: AaFailures): string {
  const slower = failures.busy
    .sort((x, y) => x - y)
    .map((b) => percent(b))
    .join(', ');
  const which = failures.busy.length > 0 ? ` (${slower} slower)` : '';
  return `${failures.busy.length} on a busy host${which}, ${failures.other} on a quiet one`;
}

function printEveryMetric(
  options: EveryMetricOptions,
  tallies: Map<string, Tally>,
  counts: Counts,
): void {
  const aa = tallies.get(UNCHANGED.name)!;
  const n = options.aaRuns;
  console.log(
    `every-metric — ${n} gate runs of unchanged code and ${options.changedRuns} per change, ` +
      `seed "${options.seed}": one benchmark with every default metric (${RUNS} runs, ` +
      `${STARTS} clean starts, a profiled run) and a sweep's capacity (${RATES.length} rates × ` +
      `${RUNS} runs), against ${RECORDS} stored records and ${counts.stored - RECORDS} older ones; ` +
      `judged as compare does (one look, ${percent(GATE_FALSE_ALARM_RATE)} a gate run for both ` +
      `benchmarks together, default thresholds); a busy host in ${percent(BUSY_SHARE, 0)} of ` +
      `gate runs, a wiped compile cache in ${percent(COLD_SHARE, 0)}`,
  );
  console.log(
    `  current gate runs on a busy host: ${counts.busyCurrent}; with a wiped cache: ` +
      `${counts.coldCurrent} (${counts.coldCurrentFails} of them failed); windows holding a ` +
      `wiped-cache record: ${counts.coldInWindow}`,
  );
  console.log(
    `  unchanged gate runs failed with a warm cache: with host loads ${failuresText(counts.aaFailures)}; ` +
      `without them ${failuresText(counts.aaFailuresBefore)}`,
  );
  console.log(
    `  gate runs (every change) whose verdict names a host-load adjustment: ${counts.adjustedNoted}`,
  );
  console.log(
    `  the oracle (the gate without loads, the current gate run's busy host divided out, same ` +
      `draws): unchanged code fails ${rateText(counts.oracleFails, n)}, ${CHANGES[0]!.name} found ` +
      `${rateText(counts.oracleFound, options.changedRuns)}`,
  );
  console.log('');
  const rows: string[][] = [
    [
      'unchanged code: gate runs failed',
      rateText(aa.before, n),
      rateText(aa.fail, n),
      rateText(aa.action.fail, n),
      '≤ 0.5%',
      rateText(aa.plain, n),
      rateText(aa.plainThreshold, n),
    ],
    [
      'unchanged code, its own cache not wiped',
      '',
      rateText(aa.fail - counts.coldCurrentFails, n - counts.coldCurrent),
      '',
      '≤ 0.5%',
      '',
      '',
    ],
    [
      'unchanged code: inconclusive (passes)',
      '',
      rateText(aa.inconclusive, n),
      rateText(aa.action.inconclusive, n),
      '',
      '',
      '',
    ],
    [
      '  … server_startup failed it',
      rateText(aa.beforeByMetric.get(SERVER_STARTUP_METRIC.id) ?? 0, n),
      rateText(aa.byMetric.get(SERVER_STARTUP_METRIC.id) ?? 0, n),
      rateText(aa.action.byMetric.get(SERVER_STARTUP_METRIC.id) ?? 0, n),
      '',
      rateText(aa.plainByMetric.get(SERVER_STARTUP_METRIC.id) ?? 0, n),
      '',
    ],
  ];
  for (const change of CHANGES) {
    const t = tallies.get(change.name)!;
    const m = options.changedRuns;
    rows.push([
      `${change.name}: found`,
      rateText(t.before, m),
      rateText(t.fail, m),
      rateText(t.action.fail, m),
      '≥ 90%',
      rateText(t.plain, m),
      rateText(t.plainThreshold, m),
    ]);
    rows.push([
      `  … on ${change.target} itself`,
      rateText(t.onTargetBefore, m),
      rateText(t.onTarget, m),
      rateText(t.action.onTarget, m),
      '',
      rateText(t.plainByMetric.get(change.target!) ?? 0, m),
      '',
    ]);
  }
  console.log(
    table(
      [
        'gate runs',
        'the gate without host loads',
        'the gate (compare)',
        'the action (its looks)',
        'target',
        'plain: Welch 95% each metric',
        'plain, past threshold',
      ],
      rows,
    ),
  );
  console.log('');
  console.log("The action's confirmations (confirm-runs " + `${CONFIRM_RUNS}):`);
  console.log(
    table(
      ['gate runs', 'restarted the server', 'restarts', 'confirmation runs', 'capacity passes'],
      [UNCHANGED, ...CHANGES].map((c) => {
        const { action } = tallies.get(c.name)!;
        const runs = c === UNCHANGED ? n : options.changedRuns;
        const mean = (total: number) => (total / runs).toFixed(2);
        return [
          c.name,
          rateText(action.restarted, runs),
          `${action.restarts} (${mean(action.restarts)} a gate run)`,
          `${action.runs} (${mean(action.runs)})`,
          `${action.passes} (${mean(action.passes)})`,
        ];
      }),
    ),
  );
  console.log('');
  const ids = new Set(
    [...tallies.values()].flatMap((t) => [
      ...t.byMetric.keys(),
      ...t.beforeByMetric.keys(),
      ...t.action.byMetric.keys(),
      ...t.plainByMetric.keys(),
    ]),
  );
  console.log(
    'Which metrics failed (gate runs; a gate run may fail on several): ' +
      'compare / without loads / the action / plain',
  );
  console.log(
    table(
      ['metric', ...[UNCHANGED, ...CHANGES].map((c) => c.name)],
      [...ids].map((id) => [
        id,
        ...[UNCHANGED, ...CHANGES].map((c) => {
          const t = tallies.get(c.name)!;
          const before = t.beforeByMetric.get(id) ?? 0;
          const action = t.action.byMetric.get(id) ?? 0;
          return `${t.byMetric.get(id) ?? 0} / ${before} / ${action} / ${t.plainByMetric.get(id) ?? 0}`;
        }),
      ]),
    ),
  );
}
