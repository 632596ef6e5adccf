// A/B mode's run and judge phases: both sides of each benchmark measured on this host in
// ABBA blocks (schedule.ts), then judged paired within the blocks (stats/paired.ts) by the
// same rules as the stored mode: thresholds, one false-alarm budget for the gate, and
// confirmation blocks in looks while a metric is open (compare/sequential.ts), a block
// counting as one more "run" of the paired statistic. A benchmark with a server gets one
// for each run (runner/benchmark.ts): NeuronCores hold one server at a time, so a side's
// server must stop before the other side runs, and a server per run keeps the sides alike
// (in base head head base, one per stretch would warm head's second run only); its start-up
// is then a paired metric too (docs/ab.md).

import type { Baseline } from '../baseline/types.js';
import type { FamilyMember } from '../compare/family.js';
import { familyMembers, judgeResults } from '../compare/judge.js';
import {
  lookOptions,
  needsMoreRuns,
  planLooks,
  sequentialPlan,
  type LookOptions,
  type LookPlan,
} from '../compare/sequential.js';
import { GATE_FALSE_ALARM_RATE } from '../config/defaults.js';
import type { BenchmarkSpec, GateConfig, ServerSpec } from '../config/types.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type {
  AbCompileCaches,
  BenchmarkReport,
  BenchmarkResult,
  Metric,
  ProfileSummary,
  RunOutcome,
} from '../model.js';
import { deriveAll } from '../derive/slo-metrics.js';
import { errorReport, leftoverWarnings, parseRunFiles, resultsOfRuns } from '../runner/measured.js';
import { runConfirmationRuns, runLateProfiledRun, timeoutMsOf } from '../runner/benchmark.js';
import { withFreshServer } from '../runner/fresh-server.js';
import { summarizeProfile } from '../profile/summarize.js';
import { lncOf } from '../profile/logical-core.js';
import { perRunStartupMetric } from '../runner/served-benchmarks.js';
import { memoryMetrics } from '../observe/memory-figures.js';
import { runsThatCompiled } from '../observe/compile-cache.js';
import { withStartup } from '../observe/startup-metrics.js';
import { memoryObserver } from '../observe/run-observer.js';
import type { ProcessRunner } from '../runner/types.js';
import { sidakLevel } from '../stats/multiplicity.js';
import type { BaseGuard } from './base-guard.js';
import { abSweeps, type VariantSides } from './ab-capacity.js';
import { withSideAgreement } from './ab-agreement.js';
import { withSideProfiles } from './ab-profile.js';
import { abStartupFigures } from './ab-startup.js';
import { abCapacity, notedCapacityBlocks, type OpenVariant } from './capacity-blocks.js';
import type { SideVersions } from './side-versions.js';
import { AbCacheWatch } from './compile-cache.js';
import { abbaBlocks, type AbSide, type ScheduledRun } from './schedule.js';
import { pairBenchmarks, type PairedBenchmarks } from './side-configs.js';
import { specOfSide, type PreparedSide } from './sides.js';
import { withValueBlocks, type RunsInBlocks } from './value-blocks.js';

type BenchmarkPair = PairedBenchmarks['pairs'][number];

export interface AbDependencies {
  runner: ProcessRunner;
  log: Logger;
  env: Record<string, string | undefined>;
  /** Each side's runner, when they differ (the head's does not see the base's folders). */
  runners?: Record<AbSide, ProcessRunner>;
  /** The base side as set up, checked before each base run and when judging. */
  guard?: BaseGuard;
  /** The versions each side's benchmark shell ran with (side-versions.ts). */
  sideVersions?: SideVersions;
}

export interface AbSettings {
  /** Blocks every benchmark starts with. */
  blocks: number;
  /** Blocks it may add while a metric is open. */
  confirmBlocks: number;
}

/** One benchmark's A/B outcome: the judged reports and what ran, in order. */
export interface AbBenchmark {
  reports: BenchmarkReport[];
  order: ScheduledRun[];
  /** Confirmation blocks it took. */
  addedBlocks: number;
  /** The base side's results as last judged (the reports hold the head's). */
  base: BenchmarkResult[];
  /** What each side's first runs did with the NEFF compile cache. */
  compileCaches?: AbCompileCaches;
}

