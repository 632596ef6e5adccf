// What an A/B side's benchmark shell looked like once its command had run: the variables
// that choose a Python and its packages, where `python3` and `neuronx-cc` resolved, and
// its working folder. The gate runs the command behind an EXIT trap that writes them to a
// file, so a command that sets up its own environment (`source /opt/venv/bin/activate &&
// python …`) is seen as it ran, not as the side's variables said it would (side-versions.ts).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { benchmarkPaths } from '../runner/benchmark.js';

/** Variables a command's set-up changes to pick another SDK (a venv's activate, conda). */
export const RECORDED_VARIABLES = [
  'PATH',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'PYTHONPATH',
  'PYTHONHOME',
  'LD_LIBRARY_PATH',
] as const;

/** Commands whose resolved path the record names. */
export const RESOLVED_COMMANDS = ['python3', 'neuronx-cc'] as const;

export interface ShellRecord {
  /** The shell's folder when the command ended. */
  cwd?: string;
  /** The recorded variables the shell had set (unset ones are left out). */
  env: Record<string, string>;
  /** Where each command resolved on the shell's PATH; absent when it was not found. */
  resolved: Partial<Record<(typeof RESOLVED_COMMANDS)[number], string>>;
}

/** The record file of one benchmark of one side: beside its runs' files. */
export function shellRecordPath(sideOutDir: string, benchmark: string): string {
  return join(benchmarkPaths(sideOutDir, benchmark).runsDir, 'benchmark-shell.txt');
}

/**
 * `command` run after an EXIT trap that writes the record to `path`. The trap runs in the
 * command's own shell after its last line, keeps its exit status, and is lost only when
 * the command replaces the shell (`exec`) or sets an EXIT trap of its own.
 */
export function withShellRecord(command: string, path: string): string {
  const lines = [
    `printf 'cwd=%s\\n' "$PWD"`,
    ...RECORDED_VARIABLES.map(
      (name) => `if [ -n "\${${name}+x}" ]; then printf 'env.${name}=%s\\n' "$${name}"; fi`,
    ),
    ...RESOLVED_COMMANDS.map((name) => `printf 'which.${name}=%s\\n' "$(command -v ${name})"`),
  ];
  const record = `{ ${lines.join('; ')}; } > ${shellQuote(path)} 2>/dev/null`;
  const trap = `__perf_gate_status=$?; set +e; ${record}; exit $__perf_gate_status`;
  return `trap ${shellQuote(trap)} EXIT\n${command}`;
}

/** The user's command of a command withShellRecord wrapped (unchanged if it was not). */
export function commandOf(wrapped: string): string {
  const match = /^trap '(?:[^']|'\\'')*' EXIT\n/.exec(wrapped);
  return match ? wrapped.slice(match[0].length) : wrapped;
}

/** The record the trap wrote; undefined when there is none (the trap never ran). */
export async function readShellRecord(path: string): Promise<ShellRecord | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  return parseShellRecord(text);
}

export function parseShellRecord(text: string): ShellRecord | undefined {
  const record: ShellRecord = { env: {}, resolved: {} };
  let seen = false;
  for (const line of text.split('\n')) {
    const match = /^([\w.-]+)=(.*)$/.exec(line);
    if (!match) continue;
    const [, key, value] = match as unknown as [string, string, string];
    if (key === 'cwd') {
      record.cwd = value;
      seen = true;
    } else if (key.startsWith('env.')) {
      const name = key.slice(4);
      if ((RECORDED_VARIABLES as readonly string[]).includes(name)) record.env[name] = value;
    } else if (key.startsWith('which.') && value !== '') {
      const name = key.slice(6) as (typeof RESOLVED_COMMANDS)[number];
      if (RESOLVED_COMMANDS.includes(name)) record.resolved[name] = value;
    }
  }
  return seen ? record : undefined;
}

/** One word for `sh`: single-quoted, a single quote as '\''. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
