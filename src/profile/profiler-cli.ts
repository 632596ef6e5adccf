import { access, constants } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { childEnvironment } from '../runner/child-env.js';
import { findNeuronTool } from '../runner/detect-neuron.js';
import { describeLeftovers } from '../runner/leftovers.js';
import type { ProcessRunner } from '../runner/types.js';
import type { ProfileUnit } from './units.js';

type Env = Record<string, string | undefined>;

/**
 * The profiler CLI: `profiler-path` when given, else `neuron-explorer` (current SDKs),
 * else `neuron-profile` (older ones), on PATH or in /opt/aws/neuron/bin.
 */
export async function findProfiler(env: Env, override?: string): Promise<string | undefined> {
  if (override) {
    try {
      await access(override, constants.X_OK);
      return override;
    } catch {
      return undefined;
    }
  }
  return (
    (await findNeuronTool('neuron-explorer', env)) ?? (await findNeuronTool('neuron-profile', env))
  );
}

export type UnitSummary =
  | { unit: ProfileUnit; ok: true; stdout: string; warning?: string }
  | { unit: ProfileUnit; ok: false; error: string };

export interface SummarizeOptions {
  profiler: string;
  /** Runs the profiler contained, like the benchmark (profiler-path is the config's). */
  runner: ProcessRunner;
  env: Env;
  /** For every call together: a call starts only while time is left, and gets only that. */
  timeoutMs: number;
  /** Calls at once; never more than the machine's cores. */
  concurrency?: number;
  /** The folder of each unit's profile tables (`--output-format parquet`); summary-json without. */
  tablesDirOf?: (index: number) => string;
}

/**
 * `view ... --output-format summary-json` for every unit, or `--output-format parquet
 * --output-file DIR` with `tablesDirOf`, several at a time.
 */
export async function summarizeUnits(
  units: ProfileUnit[],
  options: SummarizeOptions,
): Promise<UnitSummary[]> {
  const limit = Math.max(
    1,
    Math.min(options.concurrency ?? Infinity, availableParallelism(), units.length),
  );
  const results: UnitSummary[] = new Array(units.length);
  // One budget for the whole profile, so a hanging profiler costs it once, not per batch.
  const deadline = Date.now() + options.timeoutMs;
  const budget = `${Math.round(options.timeoutMs / 1000)} s`;
  let next = 0;
  const worker = async () => {
    while (next < units.length) {
      const index = next++;
      const left = deadline - Date.now();
      results[index] =
        left > 0
          ? await summarizeUnit(units[index]!, index, { ...options, timeoutMs: left }, budget)
          : { unit: units[index]!, ok: false, error: `not run: the profiler's ${budget} ran out` };
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

async function summarizeUnit(
  unit: ProfileUnit,
  index: number,
  options: SummarizeOptions,
  budget: string,
): Promise<UnitSummary> {
  const result = await options.runner.capture({
    file: options.profiler,
    args: viewArgs(unit, options.tablesDirOf?.(index)),
    env: childEnvironment(options.env),
    timeoutMs: options.timeoutMs,
    maxBytes: 64 * 1024 * 1024,
  });
  const left = result.leftovers
    ? `; it left ${describeLeftovers(result.leftovers)} running, which were stopped`
    : '';
  if (result.timedOut) {
    return { unit, ok: false, error: `stopped: the profiler's ${budget} ran out${left}` };
  }
  if (result.exitCode !== 0) {
    const stderr = result.stderr.trim().split('\n').slice(-10).join('\n');
    return {
      unit,
      ok: false,
      error: `exit code ${result.exitCode ?? result.signal ?? result.spawnError}${stderr ? `: ${stderr}` : ''}${left}`,
    };
  }
  return {
    unit,
    ok: true,
    stdout: result.stdout,
    ...(left ? { warning: `the profiler's call on ${describeUnit(unit)} exited${left}` } : {}),
  };
}

function viewArgs(unit: ProfileUnit, tablesDir?: string): string[] {
  const target = unit.kind === 'pair' ? ['-n', unit.neff, '-s', unit.ntff] : ['-d', unit.dir];
  const output =
    tablesDir === undefined
      ? ['--output-format', 'summary-json']
      : ['--output-format', 'parquet', '--output-file', tablesDir];
  return ['view', ...target, ...output];
}

/** The profiler call for `unit` as a user would type it, to name its output in messages. */
export function viewCommand(profiler: string, unit: ProfileUnit, tablesDir?: string): string {
  return [profiler, ...viewArgs(unit, tablesDir)].join(' ');
}

export function describeUnit(unit: ProfileUnit): string {
  return unit.kind === 'pair' ? unit.ntff : unit.dir;
}
