// The gate, stage by stage: config ─► run ─► parse ─► profile ─► derive ─► baseline ─► compare ─► report.
// Shared by the action (src/main.ts) and the CLI (src/cli.ts); publishing is theirs.

import { chooseBaselines, unmatchedBaselineFile } from './baseline/for-results.js';
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
  planLooks,
  sequentialPlan,
  withConfirmation,
  type LookOptions,
  type LookPlan,
} from './compare/sequential.js';
import { GATE_FALSE_ALARM_RATE } from './config/defaults.js';
import { sidakLevel } from './stats/multiplicity.js';
import { unusedThresholdWarnings } from './compare/threshold-keys.js';
import type { BenchmarkSpec, GateConfig, ServerSpec } from './config/types.js';
import type { ServedSide } from './accuracy/check.js';
import { withAgreement } from './accuracy/agreement-report.js';
import { storedAgreement } from './accuracy/stored-check.js';
import { withFreshServer } from './runner/fresh-server.js';
import { costApplies, withCostMetrics } from './derive/cost.js';
import { priceFor, unknownPriceKeyWarnings } from './derive/prices.js';
import { probeEnvironmentWithWarnings } from './environment/probe.js';
import { errorMessage } from './errors.js';
import type { Logger } from './log.js';
import type {
  BaselineInfo,
  BenchmarkReport,
  BenchmarkResult,
  CompileCacheSummary,
  CostBasis,
  Environment,
  GateReport,
  ProfileSummary,
  RunOutcome,
  StoredAnswers,
} from './model.js';
import {
  observeCompileCache,
  runsThatCompiled,
  watchCompileCache,
} from './observe/compile-cache.js';
import type { CacheListing } from './observe/compile-cache-dir.js';
import { withCompileCache } from './observe/compile-metrics.js';
import { profileMetrics, profileNotMeasured, withProfilingOverhead } from './profile/metrics.js';
import { profileDiffOf } from './profile/opdiff/profile-diff.js';
import { healthyRuns } from './observe/run-health.js';
import { summarizeProfile } from './profile/summarize.js';
import { lncOf } from './profile/logical-core.js';
import { buildGateReport } from './report/build.js';
import { capacityConfigHash } from './config/config-hash.js';
import { settingEntries } from './config/setting-sweeps.js';
import { deriveBestSetting } from './derive/best-setting.js';
import { capacityName } from './derive/capacity.js';
import type { SloSpec } from './config/slo.js';
import { deriveAll } from './derive/slo-metrics.js';
import { capacityCurveOf } from './derive/stored-curve.js';
import {
  judgeCapacityWithPasses,
  type CapacityPassOptions,
  type VariantRuns,
} from './compare/capacity-passes.js';
import { judgeCapacityBySearch } from './compare/capacity-search-run.js';
import {
  confirmLooks,
  restartsOf,
  type ConfirmedLooks,
  type Restarted,
} from './compare/confirmation-looks.js';
import { latencyCurveOf, trendOf } from './report/chart-data.js';
import { distributionsOf } from './report/latency-distributions.js';
import { gateSecrets, redactStrings } from './report/redact.js';
import {
  runBenchmark,
  runConfirmationRuns,
  runLateProfiledRun,
  timeoutMsOf,
} from './runner/benchmark.js';
import { shouldProfile } from './runner/detect-neuron.js';
import type { Sandbox } from './runner/sandbox.js';
import {
  openSharedServer,
  serverGroups,
  SERVER_STARTUP_METRIC,
  serverStartupMetric,
  sweepGroups,
  withServerSummary,
} from './runner/served-benchmarks.js';
import type { ServerSession } from './runner/server-session.js';
import type { ProcessRunner } from './runner/types.js';
import { memoryMetrics } from './observe/memory-figures.js';
import { coldStart } from './observe/cold-start.js';
import { serverColdStart, takesServerColdStart } from './observe/server-cold-start.js';
import { servedStartupFigures, serverStartLogs } from './observe/served-startup.js';
import { startupFigures, withStartup } from './observe/startup-metrics.js';
import { memoryObserver } from './observe/run-observer.js';
import { watchServerView } from './observe/server-view.js';
import { serverViewMetrics } from './observe/server-view-metrics.js';
import {
  errorReport,
  leftoverWarnings,
  parseCleanRuns,
  profiledRunThroughput,
  runFailure,
  runInfo,
} from './runner/measured.js';

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
  /** A pull request's run: it never makes the answers later runs are compared with. */
  pullRequest?: boolean;
}

