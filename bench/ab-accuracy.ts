// A/B mode under the day-drift scenario's noise (noise-models.ts: fixed queries, run CV
// 1.5%, a day ±2% shared by everything measured that day) and a host that also drifts
// during the session (AR(1) over the run sequence, φ 0.9, 1% CV): both sides run in ABBA
// blocks on one host (src/ab/schedule.ts) and go through the gate's own parsing and
// paired judgement (src/stats/paired.ts via compareBenchmark), with confirmation blocks
// as src/ab/run-ab.ts takes them. Beside it, on the same draws: a plain paired t-test on
// the blocks' P50 differences (df blocks − 1) with the same threshold and level, and the
// best this statistic can do, the paired change against its true A/A distribution
// (its 0.5% quantile known from the A/A draws). Accelerator runs per pull request are
// counted, for the comparison with the stored mode's runs + confirmation runs.

import { AB_DEFAULTS } from '../src/ab/gate-ab.js';
import { abbaBlocks, type ScheduledRun } from '../src/ab/schedule.js';
import { compareBenchmark, type BenchmarkComparison } from '../src/compare/benchmark.js';
import { lookLevels } from '../src/compare/judge.js';
import {
  lookOptions,
  metricsNeedMoreRuns,
  planLooks,
  type LookOptions,
} from '../src/compare/sequential.js';
import { DEFAULT_THRESHOLDS, DEFAULTS, GATE_FALSE_ALARM_RATE } from '../src/config/defaults.js';
import type { ParsedRun } from '../src/formats/aggregate.js';
import type { BenchmarkResult } from '../src/model.js';
import { studentTQuantile } from '../src/stats/distributions.js';
import { parseRun, sideResult } from './gate.js';
import { SCENARIOS } from './noise-models.js';
import { createRng, type Rng } from './random.js';
import { offlineResult } from './synthetic.js';
import { percent, rateWithInterval, table } from './text.js';
import { meanOf } from '../src/stats/mean.js';

const SESSION_PHI = 0.9;
const SESSION_CV = 0.01;
const P50_THRESHOLD = DEFAULT_THRESHOLDS.latency_p50!;

export interface AbBenchOptions {
  pairs: number;
  aaPairs: number;
  seed: string;
  blocks?: number;
  confirmBlocks?: number;
}

interface AbOutcome {
  fail: boolean;
  runs: number;
  plainFail: boolean;
  /** A pooled two-sample t-test on the same first-look runs, blocks ignored. */
  pooledFail: boolean;
  /** The paired change of P50 at the first look (log), for the best-possible rule. */
  center: number;
}

