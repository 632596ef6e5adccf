// A/B mode end to end, the same phases as the stored mode (settings → run → judge →
// report) with two sides instead of a stored baseline: each side checked out (a git
// worktree of a ref, or the working tree), set up, probed; both measured in blocks on
// this host and judged paired (run-ab.ts); one report that names the sides, their order
// and the components that differ between them.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from '../baseline/git/git.js';
import { resolveCommit } from '../bisect/commits.js';
import type { Worktrees } from '../bisect/worktrees.js';
import type { GateConfig } from '../config/types.js';
import { probeEnvironmentWithWarnings } from '../environment/probe.js';
import { usageError } from '../errors.js';
import type {
  AbRunsOfMetric,
  AbSideSummary,
  AbSummary,
  BenchmarkResult,
  Environment,
  GateReport,
  Metric,
} from '../model.js';
import { isolationNote } from '../pipeline.js';
import { buildGateReport } from '../report/build.js';
import { gateSecrets, redactStrings } from '../report/redact.js';
import { timeoutMsOf } from '../runner/benchmark.js';
import type { ProcessRunner } from '../runner/types.js';
import {
  runAbBenchmarks,
  type AbBenchmark,
  type AbDependencies,
  type AbSettings,
  benchmarksOf,
} from './run-ab.js';
import { BaseGuard } from './base-guard.js';
import { configDifferences } from './config-differences.js';
import { abbaBlocks, type AbSide } from './schedule.js';
import { SideVersions } from './side-versions.js';
import {
  loadSideConfigs,
  pairBenchmarks,
  refuseNothingInCommon,
  unpairedWarnings,
  type ConfigLoader,
} from './side-configs.js';
import { setUpSide, type PreparedSide, type SideConfig } from './sides.js';
import { DEFAULT_COMPILE_CACHE_DIR } from '../observe/compile-cache-dir.js';

/**
 * Blocks an A/B benchmark starts with and may add (docs/ab.md), set on bench:accuracy's
 * A/B scenario: the simulator's own host drift, not a measured inf2 host.
 */
export const AB_DEFAULTS = Object.freeze({ blocks: 2, confirmBlocks: 1 });

/** A side as asked for: a ref (else the working tree) and variables of its own. */
export interface SideRequest {
  ref?: string;
  env: Record<string, string>;
  /** What to call it (`the base branch`); the ref, or `the working tree`, by default. */
  label?: string;
  /** A config file of its own, relative to the repository (two stacks side by side). */
  config?: string;
}

export interface AbOptions extends AbSettings {
  /** The repository's top folder. */
  root: string;
  git: Git;
  worktrees: Worktrees;
  base: SideRequest;
  head: SideRequest;
  /** The workflow run, for the report's link. */
  runUrl?: string;
  /** Reads a commit's own config from its worktree; without it both sides run the gate's. */
  loadConfig?: ConfigLoader;
}

export async function runAb(
  config: GateConfig,
  options: AbOptions,
  deps: AbDependencies,
): Promise<GateReport> {
  // Both sides checked out and told apart before either is set up: setup compiles.
  const checkedOut = await withOwnConfigs(config, options, await checkOutSides(config, options));
  refuseSameSides(checkedOut);
  const paired = pairBenchmarks(
    benchmarksOf(checkedOut.base, config),
    benchmarksOf(checkedOut.head, config),
  );
  refuseNothingInCommon(paired);
  const runners = await sideRunners(checkedOut, options.root, deps.runner);
  const sideDeps = (side: AbSide) => ({ ...deps, runner: runners[side] });
  const sides = {
    base: await setUp(checkedOut.base, config, sideDeps('base')),
    head: await setUp(checkedOut.head, config, sideDeps('head')),
  };
  const [base, head] = await Promise.all([
    probe(sides.base, config, sideDeps('base')),
    probe(sides.head, config, sideDeps('head')),
  ]);
  const probed = {
    base: { ...sides.base, environment: base.environment },
    head: { ...sides.head, environment: head.environment },
  };
  // Taken once the base is set up: from here on only its own runs may touch it.
  const guard = await BaseGuard.take(probed.base, options.git);
  const sideVersions = new SideVersions({
    sides: probed,
    beside: { base: base.environment, head: head.environment },
    runners,
    env: deps.env,
    probeCommand: (side) => (probed[side].own?.config ?? config).environmentProbe,
  });
  const measured = await runAbBenchmarks(config, probed, options.root, options, {
    ...deps,
    runners,
    guard,
    sideVersions,
  });
  // The versions the benchmarks ran with, read in their shells; else the probe's beside them.
  const ran = sideVersions.first() ?? { base: base.environment, head: head.environment };
  const ab: AbSummary = {
    base: summary(sides.base, ran.base, deps.env),
    head: summary(sides.head, ran.head, deps.env),
    order: `${abbaBlocks(0, 1)
      .map((run) => run.side)
      .join(' ')}`,
    blocks: Object.fromEntries(
      measured.flatMap(({ reports, order }) =>
        reports.map((r) => [r.name, new Set(order.map((run) => run.block)).size]),
      ),
    ),
    differs: differences(ran.base, ran.head),
    versionsSeen: sideVersions.first() ? 'in-benchmark-shell' : 'beside-benchmark',
    runs: Object.fromEntries(
      measured.flatMap(({ reports, base }) =>
        reports.flatMap((report) => {
          const shown = runsOfMetric(
            report.result,
            base.find((b) => b.name === report.name),
          );
          return shown ? [[report.name, shown]] : [];
        }),
      ),
    ),
  };
  const caches = compileCachesOf(measured);
  if (caches) ab.compileCaches = caches;
  const configDiffers = configDifferences(paired.pairs, {
    base: checkedOut.base.own?.config ?? config,
    head: checkedOut.head.own?.config ?? config,
  });
  if (configDiffers.length > 0) ab.configDiffers = configDiffers;
  const report = buildGateReport({
    // The head side's results carry its environment, as a stored-mode result does.
    benchmarks: measured.flatMap((m) =>
      m.reports.map((report) =>
        report.result ? { ...report, result: { ...report.result, environment: ran.head } } : report,
      ),
    ),
    environment: ran.head,
    baselineSource: `the base side, ${sides.base.label}, measured in the same blocks on this host`,
    warnings: [
      ...unpairedWarnings(paired),
      ...base.warnings.map((w) => `base: ${w}`),
      ...head.warnings.map((w) => `head: ${w}`),
      ...sideVersions.warnings(),
    ],
    isolation: isolationNote(deps.runner.sandbox),
    ab,
    ...(options.runUrl ? { runUrl: options.runUrl } : {}),
  });
  return redactStrings(report, gateSecrets(config, deps.env));
}

