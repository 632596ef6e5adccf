// A cancelled job's Ctrl-C, then an impatient second one while the gate cleans up: the
// gate must still finish its exit handlers (worktrees, benchmark process groups) and exit
// 130. A real child process that installs the gate's signal handling (src/signals.ts,
// loaded by Node's type stripping) and an exit handler that takes a while.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const SIGNALS = pathToFileURL(join(import.meta.dirname, '../../src/signals.ts')).href;

function child(marker: string) {
  const script = `
    import { writeFileSync } from 'node:fs';
    const { exitOnTerminationSignals } = await import(${JSON.stringify(SIGNALS)});
    exitOnTerminationSignals();
    process.on('exit', () => {
      // The cleanup: 400 ms of synchronous work, as removing worktrees is.
      const until = Date.now() + 400;
      while (Date.now() < until) {}
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
    const marker = join(mkdtempSync(join(tmpdir(), 'signals-')), 'cleaned');
    const process_ = child(marker);
    await new Promise<void>((ready) => process_.stdout.once('data', () => ready()));
    process_.kill('SIGINT');
    // Well inside the 400 ms cleanup.
    setTimeout(() => process_.kill('SIGINT'), 100);
    setTimeout(() => process_.kill('SIGTERM'), 200);
    const [code, signal] = await new Promise<[number | null, string | null]>((done) =>
      process_.on('exit', (c, s) => done([c, s])),
    );
    expect(signal).toBeNull();
    expect(code).toBe(130);
    expect(existsSync(marker) && readFileSync(marker, 'utf8')).toBe('cleaned');
  });
});