/** Runs the A/B scenario and prints its table; returns the rows' detection and false alarms. */
export function runAbScenario(options: AbBenchOptions): { detected: number; falseAlarms: number } {
  const blocks = options.blocks ?? AB_DEFAULTS.blocks;
  const confirmBlocks = options.confirmBlocks ?? AB_DEFAULTS.confirmBlocks;
  const draw = (slowdown: number, count: number) =>
    Array.from({ length: count }, (_, pair) =>
      abPair(`${options.seed}/ab-day-drift/${pair}`, slowdown, blocks, confirmBlocks),
    );
  const unchanged = draw(0, options.aaPairs);
  // The interval alone: every threshold 0.1%, so only the paired test stands between an
  // unchanged pull request and a false alarm (the budget, 0.5% per gate run, is its bound).
  const tiny = Object.fromEntries(Object.keys(DEFAULT_THRESHOLDS).map((id) => [id, 0.001]));
  const intervalOnly = Array.from({ length: options.aaPairs }, (_, pair) =>
    abPair(`${options.seed}/ab-day-drift/${pair}`, 0, blocks, confirmBlocks, tiny),
  );
  const slowed = draw(0.1, options.pairs);
  // Best possible for this statistic: its A/A distribution known, the level the gate spends.
  const sorted = unchanged.map((o) => o.center).sort((a, b) => a - b);
  const cut = sorted[Math.floor((1 - GATE_FALSE_ALARM_RATE) * (sorted.length - 1))]!;
  const best = (o: AbOutcome) => o.center > Math.max(cut, Math.log1p(P50_THRESHOLD));
  const count = (list: AbOutcome[], test: (o: AbOutcome) => boolean) => list.filter(test).length;
  const runs = (list: AbOutcome[]) => list.reduce((s, o) => s + o.runs, 0) / list.length;
  const maxRuns = 4 * (blocks + confirmBlocks);
  console.log('');
  console.log(
    `ab-day-drift: A/B on one host, ${blocks} ABBA blocks (${2 * blocks} runs a side) + up to ` +
      `${confirmBlocks} confirmation blocks, day ±2% shared, session drift AR(1) φ ${SESSION_PHI} ` +
      `CV ${percent(SESSION_CV, 0)}, run CV 1.5%; ${options.aaPairs} unchanged and ${options.pairs} ` +
      `10%-slower pull requests`,
  );
  console.log(
    table(
      [
        'rule',
        'false alarms (95% CI)',
        'detects −10% (95% CI)',
        'accelerator runs / PR (A/A, slowed, max)',
      ],
      [
        [
          'gate (paired, sequential)',
          rateWithInterval(
            count(unchanged, (o) => o.fail),
            unchanged.length,
          ),
          rateWithInterval(
            count(slowed, (o) => o.fail),
            slowed.length,
          ),
          `${runs(unchanged).toFixed(1)}, ${runs(slowed).toFixed(1)}, ${maxRuns}`,
        ],
        [
          'gate, every threshold 0.1% (the paired interval alone)',
          rateWithInterval(
            count(intervalOnly, (o) => o.fail),
            intervalOnly.length,
          ),
          '—',
          `${runs(intervalOnly).toFixed(1)}, —, ${maxRuns}`,
        ],
        [
          'plain paired t on block P50 (first look)',
          rateWithInterval(
            count(unchanged, (o) => o.plainFail),
            unchanged.length,
          ),
          rateWithInterval(
            count(slowed, (o) => o.plainFail),
            slowed.length,
          ),
          `${4 * blocks}`,
        ],
        [
          'plain pooled t on run P50, blocks ignored (first look)',
          rateWithInterval(
            count(unchanged, (o) => o.pooledFail),
            unchanged.length,
          ),
          rateWithInterval(
            count(slowed, (o) => o.pooledFail),
            slowed.length,
          ),
          `${4 * blocks}`,
        ],
        [
          'best possible (A/A distribution known)',
          rateWithInterval(count(unchanged, best), unchanged.length),
          rateWithInterval(count(slowed, best), slowed.length),
          `${4 * blocks}`,
        ],
      ],
    ),
  );
  return {
    detected: count(slowed, (o) => o.fail) / slowed.length,
    falseAlarms: Math.max(
      count(unchanged, (o) => o.fail) / unchanged.length,
      count(intervalOnly, (o) => o.fail) / intervalOnly.length,
    ),
  };
}

/** One pull request in A/B mode: its blocks, looks and verdict. */
function abPair(
  stream: string,
  slowdown: number,
  blocks: number,
  confirmBlocks: number,
  thresholds: Record<string, number> = DEFAULT_THRESHOLDS,
): AbOutcome {
  const dayDrift = SCENARIOS.find((s) => s.name === 'day-drift')!;
  // One day for both sides: record 0 is today.
  const world = dayDrift.world(createRng(`${stream}/world`), 0);
  const rng = createRng(`${stream}/runs`);
  const session = sessionDrift(createRng(`${stream}/session`));
  const runs: { run: ScheduledRun; parsed: ParsedRun }[] = [];
  const measure = (scheduled: ScheduledRun[]) => {
    for (const run of scheduled) {
      const host = session();
      const times = world
        .run(rng, { side: 'current', record: 0 }, run.side === 'head' ? slowdown : 0)
        .map((t) => t * host);
      runs.push({ run, parsed: parseRun(JSON.stringify(offlineResult(times))) });
    }
  };
  measure(abbaBlocks(0, blocks));
  const sides = () => ({ head: blockedSide(runs, 'head'), base: blockedSide(runs, 'base') });
  const first = sides();
  const plan = planLooks(
    [{ current: first.head, baseline: first.base, thresholds }],
    GATE_FALSE_ALARM_RATE,
    confirmBlocks,
  );
  const judgeAt = (look: number) => {
    const { head, base } = sides();
    return judge(head, base, thresholds, { ...lookOptions(plan, look), seed: stream });
  };
  let verdict = judgeAt(0);
  const center = pairedP50Center(first);
  const plainFail = plainPairedTest(runs);
  const pooledFail = pooledTest(runs);
  let added = 0;
  for (
    let look = 1;
    look < plan.schedule.length && metricsNeedMoreRuns(verdict.metrics);
    look += 1
  ) {
    measure(abbaBlocks(blocks + added, plan.schedule[look]! - added));
    added = plan.schedule[look]!;
    verdict = judgeAt(look);
  }
  return {
    fail: verdict.verdict === 'regression',
    runs: runs.length,
    plainFail,
    pooledFail,
    center,
  };
}