/**
 * Each side's folder: a worktree of its ref, or the working tree. Two environments of the
 * same code each get a worktree of HEAD: one folder would let the second side's setup
 * overwrite what the first one built.
 */
async function checkOutSides(
  config: GateConfig,
  options: AbOptions,
): Promise<Record<AbSide, PreparedSide>> {
  const sameCode = options.base.ref === undefined && options.head.ref === undefined;
  if (sameCode) await refuseUncommitted(options.git);
  const side = async (name: AbSide, request: SideRequest): Promise<PreparedSide> => {
    const outDir = join(config.outDir, name);
    const ref = request.ref ?? (sameCode ? 'HEAD' : undefined);
    const configFile = request.config !== undefined ? { configFile: request.config } : {};
    const by = request.config !== undefined ? ` by ${request.config}` : '';
    if (ref === undefined) {
      const label = withVariables(`${request.label ?? 'the working tree'}${by}`, request.env);
      return { side: name, label, dir: options.root, outDir, env: request.env, ...configFile };
    }
    const sha = await resolveCommit(options.git, `--${name}`, ref, options.root, usageError);
    const dir = await options.worktrees.add(sha, `${name}-${sha.slice(0, 12)}`);
    const label = withVariables(`${request.label ?? ref} (${sha.slice(0, 7)})${by}`, request.env);
    return { side: name, label, sha, dir, outDir, env: request.env, ...configFile };
  };
  return { base: await side('base', options.base), head: await side('head', options.head) };
}

/** Each side with its commit's own config, when it runs by one (side-configs.ts). */
async function withOwnConfigs(
  config: GateConfig,
  options: AbOptions,
  sides: Record<AbSide, PreparedSide>,
): Promise<Record<AbSide, PreparedSide>> {
  const configs = await loadSideConfigs(config, options.root, sides, options.loadConfig);
  const withOwn = (side: PreparedSide, own: SideConfig): PreparedSide =>
    own.config === config ? side : { ...side, own };
  return { base: withOwn(sides.base, configs.base), head: withOwn(sides.head, configs.head) };
}

/**
 * The head side (a pull request's code, a candidate SDK) runs where the base side's code
 * and results are shown empty: it could otherwise rewrite them between two base runs and
 * make the base look as slow as itself. The base's worktree is hidden when it is one (not
 * the working tree, which holds the head's own git folder and results).
 */
async function sideRunners(
  sides: Record<AbSide, PreparedSide>,
  root: string,
  runner: ProcessRunner,
): Promise<Record<AbSide, ProcessRunner>> {
  const { base } = sides;
  await mkdir(base.outDir, { recursive: true });
  const hidden = [base.outDir, ...(base.sha !== undefined && base.dir !== root ? [base.dir] : [])];
  return { base: runner, head: runner.hiding(hidden) };
}

/** `the base environment (1a2b3c4) with PATH, NEURON_COMPILE_CACHE_URL`: names, never values. */
function withVariables(label: string, env: Record<string, string>): string {
  const names = Object.keys(env);
  return names.length > 0 ? `${label} with ${names.join(', ')}` : label;
}

