// The server session's choices between runs, with a real toy server: a server that died
// between two runs is started again (not reused), and a profiled start that failed costs
// only the profile, never the clean runs after it (issue 51: no test pinned either).

import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerSession } from '../../src/runner/server-session.js';
import { tempDir } from '../support/offline-result.js';
import { until } from '../support/poll.js';
import { freePort } from '../support/ports.js';
import { servedSession, toyServer } from '../support/server-session.js';

const TOY = resolve(import.meta.dirname, '..', 'fixtures', 'server', 'toy-server.mjs');

let dir: string;
let port: number;
let session: ServerSession | undefined;

beforeEach(async () => {
  dir = await tempDir('perf-gate-session-');
  port = await freePort();
});

afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** A session for a server started by `command` (a shell command), ready on /health. */
function sessionFor(command: string): ServerSession {
  const server = toyServer(command, { url: `http://127.0.0.1:${port}/health` });
  session = servedSession(dir, server, {
    logPathOf: (number, run) => join(dir, `server-${number}.${run.kind}.log`),
  });
  return session;
}

const toy = (...args: string[]) =>
  [process.execPath, TOY, '--port', String(port), ...args].map((a) => `'${a}'`).join(' ');

describe('ServerSession between runs', () => {
  it('starts the server again when it died between two runs, instead of reusing it', async () => {
    const served = sessionFor(toy('--exit-after-requests', '0'));
    expect(await served.before({ index: 1, kind: 'clean' })).toMatchObject({ ok: true });
    // Its first request crashes it (exit 7).
    await fetch(`http://127.0.0.1:${port}/work`).catch(() => undefined);
    expect(await until(() => served.duringRun()?.exited !== undefined)).toBe(true);
    await served.after({ index: 1, kind: 'clean' });
    const second = await served.before({ index: 2, kind: 'clean' });
    expect(second).toMatchObject({ ok: true });
    expect(served.starts.map((s) => s.run)).toEqual([1, 2]);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  }, 120_000);

  it('lets the clean runs after a failed profiled start start their own server', async () => {
    // Fails only with the profiler's variables set (the profiled start).
    const served = sessionFor(
      `if [ -n "$NEURON_RT_INSPECT_ENABLE" ]; then echo profiled start fails; exit 3; fi; exec ${toy()}`,
    );
    const profiled = await served.before({
      index: 1,
      kind: 'profiled',
      profileDir: join(dir, 'profile'),
    });
    expect(profiled).toMatchObject({ ok: false });
    const clean = await served.before({ index: 2, kind: 'clean' });
    expect(clean).toMatchObject({ ok: true });
    expect(served.starts.map((s) => s.kind)).toEqual(['profiled', 'clean']);
  }, 120_000);
});
