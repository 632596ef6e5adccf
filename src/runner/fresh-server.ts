// A server of a benchmark started clean for work beside its runs (the agreement check's
// passes), its log beside the runs', and stopped after that work: each use is a start of
// its own, so two passes do not share one process's state.

import { join } from 'node:path';
import type { BenchmarkSpec, ServerSpec } from '../config/types.js';
import type { Logger } from '../log.js';
import { benchmarkPaths } from './benchmark.js';
import { ServerSession } from './server-session.js';
import type { ProcessRunner } from './types.js';

export interface FreshServerOptions {
  runner: ProcessRunner;
  log: Logger;
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** The gate's (or the side's) out dir: the log goes to runs/<benchmark>/<logName>. */
  outDir: string;
  /** "the base side's server", for the log and the error. */
  who: string;
  logName: string;
}

/** `use` while a fresh server of `spec` is up; throws when it does not become ready. */
export async function withFreshServer<T>(
  spec: BenchmarkSpec & { server: ServerSpec },
  purpose: string,
  options: FreshServerOptions,
  use: () => Promise<T>,
): Promise<T> {
  const { runsDir } = benchmarkPaths(options.outDir, spec.name);
  const session = new ServerSession(spec, {
    runner: options.runner,
    log: options.log,
    baseEnv: options.baseEnv,
    label: `${spec.name} (${options.who}, ${purpose})`,
    logPathOf: () => join(runsDir, options.logName),
    perRun: true,
  });
  try {
    const ready = await session.before({ index: 0, kind: 'clean' });
    if (!ready.ok) {
      throw new Error(`${options.who} did not start for ${purpose}: ${ready.failure.error}`);
    }
    return await use();
  } finally {
    await session.close();
  }
}