function judge(
  head: BenchmarkResult,
  base: BenchmarkResult,
  thresholds: Record<string, number>,
  { moreRuns, seed, ...rates }: LookOptions & { seed: string },
): BenchmarkComparison {
  return compareBenchmark(head, base, thresholds, {
    confidence: DEFAULTS.confidence,
    seed,
    failOnInconclusive: false,
    ...lookLevels([{ current: head, baseline: base, thresholds }], rates)[0],
    moreRuns,
  });
}

/** One side's runs folded as the gate folds them, each metric with its runs' blocks. */
function blockedSide(
  runs: { run: ScheduledRun; parsed: ParsedRun }[],
  side: 'base' | 'head',
): BenchmarkResult {
  const mine = runs.filter((r) => r.run.side === side);
  const result = sideResult(mine.map((r) => r.parsed));
  for (const metric of result.metrics) {
    if (metric.values.length === mine.length) metric.blocks = mine.map((r) => r.run.block);
  }
  return result;
}

function pairedP50Center(sides: { head: BenchmarkResult; base: BenchmarkResult }): number {
  const p50 = (r: BenchmarkResult) => r.metrics.find((m) => m.id === 'latency_p50')!;
  const byBlock = (r: BenchmarkResult) => {
    const metric = p50(r);
    const sums = new Map<number, number[]>();
    metric.values.forEach((v, i) => {
      const list = sums.get(metric.blocks![i]!) ?? [];
      list.push(Math.log(v));
      sums.set(metric.blocks![i]!, list);
    });
    return [...sums.values()].map(meanOf);
  };
  const head = byBlock(sides.head);
  const base = byBlock(sides.base);
  return head.reduce((s, v, i) => s + v - base[i]!, 0) / head.length;
}

/** The log of one run's P50, as the file gave it. */
function logP50(run: ParsedRun): number {
  return Math.log(run.benchmarks[0]!.metrics.find((m) => m.id === 'latency_p50')!.value);
}

/**
 * The plain reference: P50's block differences, a one-sided t-test with df blocks − 1 at
 * the gate's level split over its two clearest metrics, and beyond the threshold.
 */
function plainPairedTest(runs: { run: ScheduledRun; parsed: ParsedRun }[]): boolean {
  const blocks = [...new Set(runs.map((r) => r.run.block))];
  const differences = blocks.map((block) => {
    const sideMean = (side: string) =>
      meanOf(
        runs
          .filter((r) => r.run.block === block && r.run.side === side)
          .map((r) => logP50(r.parsed)),
      );
    return sideMean('head') - sideMean('base');
  });
  const n = differences.length;
  const mean = meanOf(differences);
  const sd = Math.sqrt(differences.reduce((s, d) => s + (d - mean) ** 2, 0) / (n - 1));
  const t = studentTQuantile(1 - GATE_FALSE_ALARM_RATE / 2, n - 1);
  return mean > Math.log1p(P50_THRESHOLD) && mean - t * (sd / Math.sqrt(n)) > 0;
}

/**
 * The plainest reference: P50's runs of each side as two samples (blocks ignored), a
 * pooled one-sided t-test with df n₁ + n₂ − 2 at the same level, and beyond the threshold.
 */
function pooledTest(runs: { run: ScheduledRun; parsed: ParsedRun }[]): boolean {
  const logs = (side: string) =>
    runs.filter((r) => r.run.side === side).map((r) => logP50(r.parsed));
  const [head, base] = [logs('head'), logs('base')];
  const squares = (xs: number[]) => {
    const mean = meanOf(xs);
    return xs.reduce((s, x) => s + (x - mean) ** 2, 0);
  };
  const df = head.length + base.length - 2;
  const pooled = (squares(head) + squares(base)) / df;
  const se = Math.sqrt(pooled * (1 / head.length + 1 / base.length));
  const change = meanOf(head) - meanOf(base);
  const t = studentTQuantile(1 - GATE_FALSE_ALARM_RATE / 2, df);
  return change > Math.log1p(P50_THRESHOLD) && change - t * se > 0;
}

/** The host's speed run after run: AR(1) in log space around 1. */
function sessionDrift(rng: Rng): () => number {
  const sigma = Math.sqrt(Math.log1p(SESSION_CV ** 2));
  let level = sigma * rng.normal();
  return () => {
    const factor = Math.exp(level);
    level = SESSION_PHI * level + sigma * Math.sqrt(1 - SESSION_PHI ** 2) * rng.normal();
    return factor;
  };
}
