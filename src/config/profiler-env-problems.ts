// A benchmark's `env:` may tune the profiler (profiler-variables.ts) but not take it over.
// Checked on the raw data, like unique names, so that each problem names the benchmark and
// is reported together with every other one (zod skips refinements once a field fails).

import { foundMessage } from './problems.js';
import type { PathSegment } from './problems.js';
import {
  gateOwnedReason,
  isWarmupCount,
  misspeltProfilerVariable,
  WARMUP_VARIABLE,
} from './profiler-variables.js';

export interface ProfilerEnvProblem {
  /** The env key's path, such as ['benchmarks', 1, 'env', 'NEURON_RT_INSPECT_ENABLE']. */
  path: PathSegment[];
  /** Whether the problem is the key itself (else its value). */
  key: boolean;
  message: string;
}

export const WARMUP_ALLOWED =
  'allowed: a whole number (0 or more) of executions of each model the device profile skips';

/** Every gate-owned profiler variable and unusable warm-up count in the file's env mappings. */
export function profilerEnvProblems(data: unknown): ProfilerEnvProblem[] {
  if (!isRecord(data)) return [];
  const problems = envProblems(data['env'], ['env'], 'the env every benchmark inherits');
  const benchmarks = data['benchmarks'];
  if (!Array.isArray(benchmarks)) return problems;
  benchmarks.forEach((entry: unknown, index) => {
    if (!isRecord(entry)) return;
    const name = typeof entry['name'] === 'string' ? entry['name'].trim() : '';
    const whose = name === '' ? `benchmarks[${index}]` : `benchmark ${JSON.stringify(name)}`;
    problems.push(
      ...envProblems(entry['env'], ['benchmarks', index, 'env'], `the env of ${whose}`),
    );
    const server = entry['server'];
    if (!isRecord(server)) return;
    problems.push(
      ...envProblems(
        server['env'],
        ['benchmarks', index, 'server', 'env'],
        `the server env of ${whose}`,
      ),
    );
  });
  return problems;
}

function envProblems(env: unknown, at: PathSegment[], where: string): ProfilerEnvProblem[] {
  if (!isRecord(env)) return [];
  const problems: ProfilerEnvProblem[] = [];
  for (const [name, value] of Object.entries(env)) {
    const owned = gateOwnedReason(name);
    const meant = misspeltProfilerVariable(name);
    if (meant !== undefined) {
      problems.push({
        path: [...at, name],
        key: true,
        message: `found key ${JSON.stringify(name)} in ${where}, which the Neuron runtime does not read; did you mean ${meant}?`,
      });
    } else if (owned !== undefined) {
      problems.push({
        path: [...at, name],
        key: true,
        message: `found key ${JSON.stringify(name)} in ${where}; remove it: ${owned}`,
      });
    } else if (name === WARMUP_VARIABLE && !usableWarmup(value)) {
      problems.push({
        path: [...at, name],
        key: false,
        message: foundMessage(value, WARMUP_ALLOWED),
      });
    }
  }
  return problems;
}

/** Missing and empty values are the schema's to report. */
function usableWarmup(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0;
  return typeof value === 'string' && isWarmupCount(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
