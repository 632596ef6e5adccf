// Runs a probing tool (neuron-ls, pip) and returns what it printed, or nothing at all:
// a probe that cannot answer leaves its fields out instead of failing the gate. The tools
// are found through the config's PATH, so they are pull-request code: they run contained
// like a benchmark, and what they leave running is stopped and named.

import { describeLeftovers } from '../runner/leftovers.js';
import { childEnvironment } from '../runner/child-env.js';
import type { ProcessRunner } from '../runner/types.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How long one probing tool may take; pip on a cold disk can need several seconds. */
export const PROBE_TIMEOUT_MS = 30_000;

/** Where and how the probing tools run, and where their problems are told. */
export interface ToolContext {
  runner: ProcessRunner;
  env: Env;
  timeoutMs: number;
  /** Ours unless given. */
  cwd?: string;
  /** Receives a warning for each tool that left processes running. */
  warnings: string[];
}

/** The stdout of `file args` when it exits 0 within the time limit; undefined otherwise. */
export async function toolOutput(
  tools: ToolContext,
  file: string,
  args: readonly string[],
): Promise<string | undefined> {
  const result = await tools.runner.capture({
    file,
    args,
    env: childEnvironment(tools.env),
    timeoutMs: tools.timeoutMs,
    ...(tools.cwd !== undefined ? { cwd: tools.cwd } : {}),
  });
  if (result.leftovers) {
    tools.warnings.push(
      `the probe \`${[file, ...args].join(' ')}\` left ${describeLeftovers(result.leftovers)} running after it exited; they were stopped`,
    );
  }
  return result.exitCode === 0 && !result.timedOut ? result.stdout : undefined;
}
