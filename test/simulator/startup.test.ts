// The simulator's start-up: the compile step, then the model load (× SIM_STARTUP_SLOWDOWN),
// then the ready line (vLLM's, or SIM_READY_LINE), then the first query; with SIM_SLEEP the
// ready line really comes later on a cold cache than on a warm one.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool, tempDir } from './helpers.js';

const READY =
  /\[core\.py:204\] init engine \(profile, create kv cache, warmup model\) took (\S+) seconds/;

async function start(cache: string, env: Record<string, string> = {}) {
  const began = performance.now();
  const outcome = await runTool('offline-benchmark', [], {
    env: { NEURON_COMPILE_CACHE_URL: cache, ...env },
  });
  expect(outcome.code, outcome.stderr).toBe(0);
  return { stdout: outcome.stdout, stderr: outcome.stderr, ms: performance.now() - began };
}

describe('simulated start-up', () => {
  it("prints vLLM's ready line after the load and before the first query", async () => {
    const { stdout } = await start(join(await tempDir(), 'cache'));
    const lines = stdout.split('\n');
    const ready = lines.findIndex((line) => READY.test(line));
    expect(ready).toBeGreaterThan(lines.findIndex((l) => l.includes('Model loaded in')));
    expect(ready).toBeLessThan(lines.findIndex((l) => l.startsWith('Processing query 1/')));
    // Compile (4 graphs, ~310 s simulated) and load (~42 s) together.
    expect(Number(READY.exec(stdout)![1])).toBeGreaterThan(300);
  });

  it('says the line SIM_READY_LINE names, or none', async () => {
    const cache = join(await tempDir(), 'cache');
    const own = await start(cache, { SIM_READY_LINE: 'READY: serving' });
    expect(own.stdout).toContain('\nREADY: serving\n');
    expect(own.stdout).not.toMatch(READY);
    const none = await start(cache, { SIM_READY_LINE: 'none' });
    expect(none.stdout).not.toMatch(READY);
  });

  it('stretches the load with SIM_STARTUP_SLOWDOWN, the draws unchanged', async () => {
    const cache = join(await tempDir(), 'cache');
    await start(cache);
    const loaded = (stdout: string) => Number(/Model loaded in (\S+) s/.exec(stdout)![1]);
    const plain = loaded((await start(cache)).stdout);
    const slower = loaded((await start(cache, { SIM_STARTUP_SLOWDOWN: '1.5' })).stdout);
    expect(slower / plain).toBeCloseTo(1.5, 2);
  });

  it('takes longer in real time on a cold cache than on a warm one (SIM_SLEEP)', async () => {
    const cache = join(await tempDir(), 'cache');
    const cold = await start(cache, { SIM_SLEEP: '0.005' });
    const warm = await start(cache, { SIM_SLEEP: '0.005' });
    const compiled = (stdout: string) =>
      Number(/Finished Compilation for all HLOs in (\S+) seconds/.exec(stdout)![1]);
    const loaded = (stdout: string) => Number(/Model loaded in (\S+) s/.exec(stdout)![1]);
    // Cold: ~318 simulated s of compiling; warm: the cache's, under a second.
    expect(compiled(warm.stdout)).toBeLessThan(compiled(cold.stdout) / 100);
    // A timer never fires early, so the real time is at least SIM_SLEEP × what the run
    // says it spent compiling and loading (~1.8 s); a busy host only adds to it.
    const slept = 0.005 * 1000 * (compiled(cold.stdout) + loaded(cold.stdout));
    expect(cold.ms).toBeGreaterThanOrEqual(slept - 5);
  });

  it('refuses a bad knob, naming it', async () => {
    const outcome = await runTool('offline-benchmark', [], {
      env: { SIM_STARTUP_SLOWDOWN: 'slow' },
    });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/SIM_STARTUP_SLOWDOWN must be a number > 0/);
  });
});
