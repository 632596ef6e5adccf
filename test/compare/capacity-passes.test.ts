// The capacity's confirmation passes: while the judge leaves the capacity open and passes
// remain, batches of passes over the whole sweep (every variant one more run, in the
// sweep's order), at the looks of the group-sequential plan, each look with its part of
// the capacity's budget; the report says how many passes it took.
import { describe, expect, it } from 'vitest';
import { lookBudgets, lookSchedule } from '../../src/compare/sequential.js';
import type { SloSpec } from '../../src/config/slo.js';
import type { BenchmarkSpec } from '../../src/config/types.js';
import type { DerivedCapacity } from '../../src/derive/capacity.js';
import { MemoryLogger } from '../../src/log.js';
import type { BenchmarkReport, BenchmarkResult, RunOutcome } from '../../src/model.js';
import { judgeCapacityWithPasses, type VariantRuns } from '../../src/compare/capacity-passes.js';
import { sweepGroups } from '../../src/runner/served-benchmarks.js';
import { cleanRuns } from '../support/clean-runs.js';

const RATES = [2, 4, 6];
const SLO: SloSpec = {
  objectives: [{ metric: 'e2el', limitMs: 100, percentile: 99 }],
  attainment: 0.9,
};
const BUDGET = 0.005;

const spec = (rate: number, sweep = 'serve'): BenchmarkSpec =>
  ({
    name: `${sweep}/rate-${rate}`,
    sweep: { name: sweep, variant: `rate-${rate}`, params: { request_rate: rate } },
    slo: SLO,
  }) as unknown as BenchmarkSpec;

const outcome = (index: number, ok = true): RunOutcome => ({
  index,
  kind: 'clean',
  ok,
  exitCode: ok ? 0 : 1,
  timedOut: false,
  durationMs: 1000,
  resultPath: `run-${index}.json`,
  logPath: `run-${index}.log`,
  logTail: [],
  ...(ok ? {} : { error: 'exit code 1' }),
});

/** A variant whose P99 is 50 ms below rate 5 and 150 ms above, one value a run. */
function result(rate: number, runs: number): BenchmarkResult {
  return {
    name: `serve/rate-${rate}`,
    format: 'vllm-bench-serve',
    metrics: [
      {
        id: 'e2el_p99',
        unit: 'ms',
        direction: 'lower-is-better',
        values: Array.from({ length: runs }, () => (rate < 5 ? 50 : 150)),
      },
    ],
    runs: cleanRuns(runs),
    sweep: { name: 'serve', variant: `rate-${rate}`, params: { request_rate: rate } },
  };
}

function variants(runs = 3): VariantRuns[] {
  return RATES.map((rate) => ({
    spec: spec(rate),
    outcomes: Array.from({ length: runs }, (_, i) => outcome(i + 1)),
    result: result(rate, runs),
  }));
}

/**
 * A judge that leaves the capacity open (worth confirming) until it has `settleAt`
 * capacities, then passes it; it records each look's sweeps and part of the budget.
 */
function openUntil(settleAt: number, verdictThen: 'pass' | 'regression' = 'pass') {
  const looks: { sweeps: number; falseAlarmRate: number; moreRuns: number }[] = [];
  const judge = async (
    derived: DerivedCapacity,
    lookOf: (members: never[]) => { falseAlarmRate: number; moreRuns: number },
  ): Promise<BenchmarkReport[]> => {
    const sweeps = derived.result.metrics[0]!.values.length;
    const { falseAlarmRate, moreRuns } = lookOf([]);
    looks.push({ sweeps, falseAlarmRate, moreRuns });
    const open = sweeps < settleAt;
    const verdict = open ? 'inconclusive' : verdictThen === 'pass' ? 'pass' : 'regression';
    return [
      {
        name: derived.result.name,
        format: 'capacity',
        verdict: verdict === 'regression' ? 'regression' : 'pass',
        result: derived.result,
        warnings: derived.warnings,
        metrics: [
          {
            id: 'capacity',
            verdict,
            change: open ? -0.1 : -0.02,
            ...(open && moreRuns > 0 ? { worthConfirming: true } : {}),
          } as BenchmarkReport['metrics'][number],
        ],
      },
    ];
  };
  return { looks, judge };
}

/** runOnce that records (variant, index, pass) and succeeds unless `fails` says so. */
function runner(fails: (name: string, pass: number) => boolean = () => false) {
  const calls: string[] = [];
  const runOnce = async (s: BenchmarkSpec, index: number, pass: number) => {
    calls.push(`${s.name}#${index}@${pass}`);
    return outcome(index, !fails(s.name, pass));
  };
  return { calls, runOnce };
}

const measure = async (s: BenchmarkSpec, outcomes: RunOutcome[]) =>
  result(s.sweep!.params.request_rate as number, outcomes.filter((o) => o.ok).length);

