import { join, resolve } from 'node:path';
import { Git } from '../baseline/git/git.js';
import { resolveRange } from '../bisect/commits.js';
import { WorktreeMeasurer } from '../bisect/measure.js';
import { bisectReport, renderBisectText } from '../bisect/render.js';
import { bisect, BisectError } from '../bisect/search.js';
import { Worktrees } from '../bisect/worktrees.js';
import { parseConfidence } from '../config/confidence.js';
import { resolveGateConfig } from '../config/load.js';
import { DEFAULT_CONFIG_FILES } from '../config/defaults.js';
import type { BenchmarkSpec, GateConfig } from '../config/types.js';
import { EXIT, usageError } from '../errors.js';
import { exists } from '../fs/exists.js';
import { COMPILE_TIME, GRAPHS_CACHED, GRAPHS_COMPILED } from '../observe/compile-metrics.js';
import { StderrLogger } from '../publish/stderr-logger.js';
import { createProcessRunner } from '../runner/process.js';
import { single, type ParsedArgs } from './args.js';
import type { CliIo } from './io.js';
import { cliSandbox, ISOLATION_FLAGS } from './isolation.js';

export const BISECT_FLAGS = {
  good: { takes: 'one' },
  bad: { takes: 'one' },
  config: { takes: 'one' },
  command: { takes: 'one' },
  'max-runs': { takes: 'one' },
  benchmark: { takes: 'one' },
  metric: { takes: 'one' },
  confidence: { takes: 'one' },
  out: { takes: 'one' },
  json: { takes: 'none' },
  quiet: { takes: 'none' },
  ...ISOLATION_FLAGS,
} as const;

/** Bisect's own defaults: decisions are chained, so each must be surer than one gate verdict. */
export const BISECT_DEFAULTS = Object.freeze({
  maxRuns: 10,
  /** Runs each end starts with (at least the config's `runs`). */
  endRuns: 8,
  /** Runs a commit between starts with; more only while its answer is open. */
  commitRuns: 2,
  confidence: 0.99,
  outDir: 'perf-gate-bisect',
});

const MAX_RUNS_LIMIT = { min: 2, max: 100 };

/** `bisect`: the first commit between a good and a bad one that measures like the bad one. */
export async function bisectCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const good = requiredFlag(args, 'good');
  const bad = requiredFlag(args, 'bad');
  const maxRuns = maxRunsFlag(single(args, 'max-runs'));
  const confidence = confidenceFlag(single(args, 'confidence'));
  const metric = metricFlag(single(args, 'metric'));
  const git = new Git({ cwd: io.cwd });
  try {
    const range = await resolveRange(git, good, bad);
    const config = await resolveGateConfig(
      { config: await configFile(single(args, 'config'), io.cwd, range.root) },
      { workspace: range.root, origin: 'cli' },
    );
    const spec = chooseBenchmark(config, single(args, 'benchmark'));
    const log = new StderrLogger({ showOutput: !args.flags.has('quiet') }, io.stderr);
    log.info(
      `bisect: ${spec.name}, ${range.candidates.length} commit(s) after good ${range.good.sha.slice(0, 7)} up to bad ${range.bad.sha.slice(0, 7)}`,
    );
    const outDir = resolve(io.cwd, single(args, 'out') ?? BISECT_DEFAULTS.outDir);
    const sandbox = await cliSandbox(args, io, {
      repositories: [range.root],
      keep: [outDir],
      log,
    });
    const worktrees = await Worktrees.create(git.in(range.root));
    try {
      const hook = single(args, 'command');
      const measurer = new WorktreeMeasurer({
        worktrees,
        root: range.root,
        spec,
        ...(hook ? { hook } : {}),
        runner: createProcessRunner({ sandbox }),
        log,
        env: io.env,
        outDir,
        ...(config.environmentProbe ? { probeCommand: config.environmentProbe } : {}),
      });
      const result = await bisect(measurer, {
        good: range.good.sha,
        candidates: range.candidates.map((c) => c.sha),
        confidence,
        endRuns: Math.min(maxRuns, Math.max(BISECT_DEFAULTS.endRuns, spec.runs)),
        commitRuns: Math.min(maxRuns, BISECT_DEFAULTS.commitRuns),
        maxRuns,
        ...(metric ? { metric } : {}),
        progress: (line) => log.info(`bisect: ${line}`),
      });
      const report = bisectReport(spec.name, result, range.candidates, range.good, confidence);
      io.stdout(
        args.flags.has('json') ? `${JSON.stringify(report, null, 2)}\n` : renderBisectText(report),
      );
      return EXIT.ok;
    } finally {
      await worktrees.removeAll();
      await sandbox.dispose();
    }
  } catch (error) {
    if (!(error instanceof BisectError)) throw error;
    io.stderr(`neuron-perf-gate: bisect: ${error.message}\n`);
    return error.exitCode;
  }
}

