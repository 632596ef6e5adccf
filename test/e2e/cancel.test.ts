// A cancelled job: the runner sends SIGTERM to the gate while a benchmark runs. The
// benchmark's whole process tree must go with it, or it keeps the NeuronCores busy.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { CLI, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { isAlive } from '../support/processes.js';

async function waitFor<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(50);
  }
  return undefined;
}

it.each(['SIGTERM', 'SIGINT'] as const)(
  'kills the running benchmark and its children on %s',
  async (signal) => {
    const dir = await tempDir('perf-gate-cancel-');
    await writeFile(
      join(dir, 'perf-gate.yml'),
      `benchmarks:\n  - name: stuck\n    command: 'sleep 300 & echo $! > child.pid; echo $$ > shell.pid; wait'\n    profile: false\n`,
    );
    const gate = spawn(process.execPath, [CLI, 'run', '--config', 'perf-gate.yml', '--quiet'], {
      cwd: dir,
      env: simulatorEnv(),
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((done) => gate.once('exit', (code) => done(code)));
    const readPid = async (name: string) => {
      try {
        const text = (await readFile(join(dir, name), 'utf8')).trim();
        return text ? Number(text) : undefined;
      } catch {
        return undefined;
      }
    };
    const shell = await waitFor(() => readPid('shell.pid'), 10_000);
    const child = await waitFor(() => readPid('child.pid'), 10_000);
    expect(shell && isAlive(shell)).toBe(true);
    expect(child && isAlive(child)).toBe(true);

    gate.kill(signal);
    expect(await exited).toBe(signal === 'SIGTERM' ? 143 : 130);
    // Both die from the same signal but are reaped at their own pace: wait for each the
    // same way rather than checking the shell at the instant the child is gone.
    const dead = (pid: number) => waitFor(async () => (isAlive(pid) ? undefined : true), 5_000);
    expect(await dead(child!), "the benchmark's child outlived the gate").toBe(true);
    expect(await dead(shell!), "the benchmark's shell outlived the gate").toBe(true);
  },
  30_000,
);
