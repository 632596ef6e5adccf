// The action against a baseline whose stored records drift from day to day: no run of the
// pull request's own day can narrow the interval, so the first look is the only one and
// takes the whole false-alarm budget (sequential.ts: planLooks), failing a slowdown that
// looks at a sixth of the budget would leave inconclusive. A real child process writes
// each run's offline-benchmark result.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withOlderRecords } from '../../src/baseline/older-records.js';
import { mergeByName } from '../../src/baseline/result-files.js';
import type { Baseline } from '../../src/baseline/types.js';
import { judgeResults } from '../../src/compare/judge.js';
import { lookBudgets } from '../../src/compare/sequential.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { GATE_FALSE_ALARM_RATE } from '../../src/config/defaults.js';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { parseResultText } from '../../src/formats/index.js';
import { MemoryLogger } from '../../src/log.js';
import type { BenchmarkResult } from '../../src/model.js';
import { runGate } from '../../src/pipeline.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { offlineResult, rawTimes, tempDir } from '../support/offline-result.js';

const workspaces: string[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Days ±2.5% apart; runs ±1% within a day (fixed, so the test is the same every time). */
const DAYS = [
  0.97, 1.03, 0.99, 1.02, 0.96, 1.04, 1.0, 0.98, 1.025, 0.975, 1.01, 0.965, 1.035, 0.99, 1.015,
  0.985, 1.03, 0.97, 1.005, 0.995,
];
const WITHIN = [
  -0.01, 0.004, 0.009, -0.006, 0.012, -0.003, 0.007, -0.011, 0.002, 0.01, -0.008, 0.005, -0.002,
];

/** One run's result file as text, `run` of a day at `factor`. */
function runText(factor: number, run: number): string {
  return JSON.stringify(offlineResult(rawTimes(factor * (1 + WITHIN[run % WITHIN.length]!), run)));
}

/** The runs of one day as the gate aggregates them. */
function dayResult(factor: number, runs: number): BenchmarkResult {
  const parsed = Array.from({ length: runs }, (_, run) => ({
    file: `run-${run}.json`,
    benchmarks: parseResultText(runText(factor, run), `run-${run}.json`, 'offline-benchmark')
      .benchmarks,
  }));
  const [aggregated] = aggregateRuns(parsed, 'reranker');
  return { name: 'reranker', format: 'offline-benchmark', metrics: aggregated!.metrics, runs: [] };
}

/** 5 stored records of 3 runs in the window, 15 older ones for the drift only. */
function driftingBaseline(): Baseline {
  const records = DAYS.slice(15).map((day) => dayResult(day, 3));
  const older = DAYS.slice(0, 15).map((day) => dayResult(day, 3));
  const [merged] = mergeByName(records);
  return { source: 'stored records', benchmarks: [withOlderRecords(merged!, older)] };
}

describe('confirmation runs against a drifting baseline', () => {
  it('judges the first look at the whole budget and takes no run that could not help', async () => {
    const dir = await tempDir('perf-gate-drift-');
    workspaces.push(dir);
    const baseline = driftingBaseline();
    const config = await resolveGateConfig(
      {
        // Each run writes the next result file of the pull request's day.
        command: `n=$(cat ${join(dir, 'count')} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${join(dir, 'count')}; cat ${join(dir, 'run-')}$n.json > "$PERF_GATE_OUTPUT"`,
        name: 'reranker',
        format: 'offline-benchmark',
        runs: '3',
        'confirm-runs': '10',
        profile: 'false',
      },
      { workspace: dir },
    );
    const thresholds = config.benchmarks[0]!.thresholds;
    // The pull request's day, slowed down just enough that one look at the whole budget
    // fails it while a look at the first look's part of it would not (found with the
    // gate's own judgement of the same runs).
    const judge = (slowdown: number, budget: number) =>
      judgeResults([dayResult(1.0 * slowdown, 3)], baseline, () => thresholds, {
        confidence: 0.95,
        failOnInconclusive: false,
        falseAlarmRate: budget,
      })[0]!.verdict;
    const firstLookBudget = lookBudgets(GATE_FALSE_ALARM_RATE, 10)[0]!;
    let slowdown = 1.05;
    while (slowdown < 1.3 && judge(slowdown, GATE_FALSE_ALARM_RATE) !== 'regression') {
      slowdown += 0.0025;
    }
    expect(judge(slowdown, GATE_FALSE_ALARM_RATE)).toBe('regression');
    expect(judge(slowdown, firstLookBudget)).toBe('pass');
    for (let run = 0; run < 13; run += 1) {
      await writeFile(join(dir, `run-${run + 1}.json`), runText(slowdown, run));
    }

    const log = new MemoryLogger();
    const report = await runGate(config, {
      runner: createProcessRunner(),
      log,
      baselineStore: { load: async () => baseline },
      env: { PATH: process.env.PATH },
    });
    const benchmark = report.benchmarks[0]!;
    expect(benchmark.verdict).toBe('regression');
    expect(benchmark.confirmation).toBeUndefined();
    expect(benchmark.result!.runs).toHaveLength(3);
    expect(log.lines.join('\n')).toContain('one look, with the whole budget');
  });
});
