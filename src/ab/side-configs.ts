// What each side of an A/B of two commits runs comes from its own commit. In
// `compare-with: merge-base` the working tree is the pull request: were its config read
// for both sides, its `setup:` (or a benchmark's command, server, variables) could slow
// the base side alone (`if [ "$PERF_GATE_SIDE" = base ]; then sleep …`) and make a slower
// head look unchanged. So a side checked out at its own commit runs by that commit's
// config, read from its worktree at the same path; how the sides are judged (thresholds,
// SLO, confidence) stays the gate's config, as in the stored mode (docs/security.md).

import type { BenchmarkSpec, GateConfig } from '../config/types.js';
import { GateError, usageError } from '../errors.js';
import type { AbSide } from './schedule.js';
import type { PreparedSide, SideConfig } from './sides.js';

/**
 * Reads the config as the gate was asked to (its inputs), from this checkout; `file`: a
 * config file of its own instead (`--base-config`, `--head-config`).
 */
export type ConfigLoader = (worktree: string, file?: string) => Promise<GateConfig>;

/**
 * Each side's config: its commit's own when the sides are two commits and the side is a
 * worktree of its commit; else the gate's (the working tree, or one commit's two
 * environments, whose worktrees hold the same committed config).
 */
export async function loadSideConfigs(
  config: GateConfig,
  root: string,
  sides: Record<AbSide, PreparedSide>,
  load: ConfigLoader | undefined,
): Promise<Record<AbSide, SideConfig>> {
  const gate: SideConfig = { config, root };
  const twoCommits = sides.base.sha !== sides.head.sha;
  const of = async (side: PreparedSide): Promise<SideConfig> => {
    // Two stacks side by side: each side's config file, read in its own folder.
    if (load && side.configFile !== undefined) {
      return { config: await loadOwn(load, side, side.configFile), root: side.dir };
    }
    return load && twoCommits && side.sha !== undefined && side.dir !== root
      ? { config: await loadOwn(load, side), root: side.dir }
      : gate;
  };
  return { base: await of(sides.base), head: await of(sides.head) };
}

async function loadOwn(load: ConfigLoader, side: PreparedSide, file?: string): Promise<GateConfig> {
  try {
    return await load(side.dir, file);
  } catch (error) {
    if (file !== undefined && error instanceof GateError) {
      throw usageError(
        `the ${side.side} side's config (--${side.side}-config ${file}): ${error.message}`,
      );
    }
    if (!(error instanceof GateError)) throw error;
    // No fallback to the other side's config: that is what let a pull request steer the
    // base side. Without a config of its own the base has nothing to run.
    throw usageError(
      `the ${side.side} side (${side.label}) runs by its own commit's config, and that commit has none the gate can use: ${error.message}\n` +
        'A pull request that adds or moves the config has no base to compare with yet: merge the config first, or run this pull request with compare-with: stored (with ab: a base commit that has the config).',
    );
  }
}

/** The benchmarks both sides have, by name, and those only one side has. */
export interface PairedBenchmarks {
  pairs: { base: BenchmarkSpec; head: BenchmarkSpec }[];
  onlyBase: string[];
  onlyHead: string[];
}

/**
 * Pairs the sides' benchmarks by name, in the head's order. The base's spec keeps what it
 * runs (command, setup, server, variables, format) and takes the head's thresholds and
 * SLO: both sides' figures are derived and judged by one rule.
 */
export function pairBenchmarks(
  base: readonly BenchmarkSpec[],
  head: readonly BenchmarkSpec[],
): PairedBenchmarks {
  const baseByName = new Map(base.map((spec) => [spec.name, spec]));
  const headNames = new Set(head.map((spec) => spec.name));
  const pairs = head.flatMap((spec) => {
    const own = baseByName.get(spec.name);
    return own ? [{ base: judgedLike(own, spec), head: spec }] : [];
  });
  return {
    pairs,
    onlyBase: base.filter((spec) => !headNames.has(spec.name)).map((spec) => spec.name),
    onlyHead: head.filter((spec) => !baseByName.has(spec.name)).map((spec) => spec.name),
  };
}

function judgedLike(own: BenchmarkSpec, head: BenchmarkSpec): BenchmarkSpec {
  const spec: BenchmarkSpec = { ...own, thresholds: head.thresholds };
  if (head.slo) spec.slo = head.slo;
  else delete spec.slo;
  return spec;
}

/** What the report says of benchmarks that were not compared. */
export function unpairedWarnings(paired: PairedBenchmarks): string[] {
  const list = (names: string[]) => names.join(', ');
  return [
    ...(paired.onlyHead.length > 0
      ? [`only on the head: ${list(paired.onlyHead)} (not in the base's config; not compared)`]
      : []),
    ...(paired.onlyBase.length > 0
      ? [`only on the base: ${list(paired.onlyBase)} (not in the head's config; not compared)`]
      : []),
  ];
}

/** Nothing in common is nothing compared: said plainly rather than passed. */
export function refuseNothingInCommon(paired: PairedBenchmarks): void {
  if (paired.pairs.length > 0) return;
  throw usageError(
    `the base and the head have no benchmark of the same name, so nothing can be compared (${unpairedWarnings(paired).join('; ')}). Keep the base's names in this pull request and rename in a later one, or run it with compare-with: stored.`,
  );
}
