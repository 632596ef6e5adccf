// A cancelled job's Ctrl-C, then an impatient second one while the gate cleans up: the
// gate must still finish its exit handlers (worktrees, benchmark process groups) and exit
// 130. A real child process that installs the gate's signal handling (src/signals.ts,
// loaded by Node's type stripping) and an exit handler that takes a while.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { until } from '../support/poll.js';

const SIGNALS = pathToFileURL(join(import.meta.dirname, '../../src/signals.ts')).href;

/**
 * The gate's signal handling and an exit handler standing for its cleanup: the handler says
 * `cleaning` on stdout, then works synchronously (as removing worktrees does) until the file
 * `go` exists, and writes `marker`.
 */
function child(marker: string, go: string) {
  const script = `
    import { existsSync, writeFileSync } from 'node:fs';
    const { exitOnTerminationSignals } = await import(${JSON.stringify(SIGNALS)});
    exitOnTerminationSignals();
    process.on('exit', () => {
      writeFileSync(1, 'cleaning\\n');
      // Bounded, so that a broken test cannot leave it spinning.
      const until = performance.now() + 60_000;
      while (!existsSync(${JSON.stringify(go)}) && performance.now() < until) {}
      writeFileSync(${JSON.stringify(marker)}, 'cleaned');
    });
    process.stdout.write('ready\\n');
    setInterval(() => {}, 1000);
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('termination signals', () => {
  it('exit 130 after the cleanup, however many Ctrl-C arrive during it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'signals-'));
    const marker = join(dir, 'cleaned');
    const go = join(dir, 'go');
    const process_ = child(marker, go);
    let out = '';
    process_.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    expect(await until(() => out.includes('ready'))).toBe(true);
    process_.kill('SIGINT');
    // Two more while the cleanup runs (it waits for `go`, however busy the host is).
    expect(await until(() => out.includes('cleaning'))).toBe(true);
    process_.kill('SIGINT');
    process_.kill('SIGTERM');
    writeFileSync(go, '');
    const [code, signal] = await new Promise<[number | null, string | null]>((done) =>
      process_.on('exit', (c, s) => done([c, s])),
    );
    expect(signal).toBeNull();
    expect(code).toBe(130);
    expect(existsSync(marker) && readFileSync(marker, 'utf8')).toBe('cleaned');
  });
});