/** Measures and judges every configured benchmark, head against base. */
export async function runAbBenchmarks(
  config: GateConfig,
  sides: Record<AbSide, PreparedSide>,
  root: string,
  settings: AbSettings,
  deps: AbDependencies,
): Promise<AbBenchmark[]> {
  // Each side runs its own config's benchmarks (side-configs.ts); only those of a name
  // both have are compared, and they alone share the false-alarm budget.
  const { pairs } = pairBenchmarks(
    benchmarksOf(sides.base, config),
    benchmarksOf(sides.head, config),
  );
  // A sweep's capacity counts as one more benchmark, as in the stored mode.
  const sweeps = abSweeps(pairs.map((pair) => pair.head));
  const budget = sidakLevel(GATE_FALSE_ALARM_RATE, pairs.length + sweeps.length);
  const context = { config, sides, root, settings, deps, budget };
  const outcomes: AbBenchmark[] = [];
  // Each variant's runs stay open for its sweep's capacity, which may add blocks to them.
  const open = new Map<string, OpenRuns>();
  for (const pair of pairs) {
    const { outcome, runs } = await abBenchmark(pair, context);
    outcomes.push(outcome);
    if (runs) open.set(pair.head.name, runs);
  }
  const options = {
    config,
    budget,
    baseLabel: sides.base.label,
    confirmBlocks: settings.confirmBlocks,
    maxBlocks: settings.blocks + settings.confirmBlocks,
    log: deps.log,
  };
  const capacities: AbBenchmark[] = [];
  for (const sweep of sweeps) capacities.push(await abCapacity(sweep, outcomes, open, options));
  const noted = outcomes.map((outcome, i) => {
    const runs = open.get(pairs[i]!.head.name);
    return runs ? notedCapacityBlocks(outcome, runs.ownBlocks, runs.blocks()) : outcome;
  });
  return [...noted, ...capacities];
}

/** The benchmarks a side runs: its own config's, else the gate's. */
export function benchmarksOf(side: PreparedSide, config: GateConfig): BenchmarkSpec[] {
  return (side.own?.config ?? config).benchmarks;
}

interface AbContext {
  config: GateConfig;
  sides: Record<AbSide, PreparedSide>;
  root: string;
  settings: AbSettings;
  deps: AbDependencies;
  budget: number;
}

/** A benchmark's A/B outcome, and its runs kept open unless one failed. */
async function abBenchmark(
  pair: BenchmarkPair,
  context: AbContext,
): Promise<{ outcome: AbBenchmark; runs?: OpenRuns }> {
  const { settings, deps } = context;
  const spec = pair.head;
  const runs = new BlockRuns(pair, context);
  deps.log.info(
    `${spec.name}: ${settings.blocks} block(s) of base, head, head, base on this host; up to ${settings.confirmBlocks} more while a change is open`,
  );
  const failure = await runs.add(abbaBlocks(0, settings.blocks));
  if (failure)
    return { outcome: { reports: [failure], order: runs.order, addedBlocks: 0, base: [] } };
  let planned: LookPlan | undefined;
  const judgeLook = (look: number) =>
    runs.judge((members) => {
      planned ??= planLooks(members, context.budget, settings.confirmBlocks);
      return lookOptions(planned, look);
    });
  let reports = await judgeLook(0);
  const { schedule } = planned ?? sequentialPlan(context.budget, 0);
  let added = 0;
  for (let look = 1; look < schedule.length && needsMoreRuns(reports); look += 1) {
    const count = schedule[look]! - added;
    deps.log.info(
      `${spec.name}: a change is not settled yet; ${count} more block(s) (at most ${settings.confirmBlocks} in all)`,
    );
    const failed = await runs.add(abbaBlocks(settings.blocks + added, count));
    if (failed) {
      return { outcome: { reports: [failed], order: runs.order, addedBlocks: added, base: [] } };
    }
    added = schedule[look]!;
    reports = await judgeLook(look);
  }
  reports = await withSideProfiles(reports, spec, runs, {
    env: deps.env,
    log: deps.log,
    baseLabel: context.sides.base.label,
  });
  reports = await withSideAgreement(reports, runs.sideSpecs(), runs, {
    log: deps.log,
    baseLabel: context.sides.base.label,
    confidence: context.config.confidence,
    failOnInconclusive: context.config.failOnInconclusive,
  });
  const outcome = {
    reports,
    // As its own looks left them: the capacity's blocks, if any, come after.
    order: [...runs.order],
    addedBlocks: added,
    base: runs.lastBase,
    compileCaches: runs.caches.summary(),
  };
  const failed = reports.some((r) => r.verdict === 'error');
  return failed ? { outcome } : { outcome, runs: openRuns(runs, spec.name, context.budget) };
}

