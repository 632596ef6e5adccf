// A short fingerprint of the settings that shape a benchmark's numbers, so a baseline
// measured with another command, format, run count, environment or directory is
// recognised as coming from a different config (a server's command and env count too).
// Name, thresholds, profile, profile mode, the profiler variables of env (they reach the
// profiled run only), timeout and how a server is told ready or stopped do not change
// what is measured and are left out.

import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';

import { isProfilerVariable } from './profiler-variables.js';
import type { BenchmarkSpec } from './types.js';

export type HashedSettings = Pick<
  BenchmarkSpec,
  'command' | 'format' | 'runs' | 'env' | 'workingDirectory' | 'sweep' | 'server' | 'slo' | 'warmup'
>;

/** First 12 hex digits of a sha256 over the measured-relevant settings. */
export function configHash(spec: HashedSettings, workspace: string): string {
  // The directory relative to the workspace, with '/', so the hash is the same on every
  // runner whatever its checkout path.
  const directory = relative(workspace, spec.workingDirectory).split(sep).join('/') || '.';
  const env = sortedEnv(spec.env);
  // An array fixes the field order; the version tag lets the fields change later.
  const fields: unknown[] = ['v1', spec.command, spec.format, spec.runs, env, directory];
  // A sweep variant's parameters shape its numbers; plain benchmarks keep their old hash.
  if (spec.sweep) fields.push(spec.sweep.params);
  // A server setting's parameters reach the server: each setting has its own baseline.
  if (spec.sweep?.setting) fields.push({ setting: spec.sweep.setting.params });
  // So do its server's command and variables; how it is told ready or stopped does not.
  if (spec.server) fields.push(['server', spec.server.command, sortedEnv(spec.server.env)]);
  // Objectives shape the derived figures (attainment, goodput, capacity): a changed SLO
  // starts a new baseline rather than judge them against another SLO's.
  // How the capacity is found (`capacity: search`) does not shape a variant's figures:
  // only the capacity's hash holds it (capacityConfigHash).
  if (spec.slo) fields.push({ slo: { ...spec.slo, capacity: undefined } });
  // Requests left out as warm-up change every figure of the runs.
  if (spec.warmup) fields.push({ warmup: spec.warmup });
  const canonical = JSON.stringify(fields);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}

/** The variables that shape the numbers (not the profiler's), sorted by name. */
function sortedEnv(env: Record<string, string>): [string, string | undefined][] {
  return Object.keys(env)
    .filter((name) => !isProfilerVariable(name))
    .sort()
    .map((name) => [name, env[name]]);
}

/**
 * The config hash of a sweep's capacity: its variants' hashes together (each holds the
 * command, the variant's parameters and the SLO), so a changed variant or SLO starts a
 * new capacity baseline.
 */
export function capacityConfigHash(
  variants: readonly { configHash?: string; slo?: BenchmarkSpec['slo'] }[],
): string {
  const hashes = variants.map((variant) => variant.configHash ?? '').sort();
  // A searched capacity is not the grid's interpolation: each has a baseline of its own.
  const search = variants.find((variant) => variant.slo?.capacity)?.slo?.capacity;
  return createHash('sha256')
    .update(JSON.stringify(['capacity-v1', hashes, ...(search ? [search] : [])]))
    .digest('hex')
    .slice(0, 12);
}
