// A benchmark's server, started and stopped for real: a node server (and its worker) as a
// child process, readiness over a real loopback URL or a line of its output, and /proc
// checked afterwards for anything of its tree left running.

import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/types.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { createSandbox } from '../../src/runner/sandbox.js';
import { startServer, type ServerLaunch } from '../../src/runner/server.js';
import { tempDir } from '../support/offline-result.js';
import { isAlive, livePidsWith, whileRunning } from '../support/processes.js';
import { freePort } from '../support/ports.js';

const TOY = resolve(import.meta.dirname, '..', 'fixtures', 'server', 'toy-server.mjs');

let dir: string;
let pidsFile: string;
let port: number;

beforeEach(async () => {
  dir = await tempDir('perf-gate-server-');
  pidsFile = join(dir, 'pids');
  await writeFile(pidsFile, '');
  port = await freePort();
});

afterEach(async () => {
  for (const pid of await startedPids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

async function startedPids(): Promise<number[]> {
  const text = await readFile(pidsFile, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

/** The PIDs the toy server started that still run, after a moment for the kernel. */
async function stillRunning(): Promise<number[]> {
  const pids = await startedPids();
  await whileRunning(() => pids.some(isAlive));
  return pids.filter(isAlive);
}

function spec(overrides: Partial<ServerSpec> & { args?: string[] } = {}): ServerSpec {
  const { args = [], ...rest } = overrides;
  return {
    command: [process.execPath, TOY, '--port', String(port), '--pids', pidsFile, ...args],
    readiness: { url: `http://127.0.0.1:${port}/health` },
    // Generous: a busy host can take seconds to start node; no test here waits it out.
    startTimeoutSeconds: 60,
    stopSignal: 'SIGTERM',
    stopGraceSeconds: 5,
    env: {},
    ...rest,
  };
}

function launch(overrides: Partial<ServerLaunch> = {}): ServerLaunch {
  return {
    runner: createProcessRunner(),
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    logPath: join(dir, 'servers', 'server-1.clean.log'),
    ...overrides,
  };
}

async function health(): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/health`);
  return response.status;
}

describe('startServer', () => {
  it('waits for the readiness URL, times launch → ready, and stops the whole tree', async () => {
    const started = await startServer(spec({ args: ['--delay', '600'] }), launch());
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    const { server } = started;
    expect(server.startupMs).toBeGreaterThanOrEqual(600);
    expect(server.startupMs).toBeLessThan(5_000);
    expect(await health()).toBe(200);
    expect(await startedPids()).toHaveLength(2);
    expect(server.exited()).toBeUndefined();

    const stopped = await server.stop();
    expect(stopped.killed).toEqual([]);
    expect(stopped.end).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(await stillRunning()).toEqual([]);
    const log = await readFile(join(dir, 'servers', 'server-1.clean.log'), 'utf8');
    expect(log).toContain('toy server ready');
  });

  it('takes a shell command and a line of its output as readiness', async () => {
    const started = await startServer(
      spec({
        command: `exec "${process.execPath}" "${TOY}" --port ${port} --pids "${pidsFile}" --delay 400`,
        readiness: { log: 'toy server re+ady$' },
      }),
      launch(),
    );
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    expect(started.server.startupMs).toBeGreaterThanOrEqual(400);
    expect(started.server.tail().at(-1)).toBe('toy server ready');
    await started.server.stop();
    expect(await stillRunning()).toEqual([]);
  });

  it('fails with the exit code and the end of the log when the server exits before it is ready', async () => {
    const started = await startServer(spec({ args: ['--exit-before-ready', '3'] }), launch());
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.failure.error).toMatch(/^the server exited with code 3 before it was ready \(/);
    expect(started.failure.tail).toContain('RuntimeError: no Neuron devices found');
    expect(started.failure.logPath).toBe(join(dir, 'servers', 'server-1.clean.log'));
    // Its worker does not outlive it.
    expect(await stillRunning()).toEqual([]);
  });

  it('gives up after start-timeout, saying what the readiness URL last answered, and stops it', async () => {
    // A server never ready: without the timeout this would pass the test's own. The timeout
    // leaves a busy host seconds to start the toy server, which must answer 503 before it.
    const started = await startServer(
      spec({ args: ['--never-ready'], startTimeoutSeconds: 8 }),
      launch(),
    );
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.failure.error).toContain('was not ready within start-timeout (8 s)');
    expect(started.failure.error).toContain('last answered HTTP 503');
    expect(started.failure.tail.join('\n')).toContain('toy server');
    expect(await stillRunning()).toEqual([]);
  });

  it('names a readiness URL nothing listens on', async () => {
    const wrongPort = await freePort();
    const started = await startServer(
      spec({ readiness: { url: `http://127.0.0.1:${wrongPort}/health` }, startTimeoutSeconds: 1 }),
      launch(),
    );
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.failure.error).toContain(
      "nothing listens on that port (is it the server's --port?)",
    );
    expect(await stillRunning()).toEqual([]);
  });

  it('says when ready-log never matched', async () => {
    const started = await startServer(
      spec({ readiness: { log: 'Application startup complete' }, startTimeoutSeconds: 1 }),
      launch(),
    );
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.failure.error).toContain(
      'no line of its output matched ready-log /Application startup complete/',
    );
    expect(await stillRunning()).toEqual([]);
  });

  it('refuses to start when something already answers the readiness URL', async () => {
    const squatter: Server = createServer((_, response) => response.writeHead(200).end());
    await new Promise<void>((done) => squatter.listen(port, '127.0.0.1', done));
    try {
      const started = await startServer(spec(), launch());
      expect(started.ok).toBe(false);
      if (started.ok) return;
      expect(started.failure.error).toMatch(
        /answered HTTP 200 before the server was started: another process already listens on that port/,
      );
      expect(await startedPids()).toEqual([]);
    } finally {
      await new Promise((done) => squatter.close(done));
    }
  });

  it('says when the server command cannot be found', async () => {
    const started = await startServer(
      spec({ command: ['no-such-server-9f3', 'serve'], startTimeoutSeconds: 5 }),
      launch(),
    );
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.failure.error).toMatch(
      /^the server command could not be started: no-such-server-9f3/,
    );
  });

  it('says when the shell cannot find the server command', async () => {
    const started = await startServer(
      spec({ command: 'no-such-server-9f3 serve --port 1', startTimeoutSeconds: 5 }),
      launch(),
    );
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.failure.error).toMatch(
      /^the server exited with code 127 before it was ready \(.*\): the shell did not find its command/,
    );
    expect(started.failure.tail.join('\n')).toContain('no-such-server-9f3: command not found');
  });

  it('sends the configured stop signal first', async () => {
    const started = await startServer(spec({ stopSignal: 'SIGINT' }), launch());
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    const stopped = await started.server.stop();
    expect(stopped.end).toEqual({ code: 0, signal: null });
    expect(started.server.tail()).toContain('toy server stopping on SIGINT');
    expect(await stillRunning()).toEqual([]);
  });

  it('kills with SIGKILL what ignores the stop signal for the grace period, and says which', async () => {
    const started = await startServer(
      spec({ args: ['--ignore-term'], stopGraceSeconds: 0.5 }),
      launch(),
    );
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    const stopped = await started.server.stop();
    expect(stopped.killed.map((p) => p.pid).sort()).toEqual((await startedPids()).sort());
    expect(stopped.durationMs).toBeGreaterThanOrEqual(500);
    expect(await stillRunning()).toEqual([]);
  });

  it('stops a worker that left the process group (setsid)', async () => {
    const started = await startServer(spec({ args: ['--setsid-worker'] }), launch());
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    await started.server.stop();
    expect(await stillRunning()).toEqual([]);
  });
});

describe.each(['bubblewrap', 'unshare'] as const)('in the %s sandbox', (kind) => {
  it('is ready over loopback from outside, and nothing of its tree outlives the stop', async () => {
    const sandbox = await createSandbox({
      env: process.env,
      repositories: [],
      keep: [dir],
      prefer: kind,
    });
    expect(sandbox.kind).toBe(kind);
    // Inside its own PID namespace its PIDs are its own: a tag finds them from here.
    const tag = `tag-${process.pid}-${kind}-${port}`;
    try {
      const started = await startServer(
        spec({ args: ['--tag', tag, '--setsid-worker'] }),
        launch({ runner: createProcessRunner({ sandbox }) }),
      );
      expect(started.ok).toBe(true);
      if (!started.ok) return;
      expect(await health()).toBe(200);
      // The server and its worker, and the sandbox and wrapper whose command lines hold it.
      expect(livePidsWith(tag).length).toBeGreaterThanOrEqual(2);
      await started.server.stop();
      await whileRunning(() => livePidsWith(tag).length > 0);
      expect(livePidsWith(tag)).toEqual([]);
    } finally {
      await sandbox.dispose();
    }
  });
});
