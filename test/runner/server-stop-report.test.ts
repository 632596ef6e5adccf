// What startServer asks of the service it started and what it reports of the stop, with a
// service that records its calls (no process): the signal and grace period the config
// chose, and a process that not even SIGKILL stopped is reported as surviving, never as
// killed. Hand mutants of the runner (issue 51) survived the real-process tests here.

import { describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/types.js';
import type { CommandEnd } from '../../src/runner/contained.js';
import type { LeftoverProcess } from '../../src/runner/leftovers.js';
import { startServer } from '../../src/runner/server.js';
import type { ServiceProcess } from '../../src/runner/service.js';
import { NO_SANDBOX } from '../../src/runner/sandbox.js';
import type { ProcessRunner } from '../../src/runner/types.js';

/** A service that prints its ready line at once and records how it is stopped. */
function recordingRunner(stopped: LeftoverProcess[]) {
  const stops: { signal: NodeJS.Signals; graceMs: number }[] = [];
  let end!: (value: CommandEnd) => void;
  const service: ServiceProcess = {
    ended: new Promise((resolve) => (end = resolve)),
    tail: () => [],
    stop: (signal, graceMs) => {
      stops.push({ signal, graceMs });
      end({ code: null, signal });
      return Promise.resolve({ end: { code: null, signal }, stopped, durationMs: 7 });
    },
  };
  const runner = {
    sandbox: NO_SANDBOX,
    start: (request: { onOutput: (chunk: string) => void }) => {
      queueMicrotask(() => request.onOutput('Application startup complete\n'));
      return Promise.resolve(service);
    },
  } as unknown as ProcessRunner;
  return { runner, stops };
}

const spec: ServerSpec = {
  command: 'serve',
  readiness: { log: 'Application startup complete' },
  startTimeoutSeconds: 30,
  stopSignal: 'SIGINT',
  stopGraceSeconds: 4,
  env: {},
};

describe('stopping a started server', () => {
  it('sends the configured signal with the grace period in ms, and tells killed from survived', async () => {
    const tree: LeftoverProcess[] = [
      { pid: 11, command: 'serve', escaped: false },
      { pid: 12, command: 'worker', escaped: false, killed: true },
      { pid: 13, command: 'stuck', escaped: true, killed: true, survived: true },
    ];
    const { runner, stops } = recordingRunner(tree);
    const started = await startServer(spec, { runner, cwd: '/', env: {}, logPath: '/dev/null' });
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    const stopped = await started.server.stop();
    expect(stops).toEqual([{ signal: 'SIGINT', graceMs: 4_000 }]);
    expect(stopped.killed.map((p) => p.pid)).toEqual([12]);
    expect(stopped.survived.map((p) => p.pid)).toEqual([13]);
  });
});
