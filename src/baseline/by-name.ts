// The baseline of a store that keeps one set of results (a file, an artifact): the stored
// result of the same name. It is checked against the current run's environment like a
// record store's choice, so numbers from another SDK or instance type are never compared
// without saying so.

import {
  describeDifference,
  fingerprintDifferences,
  notComparedNotes,
} from '../environment/fingerprint.js';
import type { BaselineInfo, BenchmarkResult } from '../model.js';
import type { BaselineMatch } from './select.js';
import type { Baseline, BaselineChoice } from './types.js';

/**
 * `current`'s baseline in `baseline.benchmarks`. With `strict`, one measured on another
 * environment is no baseline, and the notes say what differs; with `loose` it is compared
 * and the notes say the same. Fields one side does not know are noted as not compared.
 */
export function chooseByName(
  baseline: Baseline,
  current: BenchmarkResult,
  match: BaselineMatch,
): BaselineChoice {
  const stored = baseline.benchmarks.find((b) => b.name === current.name);
  if (!stored) return { info: { source: baseline.source } };
  const before = stored.environment ?? {};
  const now = current.environment ?? {};
  const differences = fingerprintDifferences(before, now).map(describeDifference);
  const notes = [...differences, ...notComparedNotes(before, now)];
  const info: BaselineInfo = {
    source: baseline.source,
    ...(notes.length > 0 ? { environmentNotes: notes } : {}),
  };
  if (differences.length > 0 && match === 'strict') return { info };
  return { result: stored, info };
}