/** Everything one benchmark's judgement needs besides its own runs. */
interface GateContext {
  config: GateConfig;
  deps: GateDependencies;
  baseline: Baseline | undefined;
  environment: Environment;
  /** The hourly price of this runner for the cost metrics, or why there is none. */
  cost: CostBasis;
  /** The server the benchmark's runs talk to; `first`: its start-up is this benchmark's metric. */
  server?: { session: ServerSession; first: boolean };
  /** What the benchmark's first runs did with the Neuron compile cache. */
  compileCache?: CompileCacheSummary;
  /** Each compile cache folder as this gate run first listed it (was it cold before the run). */
  cacheListings: Map<string, CacheListing>;
  /** Its cold start on an empty compile cache (`startup: { cold: true }`). */
  coldStart?: Awaited<ReturnType<typeof coldStart>>;
  /** Each benchmark's baseline answers to its agreement check, as judging chose them. */
  storedAnswers: Map<string, StoredAnswers>;
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
  const cost = priceFor(environment.instanceType, config.pricePerHour);
  const context: GateContext = {
    config,
    deps,
    baseline,
    environment,
    cost,
    cacheListings: new Map(),
    storedAnswers: new Map(),
  };
  const reports: BenchmarkReport[] = [];
  const capacities: BenchmarkReport[] = [];
  // Benchmarks that share a server run against one (the server lifecycle wraps their runs),
  // a sweep's variants together; a sweep with an SLO is judged once more as a whole, while
  // its server is up: its capacity under the SLO, after the variants' reports.
  for (const group of sweepGroups(serverGroups(config.benchmarks))) {
    const gated = await gateGroup(group, context);
    reports.push(...gated.reports);
    capacities.push(...gated.capacity);
  }
  reports.push(...capacities);
  // Each entry with server settings: its best setting, from the settings' capacities.
  reports.push(...(await gateBestSettings(capacities, context)));
  if (baseline) unmatchedBaselineFile(baseline, reports, config.benchmarks.length === 1);
  // Everything below is published: no secret of ours may be in it (report/redact.ts).
  const report = buildGateReport({
    benchmarks: reports,
    environment,
    warnings: [
      ...probed.warnings,
      ...(baseline?.warnings ?? []),
      ...unknownPriceKeyWarnings(config.pricePerHour),
      ...unusedThresholdWarnings(
        config.benchmarks.flatMap((spec) => Object.keys(spec.thresholds)),
        reports,
      ),
    ],
    ...(baseline ? { baselineSource: baseline.source } : {}),
    isolation: isolationNote(deps.runner.sandbox),
    // The cost line, for a gate with a rate to price (a micro-benchmark's ops/s has none).
    ...(reports.some((r) => r.result && costApplies(r.result)) ? { cost } : {}),
    ...(deps.runUrl ? { runUrl: deps.runUrl } : {}),
    ...(deps.now ? { now: deps.now() } : {}),
  });
  return redactStrings(report, gateSecrets(config, deps.env));
}

/**
 * Benchmarks that share a server (a sweep's variants) run against one the gate starts for
 * the first and stops after the last; any other benchmark runs on its own. A whole sweep
 * with an SLO has its capacity judged before the server stops (its passes need it).
 */
async function gateGroup(
  specs: BenchmarkSpec[],
  context: GateContext,
): Promise<{ reports: BenchmarkReport[]; capacity: BenchmarkReport[] }> {
  const { deps, config } = context;
  const session = await openSharedServer(specs, {
    runner: deps.runner,
    log: deps.log,
    baseEnv: deps.env,
    outDir: config.outDir,
  });
  const reports: BenchmarkReport[] = [];
  const capacity: BenchmarkReport[] = [];
  let first: GatedBenchmark | undefined;
  try {
    const variants: VariantRuns[] = [];
    for (const spec of specs) {
      const server = session ? { session, first: spec === specs[0] } : undefined;
      const gated = await gateBenchmark(spec, { ...context, ...(server ? { server } : {}) });
      first ??= gated;
      reports.push(...gated.reports);
      variants.push({ spec, outcomes: gated.outcomes, ...measuredResult(spec, gated.reports) });
    }
    for (const sweep of capacitySweeps(specs)) {
      capacity.push(...(await gateCapacity(sweep, variants, { ...context, session })));
    }
  } finally {
    await session?.close();
  }
  if (!session) return { reports, capacity };
  if (first && startsAfterJudged(first.reports, session)) {
    // The later variants started the server cleanly again (after a profiled run): the
    // first is judged once more, its server_startup with every clean start.
    const count = serverStartupMetric(session.starts)!.values.length;
    deps.log.info(`${specs[0]!.name}: server_startup judged again, on ${count} clean starts`);
    const again = await first.again();
    reports.splice(0, first.reports.length, ...again);
  }
  // The agreement check starts servers of its own: after the group's is stopped.
  const checked = await withStoredAgreement(reports, specs[0]!, context);
  return { reports: withServerSummary(checked, session, config.outDir), capacity };
}