/** A variant's runs as its sweep's capacity sees them, and the blocks of its own looks. */
interface OpenRuns extends OpenVariant {
  ownBlocks: number;
}

function openRuns(runs: BlockRuns, name: string, budget: number): OpenRuns {
  const blocks = () => runs.order.reduce((most, run) => Math.max(most, run.block + 1), 0);
  // Judged only to read both sides' results: the verdict is the capacity's to give.
  const oneLook = () => lookOptions(sequentialPlan(budget, 0), 0);
  return {
    ownBlocks: blocks(),
    blocks,
    add: (count) => runs.add(abbaBlocks(blocks(), count)),
    sides: async (): Promise<VariantSides | BenchmarkReport> => {
      const reports = await runs.judge(oneLook);
      const head = reports.find((r) => r.name === name);
      if (head?.verdict === 'error') return head;
      return { base: runs.lastBase.find((b) => b.name === name), head: head?.result };
    },
  };
}

/** A side's results as parsed, and the blocks of its runs. */
interface MeasuredSide {
  results: BenchmarkResult[];
  inBlocks: RunsInBlocks;
  /** Runs (by index) that compiled graphs: their logs say so, or the cache gained entries. */
  compiled: ReadonlySet<number>;
}

/** A side's results as judged, and what its observers warned of. */
interface SideResults {
  results: BenchmarkResult[];
  warnings: string[];
}

/** One benchmark's runs on both sides, in schedule order, and their judgement. */
class BlockRuns {
  readonly order: ScheduledRun[] = [];
  /** The base side's results of the last judgement. */
  lastBase: BenchmarkResult[] = [];
  /** Each side's compile cache around its runs of the first block. */
  readonly caches: AbCacheWatch;
  private readonly outcomes: Record<AbSide, RunOutcome[]> = { base: [], head: [] };
  private readonly blocks: Record<AbSide, number[]> = { base: [], head: [] };
  /** "block 3: base did not run, not paired", once a side and block. */
  private readonly notRun = new Set<string>();
  private readonly specs: Record<AbSide, BenchmarkSpec>;
  /** Blocks there may be in all, for the log. */
  private readonly plannedBlocks: number;
  /** Servers started for the agreement check so far, to name their logs. */
  private agreementStarts = 0;

  /** The head's spec: its name, thresholds and what an error report names. */
  private readonly spec: BenchmarkSpec;

  constructor(
    pair: BenchmarkPair,
    private readonly context: AbContext,
  ) {
    const { sides, root, settings } = context;
    this.spec = pair.head;
    this.plannedBlocks = settings.blocks + settings.confirmBlocks;
    // A side with a config of its own had its paths resolved in its own worktree.
    const rootOf = (side: PreparedSide) => side.own?.root ?? root;
    this.specs = {
      base: specOfSide(pair.base, sides.base, rootOf(sides.base)),
      head: specOfSide(pair.head, sides.head, rootOf(sides.head)),
    };
    this.caches = new AbCacheWatch(this.specs, context.deps.env);
  }

  /** Runs these; an error report when one fails (naming the side), else undefined. */
  async add(scheduled: ScheduledRun[]): Promise<BenchmarkReport | undefined> {
    const { sides } = this.context;
    const { guard } = this.context.deps;
    for (const run of scheduled) {
      const moved = run.side === 'base' ? await guard?.changed() : undefined;
      if (moved) {
        return this.errorReport(
          `the base side (${sides.base.label}) changed between its runs: ${moved}; nothing more was measured`,
        );
      }
      const done = this.outcomes[run.side];
      const outcome = await this.caches.around(run.side, run.block, () => this.runOnce(run));
      this.order.push(run);
      if (!outcome) {
        // Its block keeps the other side's runs; the pairing leaves it out (stats/paired.ts).
        this.notRun.add(`block ${run.block + 1}: ${run.side} did not run, not paired`);
        continue;
      }
      done.push(outcome);
      this.blocks[run.side].push(run.block);
      if (run.side === 'base' && outcome.ok) await guard?.recordResult(outcome.resultPath);
      if (!outcome.ok) {
        return this.errorReport(
          `the ${run.side} side (${sides[run.side].label}): run ${outcome.index} failed: ${outcome.error ?? 'unknown error'}` +
            (outcome.logTail.length > 0
              ? `\nLast lines of its output (full log: ${outcome.logPath}):\n${outcome.logTail.join('\n')}`
              : ''),
        );
      }
      // Between blocks, never within one: a pause there would unbalance its ABBA order.
      if (scheduled.filter((r) => r.block === run.block).at(-1) === run) await this.checkVersions();
    }
    return undefined;
  }