/**
 * The gate config to read the benchmark from: --config, else the default files of the
 * repository. Said here because `run`'s advice (--command) means the hook in bisect.
 */
async function configFile(flag: string | undefined, cwd: string, root: string): Promise<string> {
  if (flag !== undefined) return resolve(cwd, flag);
  for (const name of DEFAULT_CONFIG_FILES) {
    if (await exists(join(root, name))) return join(root, name);
  }
  throw usageError(
    `bisect needs a gate config naming the benchmark to run: --config FILE, or ${DEFAULT_CONFIG_FILES.join(' or ')} in ${root}`,
  );
}

function chooseBenchmark(config: GateConfig, name: string | undefined): BenchmarkSpec {
  const names = config.benchmarks.map((b) => b.name);
  if (name === undefined) {
    if (config.benchmarks.length === 1) return config.benchmarks[0]!;
    throw usageError(
      `${config.source} configures ${names.length} benchmarks; choose one with --benchmark (${names.join(', ')})`,
    );
  }
  const spec = config.benchmarks.find((b) => b.name === name);
  if (!spec) {
    throw usageError(
      `--benchmark ${name}: ${config.source} has no such benchmark; it has ${names.join(', ')}`,
    );
  }
  return spec;
}

/** `--metric`; the compile cache's metrics are refused (docs/bisect.md: "What can be bisected"). */
function metricFlag(value: string | undefined): string | undefined {
  if (value === undefined || ![GRAPHS_COMPILED, GRAPHS_CACHED, COMPILE_TIME].includes(value)) {
    return value;
  }
  throw usageError(
    `--metric ${value}: the compile cache's metrics cannot be bisected: a commit's count depends on what the commits measured before it left in the cache, and it is one value per commit, not one per run; find the commit that recompiles with git bisect run and the gate on a copy of the good end's cache (docs/bisect.md, "What can be bisected")`,
  );
}

function requiredFlag(args: ParsedArgs, name: 'good' | 'bad'): string {
  const value = single(args, name);
  if (value === undefined) {
    throw usageError(
      `bisect needs --good SHA and --bad SHA (the last fast and a slow commit); see --help`,
    );
  }
  return value;
}

function maxRunsFlag(value: string | undefined): number {
  if (value === undefined) return BISECT_DEFAULTS.maxRuns;
  const runs = Number(value);
  const { min, max } = MAX_RUNS_LIMIT;
  if (!/^\d+$/.test(value.trim()) || runs < min || runs > max) {
    throw usageError(
      `--max-runs '${value}': allowed: a whole number of runs per commit from ${min} to ${max}`,
    );
  }
  return runs;
}

function confidenceFlag(value: string | undefined): number {
  if (value === undefined) return BISECT_DEFAULTS.confidence;
  const parsed = parseConfidence(value);
  if (!parsed.ok) throw usageError(`--confidence '${value}': ${parsed.message}`);
  return parsed.fraction;
}
