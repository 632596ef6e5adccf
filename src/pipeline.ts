// The gate, stage by stage: config ─► run ─► parse ─► profile ─► baseline ─► compare ─► report.
// Shared by the action (src/main.ts) and the CLI (src/cli.ts); publishing is theirs.

import { chooseByName } from './baseline/by-name.js';
import type { BaselineMatch } from './baseline/select.js';
import type { Baseline, BaselineStore } from './baseline/types.js';
import type { FamilyMember } from './compare/family.js';
import {
  familyMembers,
  judgeResults,
  NO_GATED_METRIC,
  type JudgeOptions,
} from './compare/judge.js';
import {
  lookOptions,
  needsMoreRuns,
  planLooks,
  sequentialPlan,
  type LookOptions,
  type LookPlan,
} from './compare/sequential.js';
import { GATE_FALSE_ALARM_RATE } from './config/defaults.js';
import { sidakLevel } from './stats/multiplicity.js';
import type { BenchmarkSpec, GateConfig } from './config/types.js';
import { probeEnvironmentWithWarnings } from './environment/probe.js';
import { errorMessage, inputError } from './errors.js';
import { aggregateRuns, type ParsedRun } from './formats/aggregate.js';
import { parseResultFile } from './formats/index.js';
import type { Logger } from './log.js';
import type {
  BaselineInfo,
  BenchmarkReport,
  BenchmarkResult,
  Environment,
  GateReport,
  ProfileSummary,
  RunOutcome,
} from './model.js';
import { profileMetrics, profileNotMeasured, withProfilingOverhead } from './profile/metrics.js';
import { summarizeProfile } from './profile/summarize.js';
import { buildGateReport } from './report/build.js';
import { latencyCurveOf, trendOf } from './report/chart-data.js';
import { gateSecrets, redactStrings } from './report/redact.js';
import {
  runBenchmark,
  runConfirmationRuns,
  runLateProfiledRun,
  timeoutMsOf,
} from './runner/benchmark.js';
import { shouldProfile } from './runner/detect-neuron.js';
import type { Sandbox } from './runner/sandbox.js';
import type { ProcessRunner } from './runner/types.js';

export interface GateDependencies {
  runner: ProcessRunner;
  log: Logger;
  baselineStore: BaselineStore;
  env: Record<string, string | undefined>;
  runUrl?: string;
  now?: () => Date;
  /**
   * Whether this run may write its results to the baseline store (a push to the default
   * branch, a scheduled run, ...): `profile: on-change` always profiles such a run, so the
   * stored baseline has MFU. A save-baseline file counts as well. Default false.
   */
  storesBaseline?: boolean;
}

/** Everything one benchmark's judgement needs besides its own runs. */
interface GateContext {
  config: GateConfig;
  deps: GateDependencies;
  baseline: Baseline | undefined;
  environment: Environment;
}

/** Runs every configured benchmark and judges it against the baseline. */
export async function runGate(config: GateConfig, deps: GateDependencies): Promise<GateReport> {
  // The baseline is read first so that a broken baseline file stops the gate before the
  // (long) benchmarks run.
  const baseline = await deps.baselineStore.load();
  const probed = await probeEnvironmentWithWarnings(deps.env, {
    runner: deps.runner,
    ...(config.environmentProbe ? { probeCommand: config.environmentProbe } : {}),
  });
  const environment = probed.environment;
  const context: GateContext = { config, deps, baseline, environment };
  const reports: BenchmarkReport[] = [];
  for (const spec of config.benchmarks) reports.push(...(await gateBenchmark(spec, context)));
  if (baseline) unmatchedBaselineFile(baseline, reports, config.benchmarks.length === 1);
  // Everything below is published: no secret of ours may be in it (report/redact.ts).
  const report = buildGateReport({
    benchmarks: reports,
    environment,
    warnings: [...probed.warnings, ...(baseline?.warnings ?? [])],
    ...(baseline ? { baselineSource: baseline.source } : {}),
    isolation: isolationNote(deps.runner.sandbox),
    ...(deps.runUrl ? { runUrl: deps.runUrl } : {}),
    ...(deps.now ? { now: deps.now() } : {}),
  });
  return redactStrings(report, gateSecrets(config, deps.env));
}

/** The comment footer's words for how the benchmark's processes were isolated. */
export function isolationNote(sandbox: Sandbox): string {
  return sandbox.kind === 'none' ? 'none (pull-request code could read the runner)' : sandbox.kind;
}

/**
 * Runs one benchmark and judges it; while a metric is beyond its threshold without clear
 * evidence, adds one confirmation run at a time (at most confirm-runs), judging all runs
 * together at each look (sequential.ts).
 */
