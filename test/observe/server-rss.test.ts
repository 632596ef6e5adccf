// The server's host memory against real processes: the simulator's `vllm serve`, which holds
// its weights and sequence slots in host memory (serve-host-memory.mjs), found by the marker
// in its environment; two servers at once, each counted apart; and a server's peak from
// before the run (its VmHWM) not taken for the run's.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startHostRssSampler } from '../../src/observe/host-rss.js';
import { watchServerRss } from '../../src/observe/server-rss.js';
import { SERVER_VARIABLE, type ProcessMarker } from '../../src/runner/server-marker.js';
import { until } from '../support/poll.js';
import { freePort } from '../support/ports.js';
import { BIN, baseEnv } from '../simulator/helpers.js';
// @ts-expect-error: the simulator's JavaScript module has no types
import { hostMemoryPlan } from '../../examples/simulated-inf2/lib/serve-host-memory.mjs';

const MIB = 1024 * 1024;
/**
 * What Node itself keeps resident beside the buffers (code, heap, the HTTP server), and
 * what allocating them leaves: 40–70 MiB on Node 24 here; the bound leaves room for a
 * heavier Node.
 */
const NODE_OWN = 120 * MIB;
const SLOTS = ['--max-num-seqs', '8', '--max-model-len', '2048'];

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** A simulated `vllm serve` carrying `marker`, once it holds its host memory. */
async function serve(marker: ProcessMarker, env: Record<string, string> = {}) {
  const port = await freePort();
  const args = ['serve', 'Qwen/Qwen3-0.6B', '--port', String(port), ...SLOTS];
  const child = spawn(process.execPath, [join(BIN, 'vllm'), ...args], {
    env: baseEnv({ SIM_SERVE_STARTUP: '0.2', ...env, [marker.variable]: marker.value }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  expect(await until(() => output.includes('Host memory:')), output).toBe(true);
  return { child, output: () => output };
}

const markerOf = (name: string): ProcessMarker => ({
  variable: SERVER_VARIABLE,
  value: `${name}-${process.pid}-${performance.timeOrigin}`,
});

/** The sampler's periods stepped by hand: five periods, whatever the clock does. */
function sampled<T>(start: () => { stop(): T }): T {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  try {
    const watch = start();
    vi.advanceTimersByTime(5 * 100);
    return watch.stop();
  } finally {
    vi.useRealTimers();
  }
}

describe('watchServerRss', () => {
  it("measures each server's own process tree: its weights and slots and Node's own", async () => {
    const plain = markerOf('plain');
    const larger = markerOf('larger');
    const first = await serve(plain);
    await serve(larger, { SIM_SERVE_HOST_MEMORY: '2' });
    const plan = (factor: string) => {
      const { weightsBytes, slotsBytes } = hostMemoryPlan(
        { maxNumSeqs: 8, maxModelLen: 2048 },
        { SIM_SERVE_HOST_MEMORY: factor },
      );
      return weightsBytes + slotsBytes;
    };
    // 128 MiB of weights, 8 slots × 2048 tokens × 1 KiB.
    expect(plan('1')).toBe(144 * MIB);
    expect(first.output()).toMatch(
      /Host memory: model weights 128\.0 MiB, sequence slots 16\.0 MiB \(8 × 2048 tokens\)/,
    );
    const [one, two] = [plain, larger].map((marker) => sampled(() => watchServerRss(marker, 100)));
    expect(one!.warnings).toEqual([]);
    const peakOne = one!.server!.peakBytes!;
    const peakTwo = two!.server!.peakBytes!;
    expect(peakOne).toBeGreaterThan(plan('1'));
    expect(peakOne).toBeLessThan(plan('1') + NODE_OWN);
    expect(peakTwo).toBeGreaterThan(plan('2'));
    expect(peakTwo).toBeLessThan(plan('2') + NODE_OWN);
    // Neither counts the other: twice the buffers is 144 MiB more, Node's own alike.
    expect((peakTwo - peakOne) / MIB).toBeGreaterThan(144 - 24);
    expect((peakTwo - peakOne) / MIB).toBeLessThan(144 + 24);
  });

  it('measures nothing for a run without a server, and says so when its server is not seen', () => {
    expect(watchServerRss(undefined, 100).stop()).toEqual({ warnings: [] });
    const unseen = watchServerRss(markerOf('nobody'), 100).stop();
    expect(unseen.server).toEqual({});
    expect(unseen.warnings).toEqual([
      expect.stringMatching(/^no process of the server was seen in \/proc while the run ran/),
    ]);
  });
});

/**
 * Holds 96 MiB, frees it (a large Buffer is its own mapping: freed, it leaves RSS, not
 * VmHWM), then marks itself done in $HOLD_DIR and stays.
 */
const PEAKED_BEFORE = `
let big = Buffer.alloc(96 * ${MIB}, 1);
big = undefined;
globalThis.gc();
require('node:fs').writeFileSync(require('node:path').join(process.env.HOLD_DIR, String(process.pid)), '');
setInterval(() => {}, 60_000);
`;

describe('the peak of a server up since before the run', () => {
  it('is what is resident during the run, not the VmHWM of its start', async () => {
    const holding = await mkdtemp(join(tmpdir(), 'server-rss-'));
    const marker = markerOf('peaked');
    const child = spawn(process.execPath, ['--expose-gc', '-e', PEAKED_BEFORE], {
      env: { ...process.env, HOLD_DIR: holding, [marker.variable]: marker.value },
      stdio: 'ignore',
    });
    started.push(child);
    try {
      expect(await until(async () => (await readdir(holding)).length === 1)).toBe(true);
      const now = sampled(() => watchServerRss(marker, 100));
      // A run's own tree starts with the run: its VmHWM is a floor there.
      const withHwm = sampled(() => startHostRssSampler(marker.variable, marker.value, 100));
      expect(withHwm.peakBytes).toBeGreaterThan(96 * MIB);
      expect(now.server!.peakBytes).toBeLessThan(96 * MIB);
      expect(withHwm.pids.here).toEqual([child.pid]);
    } finally {
      await rm(holding, { recursive: true, force: true });
    }
  });
});