  /** The sides' versions as their benchmark shells ran (stops when one SDK ran on both). */
  private async checkVersions(): Promise<void> {
    await this.context.deps.sideVersions?.afterBlock(this.spec.name, this.specs);
  }

  /** One run of one side; undefined when it never ran. */
  private async runOnce(run: ScheduledRun): Promise<RunOutcome | undefined> {
    const { deps, sides } = this.context;
    const spec = this.specs[run.side];
    const runner = deps.runners?.[run.side] ?? deps.runner;
    const outDir = sides[run.side].outDir;
    const [outcome] = await runConfirmationRuns(spec, {
      runner,
      // monitor: each side's runs watched alike, so memory is compared within the blocks too.
      ...(spec.monitor
        ? { observe: memoryObserver(spec.monitor, { runner, cwd: spec.workingDirectory, outDir }) }
        : {}),
      log: deps.log,
      baseEnv: deps.env,
      profile: false,
      outDir,
      firstIndex: this.outcomes[run.side].length + 1,
      count: 1,
      purpose: `${run.side} side, block`,
      step: run.block + 1,
      of: this.plannedBlocks,
    });
    return outcome;
  }

  /**
   * One profiled run of `side` after its blocks, summarised: what the operator diff of the
   * two sides compares. Undefined when the run failed (its error is in the log).
   */
  async profiled(side: AbSide): Promise<ProfileSummary | undefined> {
    const { deps, sides, config } = this.context;
    const spec = this.specs[side];
    const outcome = await runLateProfiledRun(spec, {
      runner: deps.runners?.[side] ?? deps.runner,
      log: deps.log,
      baseEnv: deps.env,
      profile: true,
      outDir: sides[side].outDir,
      index: this.outcomes[side].length + 1,
    });
    if (!outcome.ok || !outcome.profileDir) {
      deps.log.warning(
        `${spec.name}: the ${side} side's profiled run failed: ${outcome.error ?? 'no profile'}`,
      );
      return undefined;
    }
    return summarizeProfile(outcome.profileDir, {
      env: deps.env,
      runner: deps.runners?.[side] ?? deps.runner,
      root: sides[side].outDir,
      timeoutMs: timeoutMsOf(spec),
      ...(config.profilerPath ? { profilerPath: config.profilerPath } : {}),
      ...lncOf(sides[side].environment, spec),
    });
  }

  /** Each side's spec as it runs there. */
  sideSpecs(): Record<AbSide, BenchmarkSpec> {
    return this.specs;
  }

  /**
   * A server of `side` for work outside the runs (the agreement check): started clean, its
   * log beside the side's runs, stopped after `use`. Throws when it does not become ready.
   */
  async served<T>(side: AbSide, purpose: string, use: () => Promise<T>): Promise<T> {
    const { deps, sides } = this.context;
    const number = (this.agreementStarts += 1);
    return withFreshServer(
      this.specs[side] as BenchmarkSpec & { server: ServerSpec },
      purpose,
      {
        runner: deps.runners?.[side] ?? deps.runner,
        log: deps.log,
        baseEnv: deps.env,
        outDir: sides[side].outDir,
        who: `the ${side} side's server`,
        logName: `agreement-${number}.server.log`,
      },
      use,
    );
  }

  /** One side's clean runs parsed and derived (the SLO's goodput and attainment), and their blocks. */
  private async measured(side: 'base' | 'head'): Promise<MeasuredSide> {
    const spec = this.specs[side];
    const parsed = await parseRunFiles(spec, this.outcomes[side]);
    const blocks = this.blocks[side];
    const results = deriveAll(resultsOfRuns(spec, parsed), spec.slo).map((d) => d.result);
    const runBlocks = parsed.outcomeOf.map((outcome) => blocks[outcome]!);
    const compiled = spec.startup
      ? new Set([
          ...(await runsThatCompiled(this.outcomes[side])),
          ...this.caches.compiledRuns(side),
        ])
      : new Set<number>();
    return {
      results,
      inBlocks: { runs: parsed.runs, runBlocks, outcomeBlocks: blocks },
      compiled,
    };
  }

