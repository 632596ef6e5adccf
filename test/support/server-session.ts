// A ServerSession over real processes for the runner's tests: the benchmark spec a served
// benchmark has, a server with the stop settings every such test uses, its logs in `dir`.
import { join } from 'node:path';
import type { BenchmarkSpec, ServerSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { ServerSession, type ServerSessionOptions } from '../../src/runner/server-session.js';

/** The server of `command`, ready by `readiness`, stopped by SIGTERM with 5 s of grace. */
export function toyServer(command: string, readiness: ServerSpec['readiness']): ServerSpec {
  return {
    command,
    readiness,
    startTimeoutSeconds: 30,
    stopSignal: 'SIGTERM',
    stopGraceSeconds: 5,
    env: {},
  };
}

/** A session of `server` run from `dir`; start N logs to dir/logs/server-N.log unless told. */
export function servedSession(
  dir: string,
  server: ServerSpec,
  options: Partial<Pick<ServerSessionOptions, 'baseEnv' | 'logPathOf'>> = {},
): ServerSession {
  const spec = {
    name: 'served',
    workingDirectory: dir,
    env: {},
    server,
  } as unknown as BenchmarkSpec & { server: ServerSpec };
  return new ServerSession(spec, {
    runner: createProcessRunner(),
    log: new MemoryLogger(),
    baseEnv: options.baseEnv ?? { PATH: process.env.PATH },
    label: 'served',
    logPathOf: options.logPathOf ?? ((number) => join(dir, 'logs', `server-${number}.log`)),
  });
}