/** Uncommitted changes would be in neither side's worktree of HEAD, yet look measured. */
async function refuseUncommitted(git: Git): Promise<void> {
  const dirty = await git.tryRun(['status', '--porcelain', '--untracked-files=no']);
  if (dirty.ok && dirty.stdout.trim() !== '') {
    throw usageError(
      `${git.cwd} has uncommitted changes to tracked files: two environments are compared on the committed HEAD, each side in a worktree of its own, so these changes would be in neither; commit or stash them first (git stash)`,
    );
  }
}

async function setUp(
  side: PreparedSide,
  gateConfig: GateConfig,
  deps: AbDependencies,
): Promise<PreparedSide> {
  const config = side.own?.config ?? gateConfig;
  const longest = Math.max(...config.benchmarks.map((spec) => timeoutMsOf(spec)));
  return setUpSide(side, {
    command: config.setup,
    runner: deps.runner,
    log: deps.log,
    env: deps.env,
    timeoutMs: longest,
  });
}

/** Two sides that are one and the same measure nothing. */
function refuseSameSides(sides: Record<AbSide, PreparedSide>): void {
  const { base, head } = sides;
  const sameCode = base.sha === head.sha;
  const sameEnv = JSON.stringify(base.env) === JSON.stringify(head.env);
  const sameConfig = base.configFile === head.configFile;
  if (sameCode && sameEnv && sameConfig) {
    throw usageError(
      `the base and head sides are the same (${base.label}, the same variables): give --base another commit, --base-env/--head-env to compare two environments, or --base-config/--head-config to compare two stacks`,
    );
  }
}

async function probe(side: PreparedSide, gateConfig: GateConfig, deps: AbDependencies) {
  const config = side.own?.config ?? gateConfig;
  const spec = config.benchmarks[0]!;
  return probeEnvironmentWithWarnings(
    { ...deps.env, ...spec.env, ...side.env },
    {
      runner: deps.runner,
      cwd: side.dir,
      ...(config.environmentProbe ? { probeCommand: config.environmentProbe } : {}),
    },
  );
}

function summary(
  side: PreparedSide,
  environment: Environment,
  env: Record<string, string | undefined>,
): AbSideSummary {
  return {
    label: side.label,
    ...(side.sha ? { commit: side.sha } : {}),
    ...(side.setupMs !== undefined ? { setupSeconds: side.setupMs / 1000 } : {}),
    compileCache:
      side.env.NEURON_COMPILE_CACHE_URL ??
      env.NEURON_COMPILE_CACHE_URL ??
      DEFAULT_COMPILE_CACHE_DIR,
    environment: { ...environment, ...(side.sha ? { commit: side.sha } : {}) },
  };
}

/** Per benchmark, what each side's first runs did with the compile cache; undefined if none touched it. */
function compileCachesOf(measured: readonly AbBenchmark[]): AbSummary['compileCaches'] {
  const entries = measured.flatMap(({ reports, compileCaches }) =>
    compileCaches && (compileCaches.base || compileCaches.head)
      ? reports.map((report) => [report.name, compileCaches] as const)
      : [],
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The software and hardware fields whose values differ between the sides. */
function differences(base: Environment, head: Environment): AbSummary['differs'] {
  const keys = new Set([...Object.keys(base), ...Object.keys(head)] as (keyof Environment)[]);
  const differs: AbSummary['differs'] = [];
  for (const key of keys) {
    if (key === 'commit' || key === 'ref' || key === 'runner' || key === 'configHash') continue;
    const before = base[key] === undefined ? 'none' : String(base[key]);
    const after = head[key] === undefined ? 'none' : String(head[key]);
    if (before !== after) differs.push({ component: key, base: before, head: after });
  }
  return differs;
}

/** The metrics whose runs the report shows, the first the head's result has in blocks. */
const SHOWN_METRICS = ['latency_p50', 'throughput', 'latency_mean'];

/** One metric's runs of both sides, block by block; undefined without blocks. */
function runsOfMetric(
  head: BenchmarkResult | undefined,
  base: BenchmarkResult | undefined,
): AbRunsOfMetric | undefined {
  const blocked = (r: BenchmarkResult | undefined, id: string) =>
    r?.metrics.find((m) => m.id === id && m.blocks !== undefined);
  const id =
    SHOWN_METRICS.find((m) => blocked(head, m) && blocked(base, m)) ??
    head?.metrics.find((m) => m.blocks && blocked(base, m.id))?.id;
  if (id === undefined) return undefined;
  const now = blocked(head, id)!;
  const before = blocked(base, id)!;
  const count = Math.max(...now.blocks!, ...before.blocks!) + 1;
  const of = (metric: Metric, block: number) =>
    metric.values.filter((_, i) => metric.blocks![i] === block);
  return {
    metric: id,
    unit: now.unit,
    blocks: Array.from({ length: count }, (_, block) => ({
      base: of(before, block),
      head: of(now, block),
    })),
  };
}
