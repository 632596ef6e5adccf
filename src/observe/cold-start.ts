// The cold start of `startup: { cold: true }`: one more start of the benchmark (or of its
// server, server-cold-start.ts), apart from its measured runs, on an empty Neuron compile
// cache (a fresh folder of the gate's given as NEURON_COMPILE_CACHE_URL, the user's own
// cache hidden from it where the sandbox can hide it), timed from launch to ready like the
// clean runs; the folder is removed afterwards.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { basename, isAbsolute, join, relative } from 'node:path';
import type { BenchmarkSpec } from '../config/types.js';
import type { Logger } from '../log.js';
import type { ColdStartSummary } from '../model.js';
import { runColdStart } from '../runner/benchmark.js';
import type { ProcessRunner } from '../runner/types.js';
import { listCompileCache, type CacheLocation } from './compile-cache-dir.js';
import { parseCompileLog } from './compile-log.js';

export interface ColdStartOptions {
  runner: ProcessRunner;
  log: Logger;
  outDir: string;
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** The cache the measured runs use: never the cold start's. */
  cache: CacheLocation;
}

export interface ColdStartResult {
  summary: ColdStartSummary;
  warnings: string[];
}

/** One start on the empty cache: its log, and launch → ready or why there is none. */
export interface ColdLaunch {
  /** Whether it ran (and became ready) without failing. */
  ok: boolean;
  logPath: string;
  readyMs?: number;
  note?: string;
}

/** Starts something with the empty cache as its NEURON_COMPILE_CACHE_URL, its runner hiding the user's. */
export type ColdLauncher = (
  runner: ProcessRunner,
  env: { NEURON_COMPILE_CACHE_URL: string },
) => Promise<ColdLaunch>;

/** Runs the cold start; never throws for what the benchmark does (its note says). */
export async function coldStart(
  spec: BenchmarkSpec,
  options: ColdStartOptions,
): Promise<ColdStartResult> {
  return onEmptyCompileCache(options, 'the benchmark', async (runner, env) => {
    const outcome = await runColdStart(spec, { ...options, runner, env });
    const ready = outcome.startup && 'ms' in outcome.startup ? outcome.startup.ms : undefined;
    const note = !outcome.ok
      ? `the cold start failed: ${outcome.error ?? 'unknown error'}`
      : outcome.startup && 'note' in outcome.startup
        ? outcome.startup.note
        : undefined;
    return {
      ok: outcome.ok,
      logPath: outcome.logPath,
      ...(outcome.ok && ready !== undefined ? { readyMs: ready } : {}),
      ...(note ? { note } : {}),
    };
  });
}

/**
 * `launch` on a fresh empty cache inside the out dir, then what its log and the cache say
 * it compiled. `who`: "the benchmark", "the server", for the warning that nothing was.
 */
export async function onEmptyCompileCache(
  options: ColdStartOptions,
  who: string,
  launch: ColdLauncher,
): Promise<ColdStartResult> {
  // Inside the out dir: the sandbox shows it to the benchmark, wherever TMPDIR points.
  const empty = await mkdtemp(join(options.outDir, '.cold-compile-cache-'));
  try {
    // Hidden unless it holds the out dir (a cache at /tmp), which the run must see.
    const { cache } = options;
    const hide = 'dir' in cache && !holds(cache.dir, options.outDir) ? [cache.dir] : [];
    const runner = hide.length > 0 ? options.runner.hiding(hide) : options.runner;
    const launched = await launch(runner, { NEURON_COMPILE_CACHE_URL: empty });
    const listing = await listCompileCache(empty);
    const text = await readFile(launched.logPath, 'utf8').catch(() => '');
    const compileLog = parseCompileLog(text, basename(launched.logPath));
    const compileSeconds = compileLog.compileSeconds.reduce((sum, s) => sum + s, 0);
    const { note } = launched;
    const summary: ColdStartSummary = {
      ...(launched.ok && launched.readyMs !== undefined
        ? { seconds: launched.readyMs / 1000 }
        : {}),
      ...(compileLog.compileSeconds.length > 0 ? { compileSeconds } : {}),
      graphsCompiled: listing.entries.size,
      log: relative(options.outDir, launched.logPath),
      ...(note ? { note } : {}),
    };
    const warnings = [...listing.warnings, ...compileLog.warnings];
    if (note) warnings.push(`cold start: ${note}; cold_startup not measured (log: ${summary.log})`);
    if (launched.ok && listing.entries.size === 0) {
      warnings.push(
        'cold start: nothing was compiled into the empty compile cache it was given as ' +
          `NEURON_COMPILE_CACHE_URL: ${who} may not read that variable (or compiles ` +
          'nothing for Neuron), so cold_startup may not be a cold start',
      );
    }
    return { summary, warnings };
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
}

/** Whether folder `outer` is `inner` or holds it. */
function holds(outer: string, inner: string): boolean {
  const path = relative(outer, inner);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}