async function gateBenchmark(
  spec: BenchmarkSpec,
  context: GateContext,
): Promise<BenchmarkReport[]> {
  const { deps, config } = context;
  const profiling = await shouldProfile(
    spec.profile,
    deps.env,
    undefined,
    deps.storesBaseline === true || config.saveBaseline !== undefined,
  );
  const upFront = profiling.profile && profiling.onlyWhenMoved !== true;
  deps.log.info(
    `${spec.name}: ${spec.runs} clean run(s)${upFront ? ' and 1 profiled run' : ''}; ${profiling.reason}`,
  );
  const runOptions = {
    runner: deps.runner,
    log: deps.log,
    outDir: config.outDir,
    baseEnv: deps.env,
  };
  let outcomes = await runBenchmark(spec, { ...runOptions, profile: upFront });
  let profile = upFront ? await profileOf(outcomes, spec, context) : undefined;
  // This benchmark's share of the gate's false-alarm budget, spread over its looks, which
  // the first look plans from the spreads of its results (sequential.ts: planLooks), once.
  const budget = sidakLevel(GATE_FALSE_ALARM_RATE, config.benchmarks.length);
  let planned: LookPlan | undefined;
  const judgeLook = (look: number) =>
    measureAndJudge(spec, outcomes, profile, context, (members) => {
      planned ??= planLooks(members, budget, spec.confirmRuns);
      return lookOptions(planned, look);
    });
  const first = await judgeLook(0);
  // A first look that could not judge (a failed run) plans nothing: no run more then.
  const plan = planned ?? sequentialPlan(budget, 0);
  if (plan.schedule.length === 1 && spec.confirmRuns > 0 && planned) {
    deps.log.info(
      `${spec.name}: confirmation runs could not narrow the intervals enough to pay for more ` +
        'looks (day-to-day drift the runs of one day cannot average away): one look, with the whole budget',
    );
  }
  let reports = first;
  let extra = 0;
  const { schedule } = plan;
  let lastLook = 0;
  for (let look = 1; look < schedule.length && needsMoreRuns(reports); look += 1) {
    const count = schedule[look]! - extra;
    deps.log.info(
      `${spec.name}: a change is not settled yet (it may be a regression of twice its threshold); ` +
        `${count} confirmation run(s) more (at most ${spec.confirmRuns} in all)`,
    );
    outcomes = [
      ...outcomes,
      ...(await runConfirmationRuns(spec, {
        ...runOptions,
        profile: false,
        firstIndex: outcomes.length + 1,
        count,
        step: extra + 1,
        of: spec.confirmRuns,
      })),
    ];
    extra = schedule[look]!;
    lastLook = look;
    reports = await judgeLook(look);
  }
  const judged = !reports.some((report) => report.verdict === 'error');
  if (profiling.onlyWhenMoved === true && judged) {
    // profile: on-change: the profile is paid for only when a timing metric moved.
    if (gatedMetricMoved(reports)) {
      deps.log.info(
        `${spec.name}: a gated metric ends beyond its threshold, so 1 profiled run follows (profile: on-change)`,
      );
      outcomes = [
        ...outcomes,
        await runLateProfiledRun(spec, {
          ...runOptions,
          profile: true,
          index: outcomes.length + 1,
        }),
      ];
      profile = await profileOf(outcomes, spec, context);
    } else {
      deps.log.info(`${spec.name}: ${NOT_PROFILED_UNMOVED}`);
      profile = notProfiled(NOT_PROFILED_UNMOVED);
    }
    // The last look again, with the profile (MFU, MBU) or the reason there is none.
    reports = await judgeLook(lastLook);
  }
  if (extra === 0) return logUngated(reports, deps.log);
  return logUngated(
    reports.map((report) => withConfirmation(report, first, extra)),
    deps.log,
  );
}

/** Why MFU and MBU are not measured on a pull request whose timings did not move. */
export const NOT_PROFILED_UNMOVED = 'not profiled: profile: on-change and no timing metric moved';

/** No profiled run, and why: nothing measured, nothing on disk. */
function notProfiled(note: string): ProfileSummary {
  return {
    status: 'not-requested',
    note,
    ntffFiles: [],
    neffFiles: [],
    totalBytes: 0,
    metrics: {},
  };
}

/**
 * Whether a gated metric ends beyond its threshold: a regression, or a change the runs
 * cannot tell from one (inconclusive). What `profile: on-change` profiles for.
 */
export function gatedMetricMoved(reports: readonly BenchmarkReport[]): boolean {
  return reports.some((report) =>
    report.metrics.some(
      (m) => m.threshold !== null && (m.verdict === 'regression' || m.verdict === 'inconclusive'),
    ),
  );
}

