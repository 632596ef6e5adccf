// The start-up figures of a benchmark with a server and `startup: { cold: true }`: its clean
// starts are `server_startup` already (served-benchmarks.ts), so only `cold_startup` and
// `cold_compile_time` come from here, with what the clean (warm) starts' logs say they did
// with the compile cache: graphs loaded from it, graphs compiled.

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { StartupSpec } from '../config/types.js';
import type { ColdStartSummary, ServerStartsCache } from '../model.js';
import type { ServerStartRecord } from '../runner/server-session.js';
import { parseCompileLog } from './compile-log.js';
import { startupFigures, type StartupFigures } from './startup-metrics.js';

/** What the clean starts' logs say of the compile cache; undefined without a clean start. */
export async function serverStartsCache(
  starts: readonly ServerStartRecord[],
): Promise<ServerStartsCache | undefined> {
  const clean = starts.filter((start) => start.kind === 'clean');
  if (clean.length === 0) return undefined;
  const logs = await Promise.all(
    clean.map(async (start) =>
      parseCompileLog(
        await readFile(start.logPath, 'utf8').catch(() => ''),
        basename(start.logPath),
      ),
    ),
  );
  return {
    starts: clean.length,
    graphsLoaded: logs.reduce((sum, log) => sum + log.cached.length, 0),
    graphsCompiled: logs.reduce((sum, log) => sum + log.compiled, 0),
  };
}

/** The cold start's figures, and the warm starts' use of the cache in the summary. */
export async function servedStartupFigures(
  spec: StartupSpec,
  cold: ColdStartSummary | undefined,
  starts: readonly ServerStartRecord[],
): Promise<StartupFigures> {
  // No clean run is a start of its own: the server's are server_startup.
  const figures = startupFigures(spec, [], cold);
  const warm = await serverStartsCache(starts);
  return { ...figures, summary: { ...figures.summary, ...(warm ? { serverStarts: warm } : {}) } };
}

/** The clean starts' logs, as the compile cache observer reads a run's (logPath only). */
export function serverStartLogs(starts: readonly ServerStartRecord[]): { logPath: string }[] {
  return starts
    .filter((start) => start.kind === 'clean')
    .map((start) => ({ logPath: start.logPath }));
}
