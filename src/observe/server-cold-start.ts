// The cold start of a benchmark's server (`startup: { cold: true }` beside `server:`): one
// more start of the server before the measured runs, while its port is still free, on an
// empty Neuron compile cache (onEmptyCompileCache: a fresh folder as NEURON_COMPILE_CACHE_URL,
// laid over the server's own env; the user's cache hidden where the sandbox can), timed from
// launch to ready as its clean starts are, then stopped. Its log: servers/<name>/server-cold.log.

import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BenchmarkSpec, ServerSpec } from '../config/types.js';
import { refuseLinksBelow } from '../fs/no-links.js';
import { serverLogDir } from '../runner/served-benchmarks.js';
import { ServerSession } from '../runner/server-session.js';
import { onEmptyCompileCache, type ColdStartOptions, type ColdStartResult } from './cold-start.js';

/** The group's server as the benchmark sees it (pipeline.ts): `first` is the group's first benchmark. */
export interface ServedBy {
  session: ServerSession;
  first: boolean;
}

/** Whether the benchmark takes a server cold start now: asked for, the group's first, the server not yet started. */
export function takesServerColdStart(
  spec: BenchmarkSpec,
  server: ServedBy | undefined,
): spec is BenchmarkSpec & { server: ServerSpec } {
  return (
    spec.startup?.cold === true &&
    spec.server !== undefined &&
    server?.first === true &&
    server.session.starts.length === 0
  );
}

/** The server's cold start; never throws for what the server does (the summary's note says). */
export async function serverColdStart(
  spec: BenchmarkSpec & { server: ServerSpec },
  options: ColdStartOptions,
): Promise<ColdStartResult> {
  const logDir = serverLogDir(options.outDir, spec);
  // Before the first run nothing made the out dir yet: made here, without a link on the way.
  await refuseLinksBelow(dirname(options.outDir), logDir, 'the server log folder');
  await mkdir(logDir, { recursive: true });
  const logPath = join(logDir, 'server-cold.log');
  const stopWarnings: string[] = [];
  const result = await onEmptyCompileCache(options, 'the server', async (runner, env) => {
    const server = { ...spec.server, env: { ...spec.server.env, ...env } };
    const session = new ServerSession(
      { ...spec, server },
      {
        runner,
        log: options.log,
        baseEnv: options.baseEnv,
        label: `${spec.sweep?.name ?? spec.name} (cold start, an empty Neuron compile cache)`,
        logPathOf: () => logPath,
        perRun: true,
      },
    );
    try {
      const ready = await session.before({ index: 0, kind: 'clean' });
      if (!ready.ok) {
        return { ok: false, logPath, note: `the cold start failed: ${ready.failure.error}` };
      }
      return {
        ok: true,
        logPath,
        ...(ready.startupMs !== undefined ? { readyMs: ready.startupMs } : {}),
      };
    } finally {
      await session.close();
      stopWarnings.push(...session.warnings.map((w) => `cold start: ${w}`));
    }
  });
  return { ...result, warnings: [...result.warnings, ...stopWarnings] };
}
