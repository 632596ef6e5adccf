// Readiness bounds no other test pinned (hand mutants of the runner, issue 51): how often the
// readiness URL is probed, and a port that already answers with an error is refused too.

import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/types.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { probeInterval } from '../../src/runner/readiness.js';
import { startServer } from '../../src/runner/server.js';
import { tempDir } from '../support/offline-result.js';
import { freePort } from '../support/ports.js';

describe('probeInterval', () => {
  it('probes every 50 ms at first, a twentieth of the wait later, at most every second', () => {
    expect(probeInterval(0)).toBe(50);
    expect(probeInterval(10_000)).toBe(500);
    expect(probeInterval(60_000)).toBe(1_000);
    expect(probeInterval(3_600_000)).toBe(1_000);
  });
});

describe('a readiness URL that answers before the server is started', () => {
  it('is refused when it answers with an error too: another process holds the port', async () => {
    const dir = await tempDir('perf-gate-port-');
    const port = await freePort();
    const squatter: Server = createServer((_, response) => response.writeHead(503).end());
    await new Promise<void>((done) => squatter.listen(port, '127.0.0.1', done));
    const marker = join(dir, 'started');
    const spec: ServerSpec = {
      command: `touch '${marker}'; sleep 30`,
      readiness: { url: `http://127.0.0.1:${port}/health` },
      // Refused before it is launched; a mutant that launches it fails at this timeout.
      startTimeoutSeconds: 5,
      stopSignal: 'SIGTERM',
      stopGraceSeconds: 5,
      env: {},
    };
    try {
      const started = await startServer(spec, {
        runner: createProcessRunner(),
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        logPath: join(dir, 'server.log'),
      });
      if (started.ok) await started.server.stop();
      expect(started.ok).toBe(false);
      if (started.ok) return;
      expect(started.failure.error).toMatch(
        /answered HTTP 503 before the server was started: another process already listens/,
      );
    } finally {
      await new Promise((done) => squatter.close(done));
    }
  });
});
