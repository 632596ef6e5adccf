// The simulator's compile cache: filled on first use (taking simulated compile time),
// read afterwards, missed by a new compiler version or new compiler flags, and logged in
// the shapes the gate's parser reads from the real tools.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCompileCache } from '../../src/observe/compile-cache-dir.js';
import { parseCompileLog } from '../../src/observe/compile-log.js';
import { runTool, tempDir } from './helpers.js';

const DEFAULT_VERSION = 'neuronxcc-2.21.18209.0+043b1bf7';

async function load(cache: string, env: Record<string, string> = {}, args: string[] = []) {
  const outcome = await runTool('offline-benchmark', args, {
    env: { NEURON_COMPILE_CACHE_URL: cache, ...env },
  });
  expect(outcome.code, outcome.stderr).toBe(0);
  return { ...parseCompileLog(outcome.stdout, 'stdout'), stdout: outcome.stdout };
}

describe('simulated compile cache', () => {
  it('compiles every graph into an empty cache, then loads them all from it', async () => {
    const cache = join(await tempDir(), 'cache');
    const cold = await load(cache);
    expect(cold.compiled).toBe(4);
    expect(cold.cached).toEqual([]);
    expect(cold.compileSeconds).toHaveLength(1);
    expect(cold.compileSeconds[0]).toBeGreaterThan(250);
    expect(cold.stdout).toContain(`INFO ||NEURON_CACHE||: Compile cache path: ${cache}\n`);
    const entries = [...(await listCompileCache(cache)).entries];
    expect(entries).toHaveLength(4);
    expect(
      entries.every((e) => /^neuronxcc-[^/]+\/MODULE_[0-9a-f]{20}\+[0-9a-f]{8}$/.test(e)),
    ).toBe(true);
    const module = join(cache, entries[0]!);
    expect((await readdir(module)).sort()).toEqual([
      'compile_flags.txt',
      'model.hlo_module.pb',
      'model.neff',
    ]);

    const warm = await load(cache);
    expect(warm.compiled).toBe(0);
    expect(warm.cached.sort()).toEqual(entries.sort());
    expect(warm.compileSeconds[0]).toBeLessThan(2);
    expect(warm.warnings).toEqual([]);
  });

  it('misses the cache after a compiler upgrade or with new compiler flags', async () => {
    const cache = join(await tempDir(), 'cache');
    await load(cache);
    const upgraded = await load(cache, { SIM_NEURONX_CC_VERSION: '2.22.5122.0+1c2d3e4f' });
    expect(upgraded.compiled).toBe(4);
    expect((await readdir(cache)).sort()).toEqual([
      DEFAULT_VERSION,
      'neuronxcc-2.22.5122.0+1c2d3e4f',
    ]);
    expect((await load(cache, { NEURON_CC_FLAGS: '--optlevel=3' })).compiled).toBe(4);
    // Bucketing off: other graphs (one bucket each), compiled once.
    expect((await load(cache, {}, ['--no-enable-bucketing'])).compiled).toBe(2);
  });

  it('scales the compile time with SIM_COMPILE_SLOWDOWN', async () => {
    const base = await load(join(await tempDir(), 'cache'));
    const slow = await load(join(await tempDir(), 'cache'), { SIM_COMPILE_SLOWDOWN: '10' });
    expect(slow.compileSeconds[0]! / base.compileSeconds[0]!).toBeCloseTo(10, 2);
  });
});
