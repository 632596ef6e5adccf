// From run outcomes to measured results: the clean runs parsed into one result per
// benchmark, the profiled run's throughput, and the report of a benchmark that failed.

import type { BenchmarkSpec } from '../config/types.js';
import { errorMessage } from '../errors.js';
import { aggregateRuns, type ParsedRun } from '../formats/aggregate.js';
import { parseResultFile } from '../formats/index.js';
import type { Logger } from '../log.js';
import type { BenchmarkReport, BenchmarkResult, RunInfo, RunOutcome } from '../model.js';
import { runBenchmark } from './benchmark.js';
import type { ProcessRunner } from './types.js';

/**
 * Runs a benchmark's clean runs only and parses them, for calibration: no profile, no
 * baseline, no verdict.
 */
export async function measureRuns(
  spec: BenchmarkSpec,
  deps: {
    runner: ProcessRunner;
    log: Logger;
    env: Record<string, string | undefined>;
    outDir: string;
  },
): Promise<{ results: BenchmarkResult[] } | { error: string }> {
  const outcomes = await runBenchmark(spec, {
    runner: deps.runner,
    log: deps.log,
    outDir: deps.outDir,
    baseEnv: deps.env,
    profile: false,
  });
  const failed = outcomes.find((o) => !o.ok);
  if (failed) return { error: runFailure(spec, failed) };
  try {
    return { results: await parseCleanRuns(spec, outcomes) };
  } catch (error) {
    return {
      error: `${spec.name}: the benchmark wrote a result the gate cannot read: ${errorMessage(error)}`,
    };
  }
}

/** Throughput of the profiled run, for the profiling overhead; undefined when unreadable. */
export async function profiledRunThroughput(
  spec: BenchmarkSpec,
  profiled: RunOutcome | undefined,
): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  if (!profiled?.ok) return byName;
  try {
    const parsed = await parseResultFile(profiled.resultPath, spec.format);
    for (const benchmark of parsed.benchmarks) {
      const throughput = benchmark.metrics.find((m) => m.id === 'throughput');
      if (throughput) byName.set(benchmark.name ?? spec.name, throughput.value);
    }
  } catch {
    // Only the overhead figure is lost; the clean runs decide the verdict.
  }
  return byName;
}

/** Parses clean runs' result files into one result per benchmark, over all the runs. */
export async function parseCleanRuns(
  spec: BenchmarkSpec,
  clean: RunOutcome[],
): Promise<BenchmarkResult[]> {
  return resultsOfRuns(spec, await parseRunFiles(spec, clean));
}

/** Clean runs' result files parsed, one ParsedRun per run each holds, in order. */
export interface ParsedRunFiles {
  format: string;
  runs: ParsedRun[];
  /** The index in `clean` of the outcome each run came from (one file may hold several). */
  outcomeOf: number[];
}

export async function parseRunFiles(
  spec: BenchmarkSpec,
  clean: readonly RunOutcome[],
): Promise<ParsedRunFiles> {
  const runs: ParsedRun[] = [];
  const outcomeOf: number[] = [];
  let format = spec.format;
  for (const [index, outcome] of clean.entries()) {
    const parsed = await parseResultFile(outcome.resultPath, format, spec.warmup);
    // Once detected, the same format holds for every run of this benchmark.
    format = parsed.format;
    // A JSON Lines file (vllm bench serve --append-result) holds several runs.
    for (const run of parsed.runs) {
      runs.push({ file: outcome.resultPath, benchmarks: run });
      outcomeOf.push(index);
    }
  }
  return { format, runs, outcomeOf };
}

/** The parsed runs folded into one result per benchmark (aggregateRuns). */
export function resultsOfRuns(
  spec: BenchmarkSpec,
  { format, runs }: ParsedRunFiles,
): BenchmarkResult[] {
  return aggregateRuns(runs, spec.name).map((benchmark) => ({
    name: benchmark.name,
    source: spec.name,
    format,
    metrics: benchmark.metrics,
    runs: [],
    ...(benchmark.info ? { info: benchmark.info } : {}),
    ...(benchmark.notMeasured ? { notMeasured: benchmark.notMeasured } : {}),
    ...(benchmark.requests ? { requests: benchmark.requests } : {}),
    ...(benchmark.warmup ? { warmup: benchmark.warmup } : {}),
    ...(spec.sweep ? { sweep: spec.sweep } : {}),
  }));
}

export function runFailure(spec: BenchmarkSpec, outcome: RunOutcome): string {
  const headline = `${spec.name}: run ${outcome.index} (${outcome.kind}) failed: ${outcome.error ?? 'unknown error'}`;
  if (outcome.logTail.length === 0) return headline;
  return `${headline}\nLast ${outcome.logTail.length} lines of output (full log: ${outcome.logPath}):\n${outcome.logTail.join('\n')}`;
}

/** A benchmark that could not be judged: the error, its runs, and what they left running. */
export function errorReport(
  spec: BenchmarkSpec,
  outcomes: RunOutcome[],
  error: string,
): BenchmarkReport {
  return {
    name: spec.name,
    source: spec.name,
    format: spec.format,
    verdict: 'error',
    metrics: [],
    error,
    warnings: leftoverWarnings(outcomes),
    result: {
      name: spec.name,
      source: spec.name,
      format: spec.format,
      metrics: [],
      runs: outcomes.map(runInfo),
    },
  };
}

/**
 * One warning when runs left processes running: they skew the runs after them, and only
 * the first run's are named (the others are usually the same).
 */
export function leftoverWarnings(outcomes: RunOutcome[]): string[] {
  const left = outcomes.filter((o) => o.leftovers);
  const first = left[0];
  if (!first) return [];
  const others = left.length > 1 ? ` (${left.length} of ${outcomes.length} runs did)` : '';
  return [
    `run ${first.index} (${first.kind}) left ${first.leftovers} running after it exited${others}; the gate stopped them. ` +
      'A process left running skews the runs after it: stop what the benchmark starts before it exits. ' +
      'A process that clears its environment as well escapes this: run the job in a cgroup (docs/security.md).',
  ];
}

export function runInfo(outcome: RunOutcome): RunInfo {
  return {
    index: outcome.index,
    kind: outcome.kind,
    ok: outcome.ok,
    durationMs: outcome.durationMs,
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    resultFile: outcome.resultPath,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.hostLoad ? { hostLoad: outcome.hostLoad } : {}),
  };
}
