// Fake command-line tools for the environment probes: small bash scripts in a temp dir,
// run as real child processes. Scripts use only bash builtins and absolute paths, so a
// PATH made of these folders alone hides the machine's own pip and python3.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The simulated inf2 machine's executables (neuron-ls, pip, ...). */
export const SIMULATOR_BIN = resolve(
  import.meta.dirname,
  '..',
  '..',
  'examples',
  'simulated-inf2',
  'bin',
);

/** Where this very node lives, so the simulator's `#!/usr/bin/env node` finds it. */
export const NODE_DIR = dirname(process.execPath);

const made: string[] = [];

export async function toolDir(prefix = 'env-probe-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes an executable bash script `dir/name` with `body` after the shebang. */
export async function writeTool(dir: string, name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/bash\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/** `printf` of `text` as a script line: bash's own, with no PATH lookup. */
export function printLines(text: string): string {
  return `printf '%s\\n' ${shellQuote(text)}`;
}

export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export async function removeToolDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
