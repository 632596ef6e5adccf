// The gate, stage by stage: config ─► run ─► parse ─► profile ─► baseline ─► compare ─► report.
// Shared by the action (src/main.ts) and the CLI (src/cli.ts); publishing is theirs.

import type { BaselineStore } from './baseline/types.js';
import { judgeResults } from './compare/judge.js';
import type { BenchmarkSpec, GateConfig } from './config/types.js';
import { probeEnvironment } from './environment/probe.js';
import { errorMessage } from './errors.js';
import { aggregateRuns, type ParsedRun } from './formats/aggregate.js';
import { parseResultFile } from './formats/index.js';
import type { Logger } from './log.js';
import type {
  BenchmarkReport,
  BenchmarkResult,
  Environment,
  GateReport,
  RunOutcome,
} from './model.js';
import { summarizeProfile } from './profile/discover.js';
import { buildGateReport } from './report/build.js';
import { runBenchmark } from './runner/benchmark.js';
import { shouldProfile } from './runner/detect-neuron.js';
import type { ProcessRunner } from './runner/types.js';

export interface GateDependencies {
  runner: ProcessRunner;
  log: Logger;
  baselineStore: BaselineStore;
  env: Record<string, string | undefined>;
  runUrl?: string;
  now?: () => Date;
}

/** Runs every configured benchmark and judges it against the baseline. */
export async function runGate(config: GateConfig, deps: GateDependencies): Promise<GateReport> {
  // The baseline is read first so that a broken baseline file stops the gate before the
  // (long) benchmarks run.
  const baseline = await deps.baselineStore.load();
  const environment = await probeEnvironment(deps.env);
  const reports: BenchmarkReport[] = [];
  for (const spec of config.benchmarks) {
    reports.push(...(await measureAndJudge(spec, config, deps, baseline, environment)));
  }
  return buildGateReport({
    benchmarks: reports,
    environment,
    ...(baseline ? { baselineSource: baseline.source } : {}),
    ...(deps.runUrl ? { runUrl: deps.runUrl } : {}),
    ...(deps.now ? { now: deps.now() } : {}),
  });
}

async function measureAndJudge(
  spec: BenchmarkSpec,
  config: GateConfig,
  deps: GateDependencies,
  baseline: Awaited<ReturnType<BaselineStore['load']>>,
  environment: Environment,
): Promise<BenchmarkReport[]> {
  const profiling = await shouldProfile(spec.profile, deps.env);
  deps.log.info(
    `${spec.name}: ${spec.runs} clean run(s)${profiling.profile ? ' and 1 profiled run' : ''}; ${profiling.reason}`,
  );
  const outcomes = await runBenchmark(spec, {
    runner: deps.runner,
    log: deps.log,
    outDir: config.outDir,
    profile: profiling.profile,
    baseEnv: deps.env,
  });
  const clean = outcomes.filter((o) => o.kind === 'clean');
  const failed = clean.find((o) => !o.ok);
  if (failed || clean.length < spec.runs) {
    return [
      errorReport(spec, outcomes, failed ? runFailure(spec, failed) : 'not every run started'),
    ];
  }

  let results: BenchmarkResult[];
  try {
    results = await parseCleanRuns(spec, clean);
  } catch (error) {
    return [
      errorReport(
        spec,
        outcomes,
        `the benchmark wrote a result the gate cannot read: ${errorMessage(error)}`,
      ),
    ];
  }

  const warnings: string[] = [];
  const profiled = outcomes.find((o) => o.kind === 'profiled');
  if (profiled && !profiled.ok) {
    warnings.push(
      `the profiled run failed, so there is no profile (the timing verdict stands): ${profiled.error ?? 'unknown error'}`,
    );
  }
  const profile =
    profiled?.ok && profiled.profileDir ? await summarizeProfile(profiled.profileDir) : undefined;
  for (const result of results) {
    result.runs = outcomes.map(runInfo);
    result.environment = environment;
    if (profile) result.profile = profile;
  }
  return judgeResults(results, baseline, () => spec.thresholds).map((report) => ({
    ...report,
    warnings: [...report.warnings, ...warnings],
  }));
}

async function parseCleanRuns(
  spec: BenchmarkSpec,
  clean: RunOutcome[],
): Promise<BenchmarkResult[]> {
  const runs: ParsedRun[] = [];
  let format = spec.format;
  for (const outcome of clean) {
    const parsed = await parseResultFile(outcome.resultPath, format);
    // Once detected, the same format holds for every run of this benchmark.
    format = parsed.format;
    runs.push({ file: outcome.resultPath, benchmarks: parsed.benchmarks });
  }
  return aggregateRuns(runs, spec.name).map((benchmark) => ({
    name: benchmark.name,
    source: spec.name,
    format,
    metrics: benchmark.metrics,
    runs: [],
    ...(benchmark.info ? { info: benchmark.info } : {}),
  }));
}

function runFailure(spec: BenchmarkSpec, outcome: RunOutcome): string {
  const headline = `${spec.name}: run ${outcome.index} (${outcome.kind}) failed: ${outcome.error ?? 'unknown error'}`;
  if (outcome.logTail.length === 0) return headline;
  return `${headline}\nLast ${outcome.logTail.length} lines of output (full log: ${outcome.logPath}):\n${outcome.logTail.join('\n')}`;
}

function errorReport(spec: BenchmarkSpec, outcomes: RunOutcome[], error: string): BenchmarkReport {
  return {
    name: spec.name,
    source: spec.name,
    format: spec.format,
    verdict: 'error',
    metrics: [],
    error,
    warnings: [],
    result: {
      name: spec.name,
      source: spec.name,
      format: spec.format,
      metrics: [],
      runs: outcomes.map(runInfo),
    },
  };
}

function runInfo(outcome: RunOutcome) {
  return {
    index: outcome.index,
    kind: outcome.kind,
    ok: outcome.ok,
    durationMs: outcome.durationMs,
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    resultFile: outcome.resultPath,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
}
