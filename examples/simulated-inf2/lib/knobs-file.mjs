// SIM_KNOBS_FILE: knobs kept in a file of the checked-out tree instead of the environment,
// so that every commit of a repository can carry its own slowdown or versions (the
// commit-indexed variants that bisect and history tests walk through). A relative path is
// read from the tool's working directory; the file's values win over the environment's.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from './errors.mjs';

const LINE = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

/** `env` with the knobs of SIM_KNOBS_FILE laid over it; `env` itself when it is unset. */
export function withKnobsFile(env, cwd = process.cwd()) {
  const name = env.SIM_KNOBS_FILE?.trim();
  if (!name) return env;
  const path = resolve(cwd, name);
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `SIM_KNOBS_FILE: cannot read ${path} (${error?.code ?? error}); it must name a file of KEY=VALUE lines`,
    );
  }
  const knobs = {};
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    const key = match?.[1];
    if (!match || !key.startsWith('SIM_') || key === 'SIM_KNOBS_FILE') {
      throw new UsageError(
        `${path}:${index + 1}: expected SIM_NAME=value (a SIM_* knob other than SIM_KNOBS_FILE), got "${line}"`,
      );
    }
    knobs[key] = match[2].replace(/^(["'])(.*)\1$/, '$2');
  }
  return { ...env, ...knobs };
}