/** A variant's result as its own look judged it; none when it could not be measured. */
function measuredResult(
  spec: BenchmarkSpec,
  reports: readonly BenchmarkReport[],
): { result?: BenchmarkResult } {
  const report = reports.find((r) => r.name === spec.name && r.verdict !== 'error');
  return report?.result ? { result: report.result } : {};
}

/** Whether the server became ready from a clean start after the group's first benchmark was judged. */
function startsAfterJudged(judged: readonly BenchmarkReport[], session: ServerSession): boolean {
  const counted = judged[0]?.result?.metrics.find((m) => m.id === SERVER_STARTUP_METRIC.id);
  const now = serverStartupMetric(session.starts);
  return counted !== undefined && now !== undefined && now.values.length > counted.values.length;
}

/** A benchmark's reports, its runs, and its last look judged again (with what the session knows now). */
interface GatedBenchmark {
  reports: BenchmarkReport[];
  outcomes: RunOutcome[];
  again: () => Promise<BenchmarkReport[]>;
}

/** The comment footer's words for how the benchmark's processes were isolated. */
export function isolationNote(sandbox: Sandbox): string {
  return sandbox.kind === 'none' ? 'none (pull-request code could read the runner)' : sandbox.kind;
}

/**
 * Runs one benchmark and judges it: its first runs, then confirmation looks while a metric
 * is beyond its threshold without clear evidence (sequential.ts), then with `profile:
 * on-change` a profiled run when a gated metric moved.
 */
async function gateBenchmark(spec: BenchmarkSpec, context: GateContext): Promise<GatedBenchmark> {
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
  const runOptions = benchmarkRunOptions(spec, context);
  const measured = await firstRuns(spec, context, runOptions, upFront);
  context = measured.context;
  const runs: BenchmarkRuns = {
    outcomes: measured.outcomes,
    profile: upFront ? await profileOf(measured.outcomes, spec, context) : undefined,
  };
  const looks = benchmarkLooks(spec, context, runs);
  const first = await looks.judge(0);
  const looked = await confirmUntilSettled(spec, context, { runs, runOptions, looks, first });
  const { lastLook } = looked;
  let reports = looked.reports;
  if (profiling.onlyWhenMoved === true && !reports.some((r) => r.verdict === 'error')) {
    await profileIfMoved(spec, context, runs, runOptions, reports);
    // The last look again, with the profile (MFU, MBU) or the reason there is none.
    reports = await looks.judge(lastLook);
  }
  return {
    reports: logUngated(withLooks(reports, first, looked), deps.log),
    outcomes: runs.outcomes,
    again: async () => withLooks(await looks.judge(lastLook), first, looked),
  };
}

/** Each report with what the confirmation looks took, and their warnings; as it is without any. */
function withLooks(
  reports: BenchmarkReport[],
  first: readonly BenchmarkReport[],
  { taken, warnings }: ConfirmedLooks,
): BenchmarkReport[] {
  if (taken.runs + taken.restarts === 0) return reports;
  return reports.map((report) => ({
    ...withConfirmation(report, first, taken.runs, restartsOf(taken)),
    warnings: [...report.warnings, ...warnings],
  }));
}

/** A benchmark's runs so far and its profile: what each look judges, growing as it runs. */
interface BenchmarkRuns {
  outcomes: RunOutcome[];
  profile: ProfileSummary | undefined;
}

type RunOptions = ReturnType<typeof benchmarkRunOptions>;

/** How the benchmark's runs are started: against its server, watched with `monitor:`. */
function benchmarkRunOptions(spec: BenchmarkSpec, context: GateContext) {
  const { deps, config } = context;
  return {
    runner: deps.runner,
    log: deps.log,
    outDir: config.outDir,
    baseEnv: deps.env,
    ...(context.server ? { server: context.server.session } : {}),
    // server: its /metrics scraped around each clean run (observe/server-view.ts).
    ...(spec.server ? { watchServer: watchServerView } : {}),
    // monitor: neuron-monitor and /proc watch each clean run (src/observe/).
    ...(spec.monitor
      ? {
          observe: memoryObserver(spec.monitor, {
            runner: deps.runner,
            cwd: spec.workingDirectory,
            outDir: config.outDir,
          }),
        }
      : {}),
  };
}