/** A benchmark that cannot fail is worth a line in the log, not only in the report. */
function logUngated(reports: BenchmarkReport[], log: Logger): BenchmarkReport[] {
  for (const report of reports) {
    for (const warning of report.warnings.filter((w) => w.startsWith(NO_GATED_METRIC))) {
      log.warning(`${report.name}: ${warning}`);
    }
  }
  return reports;
}

/** What the confirmation runs changed, for the report. */
function withConfirmation(
  report: BenchmarkReport,
  before: BenchmarkReport[],
  runs: number,
): BenchmarkReport {
  const earlier = before.find((b) => b.name === report.name);
  return {
    ...report,
    confirmation: {
      runs,
      verdictBefore: earlier?.verdict ?? 'error',
      metricsBefore: (earlier?.metrics ?? []).map(({ id, verdict, change }) => ({
        id,
        verdict,
        change,
      })),
    },
  };
}

async function profileOf(
  outcomes: RunOutcome[],
  spec: BenchmarkSpec,
  context: GateContext,
): Promise<ProfileSummary | undefined> {
  const profiled = outcomes.find((o) => o.kind === 'profiled');
  if (!profiled?.ok || !profiled.profileDir) return undefined;
  return summarizeProfile(profiled.profileDir, {
    env: context.deps.env,
    runner: context.deps.runner,
    root: context.config.outDir,
    // The profiler's summaries share the benchmark's timeout-minutes (capped at 10 minutes).
    timeoutMs: timeoutMsOf(spec),
    ...(context.config.profilerPath ? { profilerPath: context.config.profilerPath } : {}),
  });
}

/** Parses every clean run so far and judges the benchmark on all of them together. */
async function measureAndJudge(
  spec: BenchmarkSpec,
  outcomes: RunOutcome[],
  profile: ProfileSummary | undefined,
  context: GateContext,
  lookOf: (members: FamilyMember[]) => LookOptions,
): Promise<BenchmarkReport[]> {
  const clean = outcomes.filter((o) => o.kind === 'clean');
  const failed = clean.find((o) => !o.ok);
  if (failed) return [errorReport(spec, outcomes, runFailure(spec, failed))];

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

  const warnings: string[] = leftoverWarnings(outcomes);
  const profiled = outcomes.find((o) => o.kind === 'profiled');
  if (profiled && !profiled.ok) {
    warnings.push(
      `the profiled run failed, so there is no profile (the timing verdict stands): ${profiled.error ?? 'unknown error'}`,
    );
  }
  const profiledThroughput = await profiledRunThroughput(spec, profiled);
  for (const result of results) {
    result.runs = outcomes.map(runInfo);
    result.environment = {
      ...context.environment,
      ...(spec.configHash ? { configHash: spec.configHash } : {}),
    };
    if (profile) {
      // Timing metrics come from the clean runs only; the profile adds MFU and MBU.
      result.profile = withProfilingOverhead(profile, result, profiledThroughput);
      result.metrics.push(...profileMetrics(profile));
      const notMeasured = { ...result.notMeasured, ...profileNotMeasured(profile) };
      if (Object.keys(notMeasured).length > 0) result.notMeasured = notMeasured;
    }
  }
  const chosen = await chooseBaselines(
    context.baseline,
    results,
    context.config.baselineMatch,
    context.config.benchmarks.length === 1,
  );
  const options: JudgeOptions = {
    confidence: context.config.confidence,
    failOnInconclusive: context.config.failOnInconclusive,
    ...lookOf(familyMembers(results, chosen.baseline, () => spec.thresholds)),
  };
  const now = (context.deps.now?.() ?? new Date()).toISOString();
  return judgeResults(results, chosen.baseline, () => spec.thresholds, options).map((report) => {
    const info = chosen.infos.get(report.name);
    const trend = trendOf(report, context.baseline?.history?.(report.name) ?? [], now);
    const latencyCurve = latencyCurveOf(
      report.result,
      chosen.baseline?.benchmarks.find((b) => b.name === report.name),
    );
    return {
      ...report,
      ...(info ? { baselineInfo: info } : {}),
      ...(trend ? { trend } : {}),
      ...(latencyCurve ? { latencyCurve } : {}),
      warnings: [...report.warnings, ...warnings, ...(chosen.warnings.get(report.name) ?? [])],
    };
  });
}

/**
 * Each result's baseline, chosen for the result's own environment: by the store (record
 * stores), else the stored result of the same name, checked the same way (chooseByName).
 */