describe('judgeCapacityWithPasses', () => {
  it('takes passes of the whole sweep at the looks of the plan until the capacity settles', async () => {
    const { looks, judge } = openUntil(3 + 5);
    const { calls, runOnce } = runner();
    const [report] = await judgeCapacityWithPasses({ name: 'serve', slo: SLO }, variants(), {
      budget: BUDGET,
      maxPasses: 10,
      log: new MemoryLogger(),
      runOnce,
      judge,
      measure,
    });
    // Looks after 0, 2 and 5 passes (lookSchedule(10) = 0, 2, 5, 10): settled at the third.
    expect(lookSchedule(10)).toEqual([0, 2, 5, 10]);
    expect(looks.map((l) => l.sweeps)).toEqual([3, 5, 8]);
    expect(looks.map((l) => l.moreRuns)).toEqual([10, 8, 5]);
    // Each look its part of the capacity's budget: the earlier looks share a fifth.
    const budgets = lookBudgets(BUDGET, 10);
    expect(looks.map((l) => l.falseAlarmRate)).toEqual(budgets.slice(0, 3));
    expect(budgets[0]).toBeCloseTo((BUDGET * 0.2) / 3, 12);
    // A pass runs every variant once, in the sweep's order, numbered after its runs.
    expect(calls.slice(0, 4)).toEqual([
      'serve/rate-2#4@1',
      'serve/rate-4#4@1',
      'serve/rate-6#4@1',
      'serve/rate-2#5@2',
    ]);
    expect(calls).toHaveLength(5 * RATES.length);
    expect(report!.verdict).toBe('pass');
    expect(report!.confirmation).toMatchObject({
      sweepPasses: 5,
      runs: 5 * RATES.length,
      verdictBefore: 'pass',
      metricsBefore: [{ id: 'capacity', verdict: 'inconclusive', change: -0.1 }],
    });
    expect(report!.result!.runs).toHaveLength(8);
  });

  it('stops at a regression and takes no pass for a capacity settled at the first look', async () => {
    const failing = openUntil(5, 'regression');
    const first = runner();
    const [failed] = await judgeCapacityWithPasses({ name: 'serve', slo: SLO }, variants(), {
      budget: BUDGET,
      maxPasses: 10,
      log: new MemoryLogger(),
      runOnce: first.runOnce,
      judge: failing.judge,
      measure,
    });
    expect(failed!.verdict).toBe('regression');
    expect(failed!.confirmation?.sweepPasses).toBe(2);
    expect(first.calls).toHaveLength(2 * RATES.length);

    const settled = openUntil(3);
    const none = runner();
    const [report] = await judgeCapacityWithPasses({ name: 'serve', slo: SLO }, variants(), {
      budget: BUDGET,
      maxPasses: 10,
      log: new MemoryLogger(),
      runOnce: none.runOnce,
      judge: settled.judge,
      measure,
    });
    expect(none.calls).toEqual([]);
    expect(report!.confirmation).toBeUndefined();
    expect(settled.looks).toHaveLength(1);
  });

  it('with confirm-runs 0 judges once with the whole budget', async () => {
    const { looks, judge } = openUntil(100);
    const { calls, runOnce } = runner();
    await judgeCapacityWithPasses({ name: 'serve', slo: SLO }, variants(), {
      budget: BUDGET,
      maxPasses: 0,
      log: new MemoryLogger(),
      runOnce,
      judge,
      measure,
    });
    expect(calls).toEqual([]);
    expect(looks).toEqual([{ sweeps: 3, falseAlarmRate: BUDGET, moreRuns: 0 }]);
  });

  it('judges on the passes before a run that fails, and says so', async () => {
    const { looks, judge } = openUntil(100);
    const { calls, runOnce } = runner((name, pass) => name === 'serve/rate-4' && pass === 2);
    const [report] = await judgeCapacityWithPasses({ name: 'serve', slo: SLO }, variants(), {
      budget: BUDGET,
      maxPasses: 10,
      log: new MemoryLogger(),
      runOnce,
      judge,
      measure,
    });
    // Pass 1 complete, pass 2 stops at rate-4: no third variant run, no further look.
    expect(calls).toEqual([
      'serve/rate-2#4@1',
      'serve/rate-4#4@1',
      'serve/rate-6#4@1',
      'serve/rate-2#5@2',
      'serve/rate-4#5@2',
    ]);
    expect(looks.map((l) => l.sweeps)).toEqual([3, 4]);
    expect(report!.confirmation?.sweepPasses).toBe(1);
    expect(report!.warnings.join('\n')).toContain(
      'capacity pass 2: serve/rate-4 run 5 failed (exit code 1); the capacity is judged on the passes before it',
    );
  });
  it('lets a variant with runs to spare from its own confirmation runs sit a pass out', async () => {
    const { looks, judge } = openUntil(4);
    const { calls, runOnce } = runner();
    const uneven = variants();
    uneven[1] = {
      ...uneven[1]!,
      outcomes: [1, 2, 3, 4].map((i) => outcome(i)),
      result: result(4, 4),
    };
    const [report] = await judgeCapacityWithPasses({ name: 'serve', slo: SLO }, uneven, {
      budget: BUDGET,
      maxPasses: 10,
      log: new MemoryLogger(),
      runOnce,
      judge,
      measure,
    });
    // Two passes (the first batch): rate-4 has run 4 already, and runs only in the second.
    expect(calls).toEqual([
      'serve/rate-2#4@1',
      'serve/rate-6#4@1',
      'serve/rate-2#5@2',
      'serve/rate-4#5@2',
      'serve/rate-6#5@2',
    ]);
    expect(looks.map((l) => l.sweeps)).toEqual([3, 5]);
    expect(report!.confirmation).toMatchObject({ sweepPasses: 2, runs: 5 });
  });
});

describe('sweepGroups', () => {
  it('joins the variants of a sweep without a server, leaving other benchmarks alone', () => {
    const other = { name: 'micro' } as BenchmarkSpec;
    const groups = sweepGroups([[other], [spec(2)], [spec(4)], [spec(6)], [spec(2, 'b')]]);
    expect(groups.map((g) => g.map((s) => s.name))).toEqual([
      ['micro'],
      ['serve/rate-2', 'serve/rate-4', 'serve/rate-6'],
      ['b/rate-2'],
    ]);
    const served = [spec(2), spec(4)];
    expect(sweepGroups([served])).toEqual([served]);
  });
});