/**
 * The benchmark's first runs, and what the context learns from them: the compile cache's
 * new entries (graphs compiled), and with `startup: { cold: true }` its cold start.
 */
async function firstRuns(
  spec: BenchmarkSpec,
  context: GateContext,
  runOptions: RunOptions,
  profile: boolean,
): Promise<{ outcomes: RunOutcome[]; context: GateContext }> {
  const { deps } = context;
  // The compile cache before and after the first runs: new entries are graphs compiled.
  const cache = await watchCompileCache(
    { ...deps.env, ...spec.env, ...spec.server?.env },
    spec.workingDirectory,
    context.cacheListings,
  );
  // A server's cold start comes first, while its port is free (observe/server-cold-start.ts).
  const coldOptions = { ...runOptions, baseEnv: deps.env, cache: cache.location };
  const servedCold = takesServerColdStart(spec, context.server)
    ? await serverColdStart(spec, coldOptions)
    : undefined;
  const startsBefore = context.server?.session.starts.length ?? 0;
  const outcomes = await runBenchmark(spec, { ...runOptions, profile });
  const starts = serverStartLogs(context.server?.session.starts.slice(startsBefore) ?? []);
  const compileCache = await observeCompileCache(cache, outcomes, outcomes, starts);
  if (compileCache) context = { ...context, compileCache };
  if (servedCold) context = { ...context, coldStart: servedCold };
  // startup: { cold: true }: after the cache's second look, on a cache of its own.
  else if (
    spec.startup?.cold &&
    !spec.server &&
    outcomes.every((o) => o.ok || o.kind === 'profiled')
  ) {
    const cold = await coldStart(spec, coldOptions);
    context = { ...context, coldStart: cold };
  }
  return { outcomes, context };
}

/** Judges the benchmark's runs so far at one look; the first look plans them all. */
interface BenchmarkLooks {
  judge: (look: number) => Promise<BenchmarkReport[]>;
  /** The plan, and whether the first look made it (one that could not judge plans none). */
  plan: () => { plan: LookPlan; planned: boolean };
}

/**
 * This benchmark's share of the gate's false-alarm budget, spread over its looks, which
 * the first look plans from the spreads of its results (sequential.ts: planLooks), once.
 */
function benchmarkLooks(
  spec: BenchmarkSpec,
  context: GateContext,
  runs: BenchmarkRuns,
): BenchmarkLooks {
  const budget = benchmarkBudget(context.config);
  let planned: LookPlan | undefined;
  return {
    judge: (look) =>
      measureAndJudge(spec, runs.outcomes, runs.profile, context, (members) => {
        planned ??= planLooks(members, budget, spec.confirmRuns);
        return lookOptions(planned, look);
      }),
    // A first look that could not judge (a failed run) plans nothing: no run more then.
    plan: () => ({ plan: planned ?? sequentialPlan(budget, 0), planned: planned !== undefined }),
  };
}

/**
 * The looks after the first (compare/confirmation-looks.ts): confirmation runs while a
 * metric of the runs is open, restarts of the benchmark's server while its start-up is.
 */
async function confirmUntilSettled(
  spec: BenchmarkSpec,
  context: GateContext,
  progress: {
    runs: BenchmarkRuns;
    runOptions: RunOptions;
    looks: BenchmarkLooks;
    first: BenchmarkReport[];
  },
): Promise<ConfirmedLooks> {
  const { deps } = context;
  const { runs, runOptions, looks } = progress;
  const { plan, planned } = looks.plan();
  if (plan.schedule.length === 1 && spec.confirmRuns > 0 && planned) {
    deps.log.info(
      `${spec.name}: confirmation runs could not narrow the intervals enough to pay for more ` +
        'looks (day-to-day drift the runs of one day cannot average away): one look, with the whole budget',
    );
  }
  const restart = context.server?.first
    ? confirmationRestarts(context.server.session, spec)
    : undefined;
  return confirmLooks(progress.first, {
    name: spec.name,
    schedule: plan.schedule,
    maxExtra: spec.confirmRuns,
    log: deps.log,
    judgeLook: looks.judge,
    takeRuns: async (count, step) => {
      const more = await runConfirmationRuns(spec, {
        ...runOptions,
        profile: false,
        firstIndex: runs.outcomes.length + 1,
        count,
        step,
        of: spec.confirmRuns,
      });
      runs.outcomes = [...runs.outcomes, ...more];
    },
    ...(restart ? { restart: (count, step) => restart(count, step, runs.outcomes.length) } : {}),
  });
}

