// Runs a probing tool (neuron-ls, pip) and returns what it printed, or nothing at all:
// a probe that cannot answer leaves its fields out instead of failing the gate.

import { execa } from 'execa';
import { childEnvironment, defaultShell, execWithFdsClosed } from '../runner/child-env.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How long one probing tool may take; pip on a cold disk can need several seconds. */
export const PROBE_TIMEOUT_MS = 30_000;

/**
 * The stdout of `file args` (run in `cwd`, else ours) when it exits 0 within `timeoutMs`;
 * undefined otherwise.
 */
export async function toolOutput(
  file: string,
  args: readonly string[],
  env: Env,
  timeoutMs: number = PROBE_TIMEOUT_MS,
  cwd?: string,
): Promise<string | undefined> {
  try {
    const [shell, shellArgs] = execWithFdsClosed(defaultShell(), file, args);
    const { stdout } = await execa(shell, shellArgs, {
      env: childEnvironment(env),
      ...(cwd !== undefined ? { cwd } : {}),
      extendEnv: false,
      timeout: timeoutMs,
      // A tool that ignores SIGTERM must not hold up the gate for long.
      forceKillAfterDelay: 1_000,
      stdin: 'ignore',
    });
    return stdout;
  } catch {
    return undefined;
  }
}
