// The two sides of an A/B comparison on one host: each a folder with the code to measure
// (a git worktree of a ref, or the working tree itself), prepared by the config's `setup`
// command (install, build, compile) before its first run. Setup is timed and logged, and
// never part of a measured figure.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchmarkSpec, GateConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { Environment } from '../model.js';
import { childEnvironment } from '../runner/child-env.js';
import { LOG_TAIL_LINES } from '../runner/benchmark.js';
import { howItFailed, outputTail } from '../runner/failure.js';
import type { ProcessRunner } from '../runner/types.js';
import { movedInto } from '../bisect/worktrees.js';
import type { AbSide } from './schedule.js';
import { shellRecordPath, withShellRecord } from './shell-record.js';

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
  /** What the side's probe found (its compiler version keys its compile cache). */
  environment?: Environment;
  /** Its commit's own config, when it runs by one (side-configs.ts); else the gate's. */
  own?: SideConfig;
  /** A config file of its own (`--base-config`): two stacks side by side at one commit. */
  configFile?: string;
}

/** A side's own config and the folder its relative paths were resolved against. */
export interface SideConfig {
  config: GateConfig;
  root: string;
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
  const how = howItFailed(result, 'timeout-minutes');
  const tail = outputTail(result);
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

/**
 * The benchmark as this side runs it: its working directory moved into the side's folder,
 * its command behind the trap that records the shell it ran in (shell-record.ts).
 */
export function specOfSide(spec: BenchmarkSpec, side: PreparedSide, root: string): BenchmarkSpec {
  const workingDirectory = movedInto(root, side.dir, spec.workingDirectory);
  const command = withShellRecord(spec.command, shellRecordPath(side.outDir, spec.name));
  return { ...spec, command, workingDirectory, env: { ...spec.env, ...sideVariables(side) } };
}
