// The host RSS sampler against real processes: a tree of two that each hold memory, found
// by the variable only they carry.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startHostRssSampler } from '../../src/observe/host-rss.js';

const MIB = 1024 * 1024;
/** Holds `mib` MiB resident for a while; with `child`, starts one more that does the same. */
const HOLDER = `
const held = Buffer.alloc(Number(process.argv[1]) * ${MIB}, 1);
if (process.argv[2] === 'child') require('node:child_process').spawn(process.execPath, ['-e', process.argv[3], process.argv[1]], { stdio: 'ignore' });
setTimeout(() => held.length, 1500);
`;

describe('startHostRssSampler', () => {
  it('sums the resident memory of every process of the run, and no other', async () => {
    const value = `run-${process.pid}-${Date.now()}`;
    const child = spawn(process.execPath, ['-e', HOLDER, '64', 'child', HOLDER], {
      env: { ...process.env, PERF_GATE_OUTPUT: value },
      stdio: 'ignore',
    });
    const other = spawn(process.execPath, ['-e', HOLDER, '64'], {
      env: { ...process.env, PERF_GATE_OUTPUT: `${value}-other` },
      stdio: 'ignore',
    });
    const sampler = startHostRssSampler('PERF_GATE_OUTPUT', value, 100);
    await new Promise((done) => child.once('exit', done));
    await sleep(200);
    const result = sampler.stop();
    other.kill();
    expect(result.samples).toBeGreaterThan(3);
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
