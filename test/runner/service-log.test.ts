// A server's log file is kept within its cap, with a note where it was cut; the output
// still reaches the caller and the tail in full (issue 51: a server printing 400 MB before
// it was ready had all of it kept in the out-dir).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProcessRunner } from '../../src/runner/process.js';
import { SERVER_LOG_CAP_BYTES } from '../../src/runner/service.js';
import { tempDir } from '../support/offline-result.js';
import { until } from '../support/poll.js';

describe("a server's log file", () => {
  it('keeps the first bytes up to its cap, then a note; the tail still has the end', async () => {
    const dir = await tempDir('perf-gate-service-log-');
    const logPath = join(dir, 'server-1.clean.log');
    let streamed = 0;
    const service = await createProcessRunner().start({
      command: "head -c 5000 /dev/zero | tr '\\0' a; echo; echo last line; exec sleep 600",
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      logPath,
      onOutput: (chunk) => (streamed += chunk.length),
      tailLines: 3,
      logCapBytes: 1_000,
    });
    try {
      expect(await until(() => service.tail().includes('last line'))).toBe(true);
    } finally {
      await service.stop('SIGTERM', 5_000);
    }
    const text = await readFile(logPath, 'utf8');
    expect(
      text.startsWith('a'.repeat(1_000) + '\n[neuron-perf-gate] the log file is cut here'),
    ).toBe(true);
    expect(text).not.toContain('last line\n');
    expect(text.length).toBeLessThan(1_200);
    expect(streamed).toBeGreaterThan(5_000);
  });

  it('is capped at 100 MiB unless told otherwise', () => {
    expect(SERVER_LOG_CAP_BYTES).toBe(100 * 1024 * 1024);
  });
});
