// The real ProcessRunner against real bash child processes.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProcessRunner } from '../../src/runner/process.js';
import type { ProcessRequest } from '../../src/runner/types.js';
import { isAlive } from '../support/processes.js';

let root: string;
const leftovers: number[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'process-runner-'));
});

afterEach(async () => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rm(root, { recursive: true, force: true });
});

function request(command: string, overrides: Partial<ProcessRequest> = {}): ProcessRequest {
  return {
    command,
    cwd: root,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 30_000,
    logPath: join(root, 'logs', 'nested', 'run.log'),
    onOutput: () => {},
    tailLines: 50,
    ...overrides,
  };
}

async function readPid(path: string): Promise<number> {
  const pid = Number((await readFile(path, 'utf8')).trim());
  expect(Number.isInteger(pid) && pid > 1).toBe(true);
  return pid;
}

describe('createProcessRunner', () => {
  it('runs bash -c in cwd with exactly the given environment', async () => {
    const runner = createProcessRunner();
    const result = await runner.run(
      request('echo "cwd=$(pwd)"; env | sort > env.txt', {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ONLY_THIS: 'yes' },
      }),
    );
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, tail: [`cwd=${root}`] });
    expect(result.spawnError).toBeUndefined();
    const names = (await readFile(join(root, 'env.txt'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.slice(0, line.indexOf('=')));
    // bash itself adds PWD, SHLVL and _, the runner its marker (leftovers.ts); nothing of
    // the parent's environment leaks in.
    expect(names.filter((name) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(name))).toEqual([
      'ONLY_THIS',
      'PATH',
      'PERF_GATE_PROCESS_MARKER',
    ]);
  });

  it('streams stdout and stderr to onOutput, the log file and the tail', async () => {
    const chunks: string[] = [];
    const result = await createProcessRunner().run(
      request('echo out-1; echo err-1 >&2; sleep 0.1; echo out-2; printf "no newline"', {
        onOutput: (chunk) => chunks.push(chunk),
      }),
    );
    const streamed = chunks.join('');
    for (const line of ['out-1', 'err-1', 'out-2', 'no newline']) {
      expect(streamed).toContain(line);
      expect(result.tail).toContain(line);
    }
    expect(result.tail.at(-1)).toBe('no newline');
    const log = await readFile(join(root, 'logs', 'nested', 'run.log'), 'utf8');
    expect(log).toHaveLength(streamed.length);
    expect(log.split('\n').sort()).toEqual(streamed.split('\n').sort());
  });

  it('decodes a UTF-8 character split between two chunks', async () => {
    const result = await createProcessRunner().run(
      request(String.raw`printf 'caf\xc3'; sleep 0.2; printf '\xa9 ok\n'`),
    );
    expect(result.tail).toEqual(['café ok']);
  });

  it('reports the exit code and the duration', async () => {
    const result = await createProcessRunner().run(request('sleep 0.3; exit 7'));
    expect(result.exitCode).toBe(7);
    expect(result.signal).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('reports a signal that killed the command', async () => {
    const result = await createProcessRunner().run(request('echo dying; kill -KILL $$'));
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false });
    expect(result.tail).toEqual(['dying']);
  });

  it('returns a spawn error instead of throwing when cwd is missing', async () => {
    const missing = join(root, 'does', 'not', 'exist');
    const result = await createProcessRunner().run(request('echo never', { cwd: missing }));
    expect(result.exitCode).toBeNull();
    expect(result.timedOut).toBe(false);
    expect(result.spawnError).toBe(`the working directory ${missing} does not exist`);
  });

  it('returns a spawn error when cwd is a file', async () => {
    const file = join(root, 'file.txt');
    await writeFile(file, 'x');
    const result = await createProcessRunner().run(request('echo never', { cwd: file }));
    expect(result.spawnError).toBe(`the working directory ${file} is not a directory`);
  });

  it('returns a spawn error when the shell cannot be started', async () => {
    const shell = join(root, 'no-such-bash');
    const result = await createProcessRunner({ shell }).run(request('echo never'));
    expect(result.spawnError).toContain(`could not start ${shell}`);
    expect(result.spawnError).toContain('ENOENT');
  });

  it('on timeout kills the whole process group, grandchildren included', async () => {
    const result = await createProcessRunner({ killGraceMs: 2_000 }).run(
      // A timeout long enough for a busy host to get to `echo started`.
      request('sleep 300 & echo $! > grandchild.pid; echo started; sleep 300', {
        timeoutMs: 2_000,
      }),
    );
    const grandchild = await readPid(join(root, 'grandchild.pid'));
    leftovers.push(grandchild);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(result.tail).toEqual(['started']);
    expect(isAlive(grandchild)).toBe(false);
    // No bound on the time taken: waiting the 300 s out would pass the test's timeout.
  });

  it('on timeout sends SIGKILL after the grace time to what ignored SIGTERM', async () => {
    // The subshell and its sleep ignore SIGTERM; only SIGKILL stops them.
    const command = [
      "(trap '' TERM; sleep 300) &",
      'echo $! > stubborn.pid',
      "trap '' TERM",
      'sleep 300',
    ].join('\n');
    const started = performance.now();
    const result = await createProcessRunner({ killGraceMs: 400 }).run(
      request(command, { timeoutMs: 2_000 }),
    );
    const elapsed = performance.now() - started;
    const stubborn = await readPid(join(root, 'stubborn.pid'));
    leftovers.push(stubborn);
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(isAlive(stubborn)).toBe(false);
    // The grace time was given first (a timer never fires early, so a busy host cannot
    // break this bound); no upper one: the 300 s would pass the test's timeout.
    expect(elapsed).toBeGreaterThanOrEqual(2_350);
  });

  it('stops what the command left running, in its group or escaped with setsid, and names it', async () => {
    const command = [
      'sleep 1000 & echo $! > daemon.pid',
      'setsid sleep 1001 & echo $! > escaped.pid',
      // Ignores SIGTERM: only the SIGKILL after the grace time stops it.
      'setsid bash -c "trap \'\' TERM; echo \\$\\$ > stubborn.pid; sleep 1002 & wait" &',
      'while [ ! -s stubborn.pid ]; do sleep 0.05; done',
      'echo main done',
    ].join('\n');
    const result = await createProcessRunner({ killGraceMs: 500 }).run(request(command));
    const daemon = await readPid(join(root, 'daemon.pid'));
    const escaped = await readPid(join(root, 'escaped.pid'));
    const stubborn = await readPid(join(root, 'stubborn.pid'));
    leftovers.push(daemon, escaped, stubborn);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, tail: ['main done'] });
    for (const pid of [daemon, escaped, stubborn]) expect(isAlive(pid), String(pid)).toBe(false);
    const found = result.leftovers ?? [];
    expect(found).toContainEqual({ pid: daemon, command: 'sleep 1000', escaped: false });
    expect(found).toContainEqual({ pid: escaped, command: 'sleep 1001', escaped: true });
    expect(found.find((p) => p.pid === stubborn)).toMatchObject({ escaped: true });
    // The stubborn shell's own child escaped with it.
    expect(found.some((p) => p.command === 'sleep 1002' && p.escaped)).toBe(true);
  });

  it('stops what a timed-out command had sent out of its group', async () => {
    const result = await createProcessRunner({ killGraceMs: 500 }).run(
      request('setsid sleep 1003 & echo $! > escaped.pid; sleep 300', { timeoutMs: 2_000 }),
    );
    const escaped = await readPid(join(root, 'escaped.pid'));
    leftovers.push(escaped);
    expect(result.timedOut).toBe(true);
    expect(isAlive(escaped)).toBe(false);
    expect(result.leftovers).toEqual([{ pid: escaped, command: 'sleep 1003', escaped: true }]);
  });

  it('does not hang when a background process keeps the output open after exit', async () => {
    const chunks: string[] = [];
    // Out of the group and without the marker: only a cgroup would find this one. The
    // command exits only once the daemon is `sleep` (setsid and env -i done): before that
    // it is still a child in the group with the marker, which the runner rightly stops,
    // closing the output, as happened on a loaded machine.
    const command = [
      'setsid env -i sleep 300 & echo $! > daemon.pid',
      'while [ "$(cat /proc/$!/comm)" != sleep ]; do sleep 0.01; done',
      'echo main done; exit 0',
    ].join('\n');
    const result = await createProcessRunner({ drainMs: 300 }).run(
      request(command, { onOutput: (chunk) => chunks.push(chunk) }),
    );
    const daemon = await readPid(join(root, 'daemon.pid'));
    leftovers.push(daemon);
    // Not hung: the run is over while the daemon still holds the output, read for 300 ms.
    expect(isAlive(daemon)).toBe(true);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.tail[0]).toBe('main done');
    expect(chunks.join('')).toContain('still holds its output open; stopped reading after 300 ms');
  });

  it('keeps running and says so when the log file cannot be written', async () => {
    // /dev/full accepts the open and fails every write with ENOSPC, like a full disk.
    const result = await createProcessRunner().run(
      request('for i in $(seq 1 5); do echo "step $i"; sleep 0.05; done', {
        logPath: '/dev/full',
      }),
    );
    expect(result.exitCode).toBe(0);
    expect(result.tail).toContain('step 5');
    expect(result.tail.join('\n')).toContain('writing the log file failed');
    expect(result.tail.join('\n')).toContain('ENOSPC');
  });

  it('appends to an existing log file', async () => {
    const logPath = join(root, 'existing.log');
    await mkdir(root, { recursive: true });
    await writeFile(logPath, 'header\n');
    await createProcessRunner().run(request('echo body', { logPath }));
    expect(await readFile(logPath, 'utf8')).toBe('header\nbody\n');
  });
});
