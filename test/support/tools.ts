// The real process runner, without a sandbox, for tests of what the gate runs through it.

import type { ToolContext } from '../../src/environment/tool-output.js';
import { createProcessRunner } from '../../src/runner/process.js';

export const runner = createProcessRunner();

/** A ToolContext on the real runner, with `env` and a time limit per tool. */
export function tools(
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = 30_000,
): ToolContext {
  return { runner, env, timeoutMs, warnings: [] };
}
