// A cancelled job: the runner sends SIGTERM to the gate while a benchmark runs. The
// benchmark's whole process tree must go with it, or it keeps the NeuronCores busy.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CLI, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { livePidsWith } from '../support/processes.js';

async function waitFor<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(50);
  }
  return undefined;
}

describe.each(['auto', 'none'] as const)('isolation %s', (isolation) => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'kills the running benchmark and its children on %s',
    async (signal) => {
      const dir = await tempDir('perf-gate-cancel-');
      // Tags in the command lines: in a sandbox the benchmark's PIDs are its own.
      const tag = `${process.pid}${signal === 'SIGTERM' ? 1 : 2}${isolation === 'auto' ? 1 : 2}`;
      await writeFile(
        join(dir, 'perf-gate.yml'),
        `benchmarks:\n  - name: stuck\n    command: 'sleep 300.${tag} & bash -c "echo started; sleep 301.${tag}" > started.txt; wait'\n    profile: false\n`,
      );
      // Its own TMPDIR: the sandbox's folders must not outlive the gate either.
      const tmp = await tempDir('perf-gate-cancel-tmp-');
      const gate = spawn(
        process.execPath,
        [CLI, 'run', '--config', 'perf-gate.yml', '--quiet', '--isolation', isolation],
        { cwd: dir, env: simulatorEnv({ TMPDIR: tmp }), stdio: 'ignore' },
      );
      const exited = new Promise<number | null>((done) => gate.once('exit', (code) => done(code)));
      const running = await waitFor(async () => {
        const pids = [...livePidsWith(`sleep 300.${tag}`), ...livePidsWith(`sleep 301.${tag}`)];
        return pids.length >= 2 ? pids : undefined;
      }, 10_000);
      expect(running?.length, 'the benchmark and its child run').toBeGreaterThanOrEqual(2);

      gate.kill(signal);
      expect(await exited).toBe(signal === 'SIGTERM' ? 143 : 130);
      const gone = await waitFor(async () => {
        const left = [...livePidsWith(`sleep 300.${tag}`), ...livePidsWith(`sleep 301.${tag}`)];
        return left.length === 0 ? true : undefined;
      }, 5_000);
      expect(gone, "the benchmark's processes outlived the gate").toBe(true);
      expect(readdirSync(tmp).filter((name) => name.startsWith('perf-gate-'))).toEqual([]);
    },
    30_000,
  );
});

describe.each(['bubblewrap', 'unshare'] as const)(
  'a gate killed with SIGKILL (%s)',
  (isolation) => {
    it('takes its sandbox and the benchmark with it', async () => {
      // No handler runs on SIGKILL: only the sandbox's own tie to the gate stops the benchmark
      // (bwrap --die-with-parent; setpriv --pdeathsig KILL before unshare --kill-child).
      const dir = await tempDir('perf-gate-cancel-kill-');
      const tag = `${process.pid}${isolation === 'bubblewrap' ? 5 : 6}`;
      await writeFile(
        join(dir, 'perf-gate.yml'),
        `benchmarks:\n  - name: stuck\n    command: 'setsid sleep 302.${tag} & sleep 303.${tag}'\n    profile: false\n`,
      );
      const gate = spawn(
        process.execPath,
        [CLI, 'run', '--config', 'perf-gate.yml', '--quiet', '--isolation', isolation],
        { cwd: dir, env: simulatorEnv(), stdio: 'ignore' },
      );
      const tagged = () => [
        ...livePidsWith(`sleep 302.${tag}`),
        ...livePidsWith(`sleep 303.${tag}`),
      ];
      const running = await waitFor(async () => (tagged().length >= 2 ? true : undefined), 10_000);
      expect(running, 'the benchmark runs').toBe(true);
      gate.kill('SIGKILL');
      const gone = await waitFor(async () => (tagged().length === 0 ? true : undefined), 5_000);
      expect(gone, `left running: ${tagged().join(', ')}`).toBe(true);
    }, 30_000);
  },
);
