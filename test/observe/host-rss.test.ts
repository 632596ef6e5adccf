// The host RSS sampler against real processes: a tree of two that each hold memory, found
// by the variable only they carry.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { startHostRssSampler, type HostRssSampler } from '../../src/observe/host-rss.js';
import { until } from '../support/poll.js';

const MIB = 1024 * 1024;
/**
 * Holds `mib` MiB resident until killed; with `child`, starts one more that does the same.
 * Each writes its pid into $HOLD_DIR once it holds the memory.
 */
const HOLDER = `
const held = Buffer.alloc(Number(process.argv[1]) * ${MIB}, 1);
if (process.argv[2] === 'child') require('node:child_process').spawn(process.execPath, ['-e', process.argv[3], process.argv[1]], { stdio: 'ignore' });
require('node:fs').writeFileSync(require('node:path').join(process.env.HOLD_DIR, String(process.pid)), '');
setInterval(() => held.length, 60_000);
`;

describe('startHostRssSampler', () => {
  it('sums the resident memory of every process of the run, and no other', async () => {
    const value = `run-${process.pid}-${performance.timeOrigin}`;
    const holding = await mkdtemp(join(tmpdir(), 'host-rss-'));
    const env = { ...process.env, HOLD_DIR: holding };
    const child = spawn(process.execPath, ['-e', HOLDER, '64', 'child', HOLDER], {
      env: { ...env, PERF_GATE_OUTPUT: value },
      stdio: 'ignore',
    });
    const other = spawn(process.execPath, ['-e', HOLDER, '64'], {
      env: { ...env, PERF_GATE_OUTPUT: `${value}-other` },
      stdio: 'ignore',
    });
    // All three hold their memory (however long a busy host takes), then the sampler's
    // period is stepped by hand: five periods, five samples more, whatever the clock does.
    let result: ReturnType<HostRssSampler['stop']>;
    try {
      expect(await until(async () => (await readdir(holding)).length === 3)).toBe(true);
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      const sampler = startHostRssSampler('PERF_GATE_OUTPUT', value, 100);
      vi.advanceTimersByTime(5 * 100);
      result = sampler.stop();
    } finally {
      vi.useRealTimers();
      for (const pid of await readdir(holding)) process.kill(Number(pid), 'SIGKILL');
      await rm(holding, { recursive: true, force: true });
    }
    expect(result.samples).toBe(6);
    // Two processes of 64 MiB each (and Node's own), not the third of another run.
    expect(result.peakBytes).toBeGreaterThan(2 * 64 * MIB);
    expect(result.peakBytes).toBeLessThan(3 * 64 * MIB + 3 * 80 * MIB);
    // Their pids, for neuron-monitor's runtimes (run-runtimes.ts): the run's, not the other's.
    expect(result.pids.here).toContain(child.pid);
    expect(result.pids.here).toHaveLength(2);
    expect(result.pids.here).not.toContain(other.pid);
    // Not in a PID namespace of their own here: no pid inside one.
    expect(result.pids.inner).toEqual([]);
  });

  it('measures nothing when no process of the run is seen', () => {
    const sampler = startHostRssSampler('PERF_GATE_OUTPUT', `nobody-${process.pid}`, 100);
    expect(sampler.stop()).toEqual({ samples: 0, pids: { here: [], inner: [] } });
  });
});
