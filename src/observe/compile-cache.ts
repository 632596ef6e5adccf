// The Neuron compile cache around one benchmark's runs: what the cache held before the
// first run and after the last (new complete MODULE_ entries are graphs these runs
// compiled), what the runs' logs say they loaded from it, and how long compiling took.
// Compile time is never part of a measured figure: it becomes metrics of its own.

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CompileCacheSummary, RunOutcome } from '../model.js';
import { median } from '../stats/percentile.js';
import {
  compileCacheLocation,
  listCompileCache,
  type CacheListing,
  type CacheLocation,
} from './compile-cache-dir.js';
import { parseCompileLog, type CompileLog } from './compile-log.js';

/** The cache as it was before a benchmark's first run. */
export interface CompileCacheWatch {
  location: CacheLocation;
  before?: CacheListing;
  /**
   * The same folder as this gate run first listed it, before an earlier benchmark's runs
   * added to it; absent: `before` is that first listing. Whether the cache was cold.
   */
  first?: CacheListing;
}

/**
 * Looks at the cache the benchmark will use (its env laid over the gate's) before it runs.
 * `seen`: the gate run's first listing of each folder, kept across its benchmarks (this
 * listing is added when the folder is new to it).
 */
export async function watchCompileCache(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  seen?: Map<string, CacheListing>,
): Promise<CompileCacheWatch> {
  const location = compileCacheLocation(env, cwd);
  if (!('dir' in location)) return { location };
  const before = await listCompileCache(location.dir);
  const first = seen?.get(location.dir);
  if (seen && !first) seen.set(location.dir, before);
  return { location, before, ...(first ? { first } : {}) };
}

/**
 * What the runs did with the cache; undefined when they never touched it (no new entry,
 * no compile line in their logs): a benchmark that does not compile for Neuron. `timed`:
 * the runs whose times give the compile time when no log says it (the first one's time
 * beyond the median of the others); the observed runs themselves by default. `serverLogs`:
 * the logs of the server starts beside the runs (a `server:` loads or compiles the graphs).
 */
export async function observeCompileCache(
  watch: CompileCacheWatch,
  outcomes: readonly RunOutcome[],
  timed: readonly RunOutcome[] = outcomes,
  serverLogs: readonly { logPath: string }[] = [],
): Promise<CompileCacheSummary | undefined> {
  const logs = await Promise.all([...outcomes, ...serverLogs].map(readRunLog));
  const after = 'dir' in watch.location ? await listCompileCache(watch.location.dir) : undefined;
  const newEntries = after ? [...after.entries].filter((e) => !watch.before?.entries.has(e)) : [];
  const logged = logs.reduce((sum, log) => sum + log.compiled, 0);
  const loaded = new Set(logs.flatMap((log) => log.cached));
  const saidAnything = logs.some((log) => log.compiled + log.cached.length > 0);
  if (newEntries.length === 0 && !saidAnything) return undefined;
  // New entries name the graphs; a remote cache leaves the logs' count only.
  const graphsCompiled = after ? newEntries.length : logged;
  const cached = [...loaded].filter((entry) => !newEntries.includes(entry)).length;
  const time = compileTime(logs, timed);
  return {
    // Shown as configured: a folder inside the checkout reads the same on every machine.
    ...('dir' in watch.location
      ? { dir: watch.location.shown ?? watch.location.dir }
      : { remote: watch.location.remote }),
    graphsCompiled,
    compiled: newEntries.sort(),
    ...(saidAnything ? { cached } : {}),
    ...coldness(watch, newEntries),
    ...(graphsCompiled > 0 && time ? time : {}),
    warnings: [
      ...(watch.before?.warnings ?? []),
      ...(after?.warnings ?? []),
      ...logs.flatMap((log) => log.warnings),
    ],
  };
}

/**
 * `coldBefore`: whether the cache held no entry of the compiler versions the new entries
 * were compiled under when this gate run first listed it; nothing when no entry is new or
 * that listing is unsure (a folder it could not read is not an empty one).
 */
function coldness(
  watch: CompileCacheWatch,
  newEntries: readonly string[],
): Pick<CompileCacheSummary, 'coldBefore'> {
  const listing = watch.first ?? watch.before;
  if (!listing || listing.warnings.length > 0 || newEntries.length === 0) return {};
  const versions = new Set(newEntries.map(compilerFolder));
  return { coldBefore: ![...listing.entries].some((e) => versions.has(compilerFolder(e))) };
}

/** `neuronxcc-<version>` of an entry `neuronxcc-<version>/MODULE_<hash>`. */
export const compilerFolder = (entry: string): string => entry.split('/')[0]!;

/** The runs whose logs say they compiled a graph (`startup:` leaves them out of the warm start). */
export async function runsThatCompiled(outcomes: readonly RunOutcome[]): Promise<Set<number>> {
  const logs = await Promise.all(outcomes.map(readRunLog));
  return new Set(outcomes.filter((_run, i) => logs[i]!.compiled > 0).map((run) => run.index));
}

/** A run's log, parsed; a log that cannot be read says nothing (its run's error says why). */
async function readRunLog(outcome: { logPath: string }): Promise<CompileLog> {
  const text = await readFile(outcome.logPath, 'utf8').catch(() => '');
  return parseCompileLog(text, basename(outcome.logPath));
}

/**
 * Seconds spent compiling: the tools' own figures in the runs that compiled something,
 * else the first clean run's time beyond the median of the others.
 */
function compileTime(
  logs: readonly CompileLog[],
  outcomes: readonly RunOutcome[],
): Pick<CompileCacheSummary, 'compileSeconds' | 'compileTimeFrom'> | undefined {
  const compiling = logs.filter((log) => log.compiled > 0 && log.compileSeconds.length > 0);
  if (compiling.length > 0) {
    const seconds = compiling.flatMap((log) => log.compileSeconds).reduce((a, b) => a + b, 0);
    return { compileSeconds: seconds, compileTimeFrom: 'log' };
  }
  const extra = firstRunExtraSeconds(outcomes);
  return extra === undefined ? undefined : { compileSeconds: extra, compileTimeFrom: 'first-run' };
}

/** The first clean run's time beyond the median of the other clean runs; undefined if none. */
export function firstRunExtraSeconds(outcomes: readonly RunOutcome[]): number | undefined {
  const clean = outcomes.filter((o) => o.kind === 'clean' && o.ok);
  if (clean.length < 2) return undefined;
  const extraMs = clean[0]!.durationMs - median(clean.slice(1).map((o) => o.durationMs));
  return extraMs > 0 ? extraMs / 1000 : undefined;
}