  /** Parses both sides' runs so far and judges head against base within the blocks. */
  async judge(lookOf: (members: FamilyMember[]) => LookOptions): Promise<BenchmarkReport[]> {
    const { config, sides } = this.context;
    let base: SideResults;
    let head: SideResults;
    const rewritten = await this.context.deps.guard?.changedResults(
      this.outcomes.base.map((outcome) => outcome.resultPath),
    );
    if (rewritten) {
      return [this.errorReport(`the base side's results changed after its runs: ${rewritten}`)];
    }
    try {
      base = this.blocked('base', await this.measured('base'));
      head = this.blocked('head', await this.measured('head'));
      this.lastBase = base.results;
    } catch (error) {
      return [this.errorReport(`a result the gate cannot read: ${errorMessage(error)}`)];
    }
    const baseline: Baseline = {
      source: `the base side (${sides.base.label}), measured in the same blocks`,
      benchmarks: base.results,
    };
    const thresholds = () => this.spec.thresholds;
    const reports = judgeResults(head.results, baseline, thresholds, {
      confidence: config.confidence,
      failOnInconclusive: config.failOnInconclusive,
      baselineName: 'the base',
      ...lookOf(familyMembers(head.results, baseline, thresholds)),
    });
    // What the observers said of each side, as the stored mode shows its own runs'.
    const said = [
      ...this.notRun,
      ...base.warnings.map((w) => `base: ${w}`),
      ...head.warnings.map((w) => `head: ${w}`),
    ];
    return reports.map((report) => ({ ...report, warnings: [...report.warnings, ...said] }));
  }

  /**
   * Each metric with the block of each of its values (value-blocks.ts); a
   * benchmark with a server also its start-up, one per run (each run has its own server);
   * with `monitor:` its memory; with `startup:` its warm starts (ab-startup.ts: each with
   * its block, runs that compiled left out); the compile cache's metrics (of the first
   * block's runs, no block of their own); and what the observers warned of.
   */
  private blocked(side: AbSide, { results, inBlocks, compiled }: MeasuredSide): SideResults {
    const outcomes = this.outcomes[side];
    const { startup: startupSpec } = this.specs[side];
    const starts = startupSpec
      ? abStartupFigures(startupSpec, {
          // A server's starts are server_startup already (per run): no client start to time.
          outcomes: this.specs[side].server ? [] : outcomes,
          blocks: inBlocks.outcomeBlocks,
          compiled,
        })
      : undefined;
    const startup = perRunStartupMetric(outcomes);
    const memory = this.specs[side].monitor ? memoryMetrics(outcomes) : undefined;
    const cache = this.caches.of(side, outcomes);
    // Each side's own environment, so the judge knows which compiler keyed its cache.
    const environment =
      this.context.deps.sideVersions?.environmentOf(this.spec.name, side) ??
      this.context.sides[side].environment;
    for (const result of results) {
      if (environment) result.environment = { ...environment };
      if (startup) result.metrics.push(metricCopy(startup));
      result.metrics.push(...(memory?.metrics ?? []).map(metricCopy));
      if (memory && Object.keys(memory.notMeasured).length > 0) {
        result.notMeasured = { ...result.notMeasured, ...memory.notMeasured };
      }
      withValueBlocks([result], inBlocks, this.specs[side].name);
      // After the blocks above: its values are the warm runs' only, its blocks their own.
      withStartup(result, starts && { ...starts, metrics: starts.metrics.map(metricCopy) });
      if (cache) {
        result.compileCache = cache.summary;
        result.metrics.push(...cache.metrics.map(metricCopy));
      }
    }
    const warnings = [
      ...leftoverWarnings(outcomes),
      ...this.caches.warnings(side).map((w) => `compile cache: ${w}`),
      ...(memory?.warnings ?? []),
      ...(starts?.warnings ?? []),
    ];
    return { results, warnings };
  }

  private errorReport(error: string): BenchmarkReport {
    return errorReport(this.spec, [...this.outcomes.base, ...this.outcomes.head], error);
  }
}

/** A metric of its own for one result: a run file naming several benchmarks gives one each. */
function metricCopy(metric: Metric): Metric {
  return {
    ...metric,
    values: [...metric.values],
    ...(metric.blocks ? { blocks: [...metric.blocks] } : {}),
  };
}
