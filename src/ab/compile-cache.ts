// A/B mode and the Neuron compile cache. Each side's cache is listed before and after each
// of its runs of the first block (base head head base), so even one cache shared by both
// sides tells whose run compiled what. The head's first run is judged against the base's
// visit to a cache in the state the head found its own in (docs/ab.md, "The compile cache"):
// - one cache for both: the base runs first and, on a cold cache, compiles and so warms the
//   cache the head then finds. The base's both runs of the first block count: the rule
//   (compare/compile-cache.ts) takes the fewest graphs it compiled, and the graphs loaded
//   are its second run's (a warm cache), so a head that recompiles them fails, cold or warm;
// - a cache for each side: each side's first visit to its own cache, like for like.
// A head whose first run found its cache cold (CompileCacheSummary.coldBefore) is not failed
// for recompiling, except on the cache the base shares: the base ran on it first.

import type { BenchmarkSpec } from '../config/types.js';
import type { AbCompileCaches, CompileCacheSummary, Metric, RunOutcome } from '../model.js';
import type { CacheLocation } from '../observe/compile-cache-dir.js';
import {
  firstRunExtraSeconds,
  observeCompileCache,
  watchCompileCache,
} from '../observe/compile-cache.js';
import { compileCacheMetrics, GRAPHS_CACHED, GRAPHS_COMPILED } from '../observe/compile-metrics.js';
import type { AbSide } from './schedule.js';

/** A side's cache as the judge takes it: its first run's summary, the metrics compared. */
export interface SideCache {
  summary: CompileCacheSummary;
  metrics: Metric[];
}

/** Runs of a side's first block observed: ABBA gives each side two. */
const OBSERVED_BLOCK = 0;

export class AbCacheWatch {
  private readonly observed: Record<AbSide, (CompileCacheSummary | undefined)[]> = {
    base: [],
    head: [],
  };
  private readonly locations: Partial<Record<AbSide, CacheLocation>> = {};
  /** Each side's first run as last judged (its compile time filled in from the run times). */
  private readonly judged: Partial<Record<AbSide, CompileCacheSummary>> = {};
  /** The runs (by index) whose cache listing gained entries: they compiled, no warm start. */
  private readonly compiling: Record<AbSide, Set<number>> = { base: new Set(), head: new Set() };

  constructor(
    private readonly specs: Record<AbSide, BenchmarkSpec>,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  /** One cache for both sides (known once each side has run once). */
  get shared(): boolean {
    const { base, head } = this.locations;
    if (!base || !head) return false;
    const where = (l: CacheLocation) => ('dir' in l ? `dir:${l.dir}` : `remote:${l.remote}`);
    return where(base) === where(head);
  }

  /** Runs `run`; one of the side's first-block runs with the cache listed before and after. */
  async around(
    side: AbSide,
    block: number,
    run: () => Promise<RunOutcome | undefined>,
  ): Promise<RunOutcome | undefined> {
    if (block !== OBSERVED_BLOCK) return run();
    const spec = this.specs[side];
    const watch = await watchCompileCache({ ...this.env, ...spec.env }, spec.workingDirectory);
    this.locations[side] = watch.location;
    const outcome = await run();
    if (outcome?.ok) {
      const observed = await observeCompileCache(watch, [outcome]);
      this.observed[side].push(observed);
      if ((observed?.graphsCompiled ?? 0) > 0) this.compiling[side].add(outcome.index);
    }
    return outcome;
  }

  /** The side's watched runs (by index) that compiled graphs into its cache. */
  compiledRuns(side: AbSide): ReadonlySet<number> {
    return this.compiling[side];
  }

  /**
   * The side's cache for the judge, undefined when its first run never touched it. `runs`:
   * the side's clean runs, whose times give the first run's compile time when no log does.
   */
  of(side: AbSide, runs: readonly RunOutcome[]): SideCache | undefined {
    const [first, again] = [this.firstOf(side), this.observed[side][1]];
    if (!first) return undefined;
    const summary = withFirstRunTime(side === 'head' && this.shared ? notCold(first) : first, runs);
    this.judged[side] = summary;
    const metrics = compileCacheMetrics(summary);
    return {
      summary,
      metrics: side === 'base' && this.shared && again ? warmed(metrics, again) : metrics,
    };
  }

  /**
   * The side's first run; when it left no trace but the other side's did, and its cache is
   * a folder the gate listed, it compiled nothing: 0 graphs (it loaded what it needed, or
   * needed nothing; no log said which), rather than a metric one side lacks.
   */
  private firstOf(side: AbSide): CompileCacheSummary | undefined {
    const first = this.observed[side][0];
    const location = this.locations[side];
    const other = this.observed[side === 'base' ? 'head' : 'base'][0];
    if (first || !other || !location || !('dir' in location)) return first;
    return { dir: location.shown ?? location.dir, graphsCompiled: 0, compiled: [], warnings: [] };
  }

  /** What report.json and the comment show of each side. */
  summary(): AbCompileCaches {
    const baseAgain = this.observed.base[1];
    const base = this.judged.base ?? this.firstOf('base');
    const head = this.judged.head ?? this.firstOf('head');
    const shared = this.shared;
    return {
      shared,
      ...(base ? { base } : {}),
      ...(shared && baseAgain ? { baseAgain } : {}),
      ...(head ? { head } : {}),
    };
  }

  /** Warnings of every observed run of the side (cut-off log lines, an unreadable cache). */
  warnings(side: AbSide): string[] {
    const all = this.observed[side].flatMap((s) => s?.warnings ?? []);
    return [...new Set(all)];
  }
}

/**
 * The head's first run on the cache the base shares, without `coldBefore`: the base ran on
 * it first, so what the head found there is the base's doing, not a new or wiped runner,
 * and a head whose graphs the base's runs did not leave (other keys, or another compiler
 * its probe did not name) is judged by the rule as it is.
 */
function notCold(summary: CompileCacheSummary): CompileCacheSummary {
  const rest = { ...summary };
  delete rest.coldBefore;
  return rest;
}

/** The first run's compile time from its time beyond the side's other runs, when no log says it. */
function withFirstRunTime(
  summary: CompileCacheSummary,
  runs: readonly RunOutcome[],
): CompileCacheSummary {
  if (summary.graphsCompiled === 0 || summary.compileSeconds !== undefined) return summary;
  const seconds = firstRunExtraSeconds(runs);
  return seconds === undefined
    ? summary
    : { ...summary, compileSeconds: seconds, compileTimeFrom: 'first-run' };
}

/**
 * The base's metrics with its second run on the shared cache: graphs compiled by either run
 * (the rule takes the fewest), graphs loaded from a warm cache by the second, the first's time.
 */
function warmed(metrics: readonly Metric[], again: CompileCacheSummary): Metric[] {
  const [loaded] = compileCacheMetrics(again).filter((m) => m.id === GRAPHS_CACHED);
  const out = metrics
    .filter((m) => m.id !== GRAPHS_CACHED || !loaded)
    .map((m) =>
      m.id === GRAPHS_COMPILED ? { ...m, values: [...m.values, again.graphsCompiled] } : m,
    );
  return loaded ? [...out, loaded] : out;
}