/**
 * `profile: on-change`: the profile is paid for only when a timing metric moved; a
 * profiled run then, or the reason there is none, into `runs`.
 */
async function profileIfMoved(
  spec: BenchmarkSpec,
  context: GateContext,
  runs: BenchmarkRuns,
  runOptions: RunOptions,
  reports: readonly BenchmarkReport[],
): Promise<void> {
  const { log } = context.deps;
  if (!gatedMetricMoved(reports)) {
    log.info(`${spec.name}: ${NOT_PROFILED_UNMOVED}`);
    runs.profile = notProfiled(NOT_PROFILED_UNMOVED);
    return;
  }
  log.info(
    `${spec.name}: a gated metric ends beyond its threshold, so 1 profiled run follows (profile: on-change)`,
  );
  const index = runs.outcomes.length + 1;
  const profiled = await runLateProfiledRun(spec, { ...runOptions, profile: true, index });
  runs.outcomes = [...runs.outcomes, profiled];
  runs.profile = await profileOf(runs.outcomes, spec, context);
}

/**
 * Confirmation restarts of the benchmark's server (compare/confirmation-looks.ts): each a
 * clean start, `server_startup` one value more; stops at the first that never became ready.
 */
function confirmationRestarts(session: ServerSession, spec: BenchmarkSpec) {
  return async (count: number, step: number, lastRun: number): Promise<Restarted> => {
    for (let done = 0; done < count; done += 1) {
      const number = step + done;
      const purpose = `confirmation restart ${number} of ${spec.confirmRuns}`;
      const ready = await session.restart(lastRun, purpose);
      if (!ready.ok) {
        const failure = `${purpose} never became ready (${ready.failure.error}); server_startup is judged on the starts before it`;
        return { restarts: done, failure };
      }
    }
    return { restarts: count };
  };
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

async function profileOf(
  outcomes: RunOutcome[],
  spec: BenchmarkSpec,
  context: GateContext,
): Promise<ProfileSummary | undefined> {
  const profiled = outcomes.find((o) => o.kind === 'profiled');
  if (!profiled?.ok || !profiled.profileDir) return undefined;
  const summary = await summarizeProfile(profiled.profileDir, {
    env: context.deps.env,
    runner: context.deps.runner,
    root: context.config.outDir,
    // The profiler's summaries share the benchmark's timeout-minutes (capped at 10 minutes).
    timeoutMs: timeoutMsOf(spec),
    ...(context.config.profilerPath ? { profilerPath: context.config.profilerPath } : {}),
    ...lncOf(context.environment, spec),
  });
  return profiled.capture ? { ...summary, capture: profiled.capture } : summary;
}

/** Parses every clean run so far and judges the benchmark on all of them together. */
async function measureAndJudge(
  spec: BenchmarkSpec,
  outcomes: RunOutcome[],
  profile: ProfileSummary | undefined,
  context: GateContext,
  lookOf: (members: FamilyMember[]) => LookOptions,
): Promise<BenchmarkReport[]> {
  const ran = outcomes.filter((o) => o.kind === 'clean');
  const failed = ran.find((o) => !o.ok);
  if (failed) return [errorReport(spec, outcomes, runFailure(spec, failed))];
  // Runs on a faulty device (execution errors, new ECC events) are named, not judged.
  const { healthy: clean, leftOut } = healthyRuns(ran);
  if (clean.length === 0) {
    return [errorReport(spec, outcomes, `no clean run can be judged: ${leftOut.join('; ')}`)];
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

  const warnings: string[] = [
    ...leftOut,
    ...leftoverWarnings(outcomes),
    ...(context.compileCache?.warnings ?? []).map((w) => `compile cache: ${w}`),
  ];
  const memory = spec.monitor ? memoryMetrics(clean) : undefined;
  if (memory) warnings.push(...memory.warnings);
  const serverView = serverViewMetrics(clean);
  warnings.push(...serverView.warnings);
  const cold = context.coldStart;
  const started = !spec.startup
    ? undefined
    : spec.server // its clean starts are server_startup: a cold start only, for the first
      ? context.server?.first
        ? await servedStartupFigures(spec.startup, cold?.summary, context.server.session.starts)
        : undefined
      : startupFigures(spec.startup, clean, cold?.summary, await runsThatCompiled(clean));
  if (started) warnings.push(...started.warnings, ...(cold?.warnings ?? []));
  const profiled = outcomes.find((o) => o.kind === 'profiled');
  if (profiled && !profiled.ok) {
    warnings.push(
      `the profiled run failed, so there is no profile (the timing verdict stands): ${profiled.error ?? 'unknown error'}`,
    );
  }
  const profiledThroughput = await profiledRunThroughput(spec, profiled);
  // The derive stage: the SLO's metrics from the runs' requests (goodput, attainment).
  const derived = deriveAll(results, spec.slo);
  results = derived.map((d) => d.result);
  const derivedWarnings = new Map(derived.map((d) => [d.result.name, d.warnings]));
  for (const result of results) {
    result.runs = outcomes.map(runInfo);
    result.environment = {
      ...context.environment,
      ...(spec.configHash ? { configHash: spec.configHash } : {}),
    };
    const startup = context.server?.first
      ? serverStartupMetric(context.server.session.starts)
      : undefined;
    if (startup) result.metrics.push(startup);
    withCompileCache(result, context.compileCache);
    withStartup(result, started);
    result.metrics.push(...serverView.metrics);
    if (memory) {
      result.metrics.push(...memory.metrics);
      if (Object.keys(memory.notMeasured).length > 0) {
        result.notMeasured = { ...result.notMeasured, ...memory.notMeasured };
      }
    }
    if (profile) {
      // Timing metrics come from the clean runs only; the profile adds MFU and MBU.
      result.profile = withProfilingOverhead(profile, result, profiledThroughput);
      result.metrics.push(...profileMetrics(profile));
      const notMeasured = { ...result.notMeasured, ...profileNotMeasured(profile) };
      if (Object.keys(notMeasured).length > 0) result.notMeasured = notMeasured;
    }
  }
  return judgeWithBaselines(results, context, {
    thresholds: spec.thresholds,
    lookOf,
    warningsOf: (name) => [...(derivedWarnings.get(name) ?? []), ...warnings],
    // One configured benchmark is paired with a baseline file's one benchmark by any name.
    pairSingle: context.config.benchmarks.length === 1,
  });
}

/** How judgeWithBaselines judges: the thresholds, the look's budget, extra warnings. */
interface JudgeWith {
  thresholds: Record<string, number>;
  lookOf: (members: FamilyMember[]) => Pick<JudgeOptions, keyof LookOptions>;
  warningsOf: (name: string) => string[];
  pairSingle: boolean;
}

/**
 * Judges results against their baselines, each chosen for its environment, with the
 * trend and charts the comment draws: the last step of a measured benchmark and of a
 * derived one (a sweep's capacity).
 */
async function judgeWithBaselines(
  results: BenchmarkResult[],
  context: GateContext,
  { thresholds, lookOf, warningsOf, pairSingle }: JudgeWith,
): Promise<BenchmarkReport[]> {
  const chosen = await chooseBaselines(
    context.baseline,
    results,
    context.config.baselineMatch,
    pairSingle,
  );
  // Cost per 1M tokens or requests, both sides at this run's price (derive/cost.ts).
  const priced = withCostMetrics(results, chosen.baseline, context.cost);
  const options: JudgeOptions = {
    confidence: context.config.confidence,
    failOnInconclusive: context.config.failOnInconclusive,
    ...lookOf(familyMembers(priced.results, priced.baseline, () => thresholds)),
  };
  const now = (context.deps.now?.() ?? new Date()).toISOString();
  const judged = judgeResults(priced.results, priced.baseline, () => thresholds, options);
  return judged.map((report) => {
    const info = chosen.infos.get(report.name);
    const trend = trendOf(report, context.baseline?.history?.(report.name) ?? [], now);
    const before = priced.baseline?.benchmarks.find((b) => b.name === report.name);
    if (before?.answers) context.storedAnswers.set(report.name, before.answers);
    const latencyCurve = latencyCurveOf(report.result, before);
    const distributions = distributionsOf(report.result, before);
    const capacityCurve = capacityCurveOf(report.result, before);
    const profileDiff = profileDiffOf(
      before?.profile,
      report.result?.profile,
      baseProfileName(info),
    );
    return {
      ...report,
      ...(info ? { baselineInfo: info } : {}),
      ...(profileDiff ? { profileDiff } : {}),
      ...(trend ? { trend } : {}),
      ...(latencyCurve ? { latencyCurve } : {}),
      ...(distributions ? { distributions } : {}),
      ...(capacityCurve ? { capacityCurve } : {}),
      warnings: [
        ...report.warnings,
        ...warningsOf(report.name),
        ...(chosen.warnings.get(report.name) ?? []),
      ],
    };
  });
}

/**
 * A benchmark with `accuracy:` checked against its baseline's stored answers, and with
 * this run's own answers when it stores its results (accuracy/stored-check.ts). Each pass
 * has a server started for it; a benchmark that failed to run is not checked.
 */
async function withStoredAgreement(
  reports: BenchmarkReport[],
  spec: BenchmarkSpec,
  context: GateContext,
): Promise<BenchmarkReport[]> {
  const { deps, config } = context;
  const accuracy = spec.accuracy;
  if (!accuracy || !spec.server || reports.some((r) => r.verdict === 'error')) return reports;
  const served = spec as BenchmarkSpec & { server: ServerSpec };
  let starts = 0;
  const server: ServedSide = {
    origin: accuracy.origin,
    serve: (purpose, use) =>
      withFreshServer(
        served,
        purpose,
        {
          runner: deps.runner,
          log: deps.log,
          baseEnv: deps.env,
          outDir: config.outDir,
          who: 'the server',
          logName: `agreement-${(starts += 1)}.server.log`,
        },
        use,
      ),
  };
  const makesAnswers =
    deps.pullRequest !== true &&
    (deps.storesBaseline === true || config.saveBaseline !== undefined);
  const stored = context.storedAnswers.get(spec.name);
  deps.log.info(
    `${spec.name}: the agreement check: ${stored ? 'against the stored answers' : 'no stored answers'}${makesAnswers ? ', and answers to store' : ''}`,
  );
  const check = await storedAgreement(accuracy, stored, server, {
    log: deps.log,
    confidence: config.confidence,
    passTimeoutMs: timeoutMsOf(spec),
    makesAnswers,
  });
  if (check.agreement) {
    deps.log.info(`${spec.name}: agreement: ${check.agreement.verdict}: ${check.agreement.reason}`);
  }
  return reports.map((report) => {
    const answered =
      check.answers && report.result
        ? { ...report, result: { ...report.result, answers: check.answers } }
        : report;
    const judged = check.agreement
      ? withAgreement(answered, check.agreement, config.failOnInconclusive)
      : answered;
    return { ...judged, warnings: [...judged.warnings, ...check.warnings] };
  });
}

/** What the operator diff compares with in stored mode. */
function baseProfileName(info: BaselineInfo | undefined): string {
  const commit = info?.commit ? ` (its newest record, ${info.commit.slice(0, 7)})` : '';
  return `the baseline's profile${commit}`;
}

/** The sweeps whose capacity under their SLO is judged: each sweep entry with an `slo:`. */
function capacitySweeps(specs: readonly BenchmarkSpec[]): { name: string; slo: SloSpec }[] {
  const sweeps = new Map<string, SloSpec>();
  for (const spec of specs) if (spec.sweep && spec.slo) sweeps.set(spec.sweep.name, spec.slo);
  return [...sweeps].map(([name, slo]) => ({ name, slo }));
}

/**
 * Each benchmark's share of the gate's false-alarm budget: measured benchmarks and the
 * capacity of each sweep with an SLO alike.
 */
function benchmarkBudget(config: GateConfig): number {
  return sidakLevel(
    GATE_FALSE_ALARM_RATE,
    config.benchmarks.length +
      capacitySweeps(config.benchmarks).length +
      settingEntries(config.benchmarks).length,
  );
}

/**
 * The best-setting stage: each entry with server settings and an SLO ─► its best
 * setting's capacity (derive/best-setting.ts) ─► judged against the stored best setting's
 * as a sweep's capacity is, in one look (the settings' capacities took their passes).
 */
async function gateBestSettings(
  capacities: readonly BenchmarkReport[],
  context: GateContext,
): Promise<BenchmarkReport[]> {
  const reports: BenchmarkReport[] = [];
  const budget = benchmarkBudget(context.config);
  for (const { entry, settings, specs } of settingEntries(context.config.benchmarks)) {
    const measured = settings.map(({ sweep, setting }) => {
      const report = capacities.find((r) => r.name === capacityName(sweep));
      const result = report?.verdict === 'error' ? undefined : report?.result;
      return { setting: setting.name, params: setting.params, ...(result ? { result } : {}) };
    });
    const derived = deriveBestSetting(entry, measured);
    context.deps.log.info(`${derived.result.name}: the best of ${settings.length} settings`);
    const judged = await judgeWithBaselines(
      [
        {
          ...derived.result,
          environment: { ...context.environment, configHash: capacityConfigHash(specs) },
        },
      ],
      context,
      {
        thresholds: specs[0]!.thresholds,
        lookOf: (members) => lookOptions(planLooks(members, budget, 0), 0),
        warningsOf: () => derived.warnings,
        pairSingle: false,
      },
    );
    reports.push(...logUngated(judged, context.deps.log));
  }
  return reports;
}

/**
 * The capacity stage: the sweep's variants as measured (parse and derive done) ─► its
 * capacity under the SLO (derive) ─► judged against the stored capacity with its share of
 * the budget, in looks that add passes of the whole sweep while it is open
 * (compare/capacity-passes.ts), against the group's server.
 */
async function gateCapacity(
  sweep: { name: string; slo: SloSpec },
  variants: readonly VariantRuns[],
  context: GateContext & { session: ServerSession | undefined },
): Promise<BenchmarkReport[]> {
  const { deps, config, session } = context;
  const specs = variants.map((v) => v.spec).filter((spec) => spec.sweep?.name === sweep.name);
  deps.log.info(`${sweep.name}/capacity: capacity under the SLO from ${specs.length} variant(s)`);
  const judge: CapacityPassOptions['judge'] = (derived, lookOf) =>
    judgeWithBaselines(
      [
        {
          ...derived.result,
          environment: { ...context.environment, configHash: capacityConfigHash(specs) },
        },
      ],
      context,
      {
        thresholds: specs[0]!.thresholds,
        lookOf,
        warningsOf: () => derived.warnings,
        // Matched by its own name only: never paired with a variant's baseline.
        pairSingle: false,
      },
    );
  const own = variants.filter((v) => specs.includes(v.spec));
  const budget = benchmarkBudget(config);
  // capacity: search: boundary searches from the variants' runs (compare/capacity-search-run.ts).
  if (sweep.slo.capacity) {
    const searched = await judgeCapacityBySearch(
      { ...sweep, search: sweep.slo.capacity.search },
      own,
      {
        budget,
        log: deps.log,
        runOnce: (spec, index, step, of) =>
          passRun(context, session, of, 'capacity search probe')(spec, index, step),
        parse: parseCleanRuns,
        judge,
      },
    );
    return logUngated(searched, deps.log);
  }
  const reports = await judgeCapacityWithPasses(sweep, own, {
    budget,
    maxPasses: specs[0]!.confirmRuns,
    log: deps.log,
    runOnce: passRun(context, session, specs[0]!.confirmRuns),
    measure: measureVariant,
    judge,
  });
  return logUngated(reports, deps.log);
}

/** One clean run of a variant for capacity pass `pass` of at most `of`, against the group's server. */
function passRun(
  context: GateContext,
  session: ServerSession | undefined,
  of: number,
  purpose = 'capacity pass',
) {
  const { deps, config } = context;
  return async (spec: BenchmarkSpec, index: number, pass: number): Promise<RunOutcome> => {
    const [outcome] = await runConfirmationRuns(spec, {
      runner: deps.runner,
      log: deps.log,
      outDir: config.outDir,
      baseEnv: deps.env,
      ...(session ? { server: session } : {}),
      profile: false,
      firstIndex: index,
      count: 1,
      step: pass,
      of,
      purpose,
    });
    return outcome!;
  };
}

/** A variant's result on all its clean runs: parsed, with the SLO's derived metrics. */
async function measureVariant(
  spec: BenchmarkSpec,
  outcomes: RunOutcome[],
): Promise<BenchmarkResult | undefined> {
  const clean = outcomes.filter((o) => o.kind === 'clean' && o.ok);
  // A result the gate cannot read leaves the variant unmeasured: the capacity says which.
  const parsed = await parseCleanRuns(spec, clean).then(
    (results) => results.find((r) => r.name === spec.name),
    () => undefined,
  );
  if (!parsed) return undefined;
  const [derived] = deriveAll([parsed], spec.slo);
  return { ...derived!.result, runs: outcomes.map(runInfo) };
}
