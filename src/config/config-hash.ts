// A short fingerprint of the settings that shape a benchmark's numbers, so a baseline
// measured with another command, format, run count, environment or directory is
// recognised as coming from a different config. Name, thresholds, profile, profile mode,
// the profiler variables of env (they reach the profiled run only) and timeout do not
// change what is measured and are left out.

import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';

import { isProfilerVariable } from './profiler-variables.js';
import type { BenchmarkSpec } from './types.js';

export type HashedSettings = Pick<
  BenchmarkSpec,
  'command' | 'format' | 'runs' | 'env' | 'workingDirectory' | 'sweep' | 'slo'
>;

/** First 12 hex digits of a sha256 over the measured-relevant settings. */
export function configHash(spec: HashedSettings, workspace: string): string {
  // The directory relative to the workspace, with '/', so the hash is the same on every
  // runner whatever its checkout path.
  const directory = relative(workspace, spec.workingDirectory).split(sep).join('/') || '.';
  const env = Object.keys(spec.env)
    .filter((name) => !isProfilerVariable(name))
    .sort()
    .map((name) => [name, spec.env[name]]);
  // An array fixes the field order; the version tag lets the fields change later.
  const fields: unknown[] = ['v1', spec.command, spec.format, spec.runs, env, directory];
  // A sweep variant's parameters shape its numbers; plain benchmarks keep their old hash.
  if (spec.sweep) fields.push(spec.sweep.params);
  // Objectives shape the derived figures (attainment, goodput, capacity): a changed SLO
  // starts a new baseline rather than judge them against another SLO's.
  if (spec.slo) fields.push({ slo: spec.slo });
  const canonical = JSON.stringify(fields);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}

/**
 * The config hash of a sweep's capacity: its variants' hashes together (each holds the
 * command, the variant's parameters and the SLO), so a changed variant or SLO starts a
 * new capacity baseline.
 */
export function capacityConfigHash(variants: readonly { configHash?: string }[]): string {
  const hashes = variants.map((variant) => variant.configHash ?? '').sort();
  return createHash('sha256')
    .update(JSON.stringify(['capacity-v1', hashes]))
    .digest('hex')
    .slice(0, 12);
}
