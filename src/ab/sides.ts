// The two sides of an A/B comparison on one host: each a folder with the code to measure
// (a git worktree of a ref, or the working tree itself), prepared by the config's `setup`
// command (install, build, compile) before its first run. Setup is timed and logged, and
// never part of a measured figure.

import { mkdir } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type { BenchmarkSpec } from '../config/types.js';
import type { Logger } from '../log.js';
import { childEnvironment } from '../runner/child-env.js';
import { LOG_TAIL_LINES } from '../runner/benchmark.js';
import type { ProcessRunner } from '../runner/types.js';
import type { AbSide } from './schedule.js';

export interface PreparedSide {
  side: AbSide;
  /** What the side is, for people: `main (1a2b3c4)`, `the working tree`. */
  label: string;
  /** The commit, when the side is one. */
  sha?: string;
  /** The folder its code is in. */
  dir: string;
  /** Its runs, logs and setup log go below this. */
  outDir: string;
  /** Variables this side sets for everything it runs (an environment A/B: PATH, a venv). */
  env: Record<string, string>;
  /** Setup's wall time in ms, when there is a setup command. */
  setupMs?: number;
  setupLog?: string;
}

/** A side's setup failed: names the side and the command. */
export class SetupFailed extends Error {
  override name = 'SetupFailed';
}

export interface SetupOptions {
  command: string | undefined;
  runner: ProcessRunner;
  log: Logger;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  now?: () => number;
}

/** Runs `setup` in the side's folder; the side with its setup time, or SetupFailed. */
export async function setUpSide(side: PreparedSide, options: SetupOptions): Promise<PreparedSide> {
  if (!options.command) return side;
  const now = options.now ?? (() => performance.now());
  await mkdir(side.outDir, { recursive: true });
  const logPath = join(side.outDir, 'setup.log');
  options.log.startGroup(`${side.side} (${side.label}): setup: ${options.command}`);
  const started = now();
  const result = await options.runner
    .run({
      command: options.command,
      cwd: side.dir,
      env: childEnvironment({ ...options.env, ...sideVariables(side) }),
      timeoutMs: options.timeoutMs,
      logPath,
      onOutput: (chunk) => options.log.output(chunk),
      tailLines: LOG_TAIL_LINES,
    })
    .finally(() => options.log.endGroup());
  const setupMs = now() - started;
  if (result.exitCode === 0) {
    options.log.info(`${side.side} (${side.label}): setup took ${(setupMs / 1000).toFixed(1)} s`);
    return { ...side, setupMs, setupLog: logPath };
  }
  const how =
    result.spawnError !== undefined
      ? `could not be started: ${result.spawnError}`
      : result.timedOut
        ? 'did not finish within timeout-minutes'
        : result.exitCode === null
          ? `was killed by ${result.signal ?? 'a signal'}`
          : `exited with code ${result.exitCode}`;
  const tail =
    result.tail.length > 0 ? `\nLast lines of its output:\n${result.tail.join('\n')}` : '';
  throw new SetupFailed(
    `the ${side.side} side (${side.label}): setup ${JSON.stringify(options.command)} ${how} (full log: ${logPath}); nothing was measured${tail}`,
  );
}

/** What a side's processes are told about it. */
export function sideVariables(side: PreparedSide): Record<string, string> {
  return {
    ...side.env,
    PERF_GATE_SIDE: side.side,
    PERF_GATE_WORKTREE: side.dir,
    ...(side.sha ? { PERF_GATE_COMMIT: side.sha } : {}),
  };
}

/** The benchmark as this side runs it: its working directory moved into the side's folder. */
export function specOfSide(spec: BenchmarkSpec, side: PreparedSide, root: string): BenchmarkSpec {
  const inRepo = relative(root, spec.workingDirectory);
  const workingDirectory =
    inRepo.startsWith('..') || isAbsolute(inRepo) ? spec.workingDirectory : join(side.dir, inRepo);
  return { ...spec, workingDirectory, env: { ...spec.env, ...sideVariables(side) } };
}
