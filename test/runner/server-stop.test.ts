// A server that grows while it is stopped, on a loaded host: whatever it forks after the
// stop took its list of processes must not outlive the stop (issue 51). The host is loaded
// by two CPU-bound processes the test starts, so that a scan of /proc is slow next to a fork.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startContained } from '../../src/runner/contained.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { createSandbox, NO_SANDBOX, type Sandbox } from '../../src/runner/sandbox.js';
import { startServer } from '../../src/runner/server.js';
import { tempDir } from '../support/offline-result.js';
import { until } from '../support/poll.js';
import { livePidsWith } from '../support/processes.js';

const FORKING = resolve(import.meta.dirname, '..', 'fixtures', 'server', 'forking-stop.sh');

const SHELL = '/bin/bash';

let dir: string;
let spinners: ChildProcess[] = [];

beforeEach(async () => {
  dir = await tempDir('perf-gate-server-stop-');
  spinners = [0, 1].map(() => spawn('/bin/sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
});

afterEach(() => {
  for (const spinner of spinners) spinner.kill('SIGKILL');
});

/**
 * Starts and stops the forking server; whether every process of it was gone within a
 * generous deadline after the stop. A hop lives a few milliseconds, too short for a look at
 * /proc to see it: each holds the write end of a FIFO, whose read end ends only when the
 * last holder is gone.
 */
async function goneAfterStop(sandbox: Sandbox, tag: string, hops = true): Promise<boolean> {
  return withForkingServer(tag, async (halt, fifo, allGone) => {
    const started = await startServer(
      {
        command: ['/bin/bash', FORKING, tag, halt, fifo, hops ? 'hop' : 'nohop'],
        readiness: { log: '^forking server ready$' },
        startTimeoutSeconds: 60,
        stopSignal: 'SIGTERM',
        stopGraceSeconds: 1,
        env: {},
      },
      {
        runner: createProcessRunner({ sandbox }),
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        logPath: join(dir, `${tag}.log`),
      },
    );
    expect(started.ok).toBe(true);
    if (!started.ok) return false;
    const stopped = await started.server.stop();
    // Killed by a signal (the sandbox's own exit status, 137 or 1, is not the server's).
    expect(stopped.end).toMatchObject({ code: null });
    return allGoneSoon(tag, allGone);
  });
}

/** The kernel reaps a killed tree in milliseconds at rest; a loaded host gets a minute. */
async function allGoneSoon(tag: string, allGone: () => boolean): Promise<boolean> {
  return until(() => allGone() && livePidsWith(tag).length === 0, 60_000);
}

/**
 * Runs `body` with the forking server's halt file, FIFO, and whether every holder of the
 * FIFO is gone; afterwards nothing of it is left whatever happened. The read end is opened
 * without blocking (the server's open for writing waits for it) and read on the event loop.
 */
async function withForkingServer<T>(
  tag: string,
  body: (halt: string, fifo: string, allGone: () => boolean) => Promise<T>,
): Promise<T> {
  const halt = join(dir, `halt-${tag}`);
  const fifo = join(dir, `fifo-${tag}`);
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  let reader: Socket | undefined;
  let allGone = false;
  // Read only once a writer has it open: before that, a read says end of file at once.
  const gone = (): boolean => {
    if (reader === undefined) {
      reader = new Socket({ fd, readable: true, writable: false });
      reader.on('end', () => (allGone = true)).on('close', () => (allGone = true));
      reader.resume();
    }
    return allGone;
  };
  try {
    return await body(halt, fifo, gone);
  } finally {
    // On failure the hops would run on: the halt file ends them, then the rest is killed.
    await writeFile(halt, '');
    for (const pid of livePidsWith(tag)) process.kill(pid, 'SIGKILL');
    if (reader) reader.destroy();
    else closeSync(fd);
  }
}

async function sandboxOf(kind: 'bubblewrap' | 'unshare'): Promise<Sandbox> {
  const sandbox = await createSandbox({
    env: process.env,
    repositories: [],
    keep: [dir],
    prefer: kind,
  });
  expect(sandbox.kind).toBe(kind);
  return sandbox;
}

describe('stopping a server that forks while it is stopped, on a loaded host', () => {
  // Without a namespace only scans of /proc find what left the group, and a worker that
  // forks its successor between two scans outruns them (docs/security.md): no hops here.
  it('without a sandbox: nothing of it is left', async () => {
    expect(await goneAfterStop(NO_SANDBOX, `forking-none-${process.pid}`, false)).toBe(true);
  }, 180_000);

  it.each(['bubblewrap', 'unshare'] as const)(
    'in the %s sandbox: its PID namespace goes at once, nothing of it is left',
    async (kind) => {
      const sandbox = await sandboxOf(kind);
      try {
        expect(await goneAfterStop(sandbox, `forking-${kind}-${process.pid}`)).toBe(true);
      } finally {
        await sandbox.dispose();
      }
    },
    180_000,
  );

  // The sandbox itself, stopped last, would take the namespace with it anyway: the stop's
  // own SIGKILL must already leave nothing, or the hops run on until then.
  it.each(['bubblewrap', 'unshare'] as const)(
    'in the %s sandbox: the SIGKILL after the grace period kills the whole namespace',
    async (kind) => {
      const sandbox = await sandboxOf(kind);
      const tag = `terminated-${kind}-${process.pid}`;
      try {
        const gone = await withForkingServer(tag, async (halt, fifo, allGone) => {
          const contained = startContained({
            argv: [SHELL, FORKING, tag, halt, fifo],
            cwd: dir,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
            sandbox,
            shell: SHELL,
          });
          let output = '';
          contained.stdout?.on('data', (chunk: Buffer) => (output += String(chunk)));
          expect(await until(() => output.includes('forking server ready'), 60_000)).toBe(true);
          await contained.terminate(1_000);
          const gone = await allGoneSoon(tag, allGone);
          await contained.finish(1_000);
          return gone;
        });
        expect(gone).toBe(true);
      } finally {
        await sandbox.dispose();
      }
    },
    180_000,
  );
});
