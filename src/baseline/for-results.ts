// The baseline of each measured result: chosen for its own environment, a one-to-one
// pairing of a single named benchmark, and the error when a named file matches nothing.

import { chooseByName } from './by-name.js';
import { pairBySettings, type SettingsPairing } from './by-settings.js';
import type { BaselineMatch } from './select.js';
import type { Baseline } from './types.js';
import { inputError } from '../errors.js';
import type { BaselineInfo, BenchmarkReport, BenchmarkResult } from '../model.js';

/**
 * Each result's baseline, chosen for the result's own environment: by the store (record
 * stores), else the stored result of the same name, checked the same way (chooseByName).
 */
export async function chooseBaselines(
  baseline: Baseline | undefined,
  results: BenchmarkResult[],
  match: BaselineMatch,
  onlyBenchmark: boolean,
): Promise<{
  baseline: Baseline | undefined;
  infos: Map<string, BaselineInfo>;
  warnings: Map<string, string[]>;
}> {
  const infos = new Map<string, BaselineInfo>();
  const warnings = new Map<string, string[]>();
  if (!baseline) return { baseline, infos, warnings };
  const paired = onlyBenchmark ? pairedSingle(baseline, results) : undefined;
  if (paired) {
    baseline = paired.baseline;
    warnings.set(paired.name, [paired.note]);
  }
  const pairs = pairBySettings(
    results.map((result) => result.name),
    baseline.choose ? (baseline.names?.() ?? []) : baseline.benchmarks.map((b) => b.name),
  );
  const chosen: BenchmarkResult[] = [];
  for (const result of results) {
    const pair = pairs.get(result.name);
    const stored = storedNameOf(pair, baseline);
    if (pair) addWarnings(warnings, result.name, [pairNote(pair, stored)]);
    if (baseline.choose) {
      const choice = await baseline.choose(stored ?? result.name, result.environment ?? {});
      infos.set(result.name, choice.info);
      if (choice.warnings) addWarnings(warnings, result.name, choice.warnings);
      if (choice.result) chosen.push({ ...choice.result, name: result.name });
      continue;
    }
    const choice = chooseByName(baseline, { ...result, name: stored ?? result.name }, match);
    // A file names itself in the report already; only what differs needs a line here.
    if (choice.info.environmentNotes) infos.set(result.name, choice.info);
    if (choice.result) chosen.push({ ...choice.result, name: result.name });
  }
  return { baseline: { source: baseline.source, benchmarks: chosen }, infos, warnings };
}

function addWarnings(warnings: Map<string, string[]>, name: string, more: string[]): void {
  warnings.set(name, [...(warnings.get(name) ?? []), ...more]);
}

/**
 * The stored benchmark a result named by its settings is compared with when no stored one
 * has its name: the same settings named another way always; the nearest settings only in
 * files the user named (an A/B of two files), never in a store the gate keeps, where a
 * changed workload is a new benchmark.
 */
function storedNameOf(pair: SettingsPairing | undefined, baseline: Baseline): string | undefined {
  if (!pair) return undefined;
  return pair.kind === 'renamed' || baseline.named ? pair.baseline : undefined;
}

function pairNote(pair: SettingsPairing, stored: string | undefined): string {
  if (stored !== undefined) return pair.note;
  return `no stored baseline has this name; the nearest, ${JSON.stringify(pair.baseline)}, has ${pair.difference}: not compared, a changed workload is a new benchmark`;
}

/**
 * A baseline file holding one benchmark, compared with a gate that measured one: they are
 * paired whatever their names (an unnamed `--command` run against a saved, named
 * baseline), and the report says so, as `compare` does. Stores the gate keeps match by name.
 */
function pairedSingle(
  baseline: Baseline,
  results: BenchmarkResult[],
): { baseline: Baseline; name: string; note: string } | undefined {
  const [stored] = baseline.benchmarks;
  const [result] = results;
  if (!baseline.named || baseline.benchmarks.length !== 1 || results.length !== 1) return undefined;
  if (!stored || !result || stored.name === result.name) return undefined;
  return {
    baseline: { ...baseline, benchmarks: [{ ...stored, name: result.name }] },
    name: result.name,
    note:
      `compared current ${JSON.stringify(result.name)} with baseline ${JSON.stringify(stored.name)}: ` +
      'the names differ, and each side holds one benchmark',
  };
}

/**
 * A baseline file the user named, none of whose benchmarks matches a measured one,
 * compares with nothing: an error (exit 2), never a pass. Stores the gate keeps (records,
 * artifacts) are exempt: a renamed or new benchmark has no baseline there yet.
 */
export function unmatchedBaselineFile(
  baseline: Baseline,
  reports: BenchmarkReport[],
  onlyBenchmark: boolean,
): void {
  if (!baseline.named || baseline.benchmarks.length === 0 || reports.length === 0) return;
  // A benchmark that failed to run says so (exit 3); one and one were paired.
  if (reports.some((report) => report.error !== undefined)) return;
  if (onlyBenchmark && reports.length === 1 && baseline.benchmarks.length === 1) return;
  const names = new Set(reports.map((report) => report.name));
  if (baseline.benchmarks.some((stored) => names.has(stored.name))) return;
  const storedNames = baseline.benchmarks.map((stored) => stored.name);
  if (pairBySettings([...names], storedNames).size > 0) return;
  const list = (items: { name: string }[]) => items.map((b) => JSON.stringify(b.name)).join(', ');
  throw inputError(
    baseline.source,
    `no baseline benchmark (${list(baseline.benchmarks)}) matches a measured one ` +
      `(${list(reports)}); benchmarks are matched by name: give the benchmark the baseline's ` +
      'name (name: in the config, --name), or pass the baseline file of these benchmarks',
  );
}