async function chooseBaselines(
  baseline: Baseline | undefined,
  results: BenchmarkResult[],
  match: BaselineMatch,
  onlyBenchmark: boolean,
): Promise<{
  baseline: Baseline | undefined;
  infos: Map<string, BaselineInfo>;
  warnings: Map<string, string[]>;
}> {
  const infos = new Map<string, BaselineInfo>();
  const warnings = new Map<string, string[]>();
  if (!baseline) return { baseline, infos, warnings };
  const paired = onlyBenchmark ? pairedSingle(baseline, results) : undefined;
  if (paired) {
    baseline = paired.baseline;
    warnings.set(paired.name, [paired.note]);
  }
  const chosen: BenchmarkResult[] = [];
  for (const result of results) {
    if (baseline.choose) {
      const choice = await baseline.choose(result.name, result.environment ?? {});
      infos.set(result.name, choice.info);
      if (choice.warnings) warnings.set(result.name, choice.warnings);
      if (choice.result) chosen.push(choice.result);
      continue;
    }
    const choice = chooseByName(baseline, result, match);
    // A file names itself in the report already; only what differs needs a line here.
    if (choice.info.environmentNotes) infos.set(result.name, choice.info);
    if (choice.result) chosen.push(choice.result);
  }
  return { baseline: { source: baseline.source, benchmarks: chosen }, infos, warnings };
}

/**
 * A baseline file holding one benchmark, compared with a gate that measured one: they are
 * paired whatever their names (an unnamed `--command` run against a saved, named
 * baseline), and the report says so, as `compare` does. Stores the gate keeps match by name.
 */
function pairedSingle(
  baseline: Baseline,
  results: BenchmarkResult[],
): { baseline: Baseline; name: string; note: string } | undefined {
  const [stored] = baseline.benchmarks;
  const [result] = results;
  if (!baseline.named || baseline.benchmarks.length !== 1 || results.length !== 1) return undefined;
  if (!stored || !result || stored.name === result.name) return undefined;
  return {
    baseline: { ...baseline, benchmarks: [{ ...stored, name: result.name }] },
    name: result.name,
    note:
      `compared current ${JSON.stringify(result.name)} with baseline ${JSON.stringify(stored.name)}: ` +
      'the names differ, and each side holds one benchmark',
  };
}

/**
 * A baseline file the user named, none of whose benchmarks matches a measured one,
 * compares with nothing: an error (exit 2), never a pass. Stores the gate keeps (records,
 * artifacts) are exempt: a renamed or new benchmark has no baseline there yet.
 */
function unmatchedBaselineFile(
  baseline: Baseline,
  reports: BenchmarkReport[],
  onlyBenchmark: boolean,
): void {
  if (!baseline.named || baseline.benchmarks.length === 0 || reports.length === 0) return;
  // A benchmark that failed to run says so (exit 3); one and one were paired.
  if (reports.some((report) => report.error !== undefined)) return;
  if (onlyBenchmark && reports.length === 1 && baseline.benchmarks.length === 1) return;
  const names = new Set(reports.map((report) => report.name));
  if (baseline.benchmarks.some((stored) => names.has(stored.name))) return;
  const list = (items: { name: string }[]) => items.map((b) => JSON.stringify(b.name)).join(', ');
  throw inputError(
    baseline.source,
    `no baseline benchmark (${list(baseline.benchmarks)}) matches a measured one ` +
      `(${list(reports)}); benchmarks are matched by name: give the benchmark the baseline's ` +
      'name (name: in the config, --name), or pass the baseline file of these benchmarks',
  );
}

/**
 * Runs a benchmark's clean runs only and parses them, for calibration: no profile, no
 * baseline, no verdict.
 */
export async function measureRuns(
  spec: BenchmarkSpec,
  deps: Pick<GateDependencies, 'runner' | 'log' | 'env'> & { outDir: string },
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
async function profiledRunThroughput(
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
  const runs: ParsedRun[] = [];
  let format = spec.format;
  for (const outcome of clean) {
    const parsed = await parseResultFile(outcome.resultPath, format);
    // Once detected, the same format holds for every run of this benchmark.
    format = parsed.format;
    // A JSON Lines file (vllm bench serve --append-result) holds several runs.
    for (const run of parsed.runs) runs.push({ file: outcome.resultPath, benchmarks: run });
  }
  return aggregateRuns(runs, spec.name).map((benchmark) => ({
    name: benchmark.name,
    source: spec.name,
    format,
    metrics: benchmark.metrics,
    runs: [],
    ...(benchmark.info ? { info: benchmark.info } : {}),
    ...(benchmark.notMeasured ? { notMeasured: benchmark.notMeasured } : {}),
    ...(spec.sweep ? { sweep: spec.sweep } : {}),
  }));
}

function runFailure(spec: BenchmarkSpec, outcome: RunOutcome): string {
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
function leftoverWarnings(outcomes: RunOutcome[]): string[] {
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
