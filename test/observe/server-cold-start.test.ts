// serverColdStart with the simulator's real `vllm serve`: the server gets a fresh empty
// folder inside the out dir as NEURON_COMPILE_CACHE_URL, laid over its own env's (the user's
// cache, which it is never given, is left as it was), compiles the model's graphs into it,
// is timed launch → ready and stopped, and the folder is gone afterwards; a server that fails
// to start says so instead of passing for a cold start. servedStartupFigures reads what the
// warm starts' logs say they loaded from the cache.
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchmarkSpec, ServerSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { servedStartupFigures } from '../../src/observe/served-startup.js';
import {
  serverColdStart,
  takesServerColdStart,
  type ServedBy,
} from '../../src/observe/server-cold-start.js';
import { createProcessRunner } from '../../src/runner/process.js';
import type { ServerSession } from '../../src/runner/server-session.js';
import { freePort } from '../support/ports.js';
import { BIN } from '../simulator/helpers.js';

async function setup(serverEnv: Record<string, string> = {}) {
  const root = await mkdtemp(join(tmpdir(), 'server-cold-start-'));
  const userCache = join(root, 'user-cache');
  await mkdir(join(userCache, 'neuronxcc-1', 'MODULE_a'), { recursive: true });
  await writeFile(join(userCache, 'neuronxcc-1', 'MODULE_a', 'model.neff'), 'neff');
  const port = await freePort();
  const server: ServerSpec = {
    command: `vllm serve Qwen/Qwen3-0.6B --port ${port} --max-num-seqs 8`,
    readiness: { url: `http://127.0.0.1:${port}/health` },
    startTimeoutSeconds: 60,
    stopSignal: 'SIGTERM',
    stopGraceSeconds: 5,
    // The user's cache is the server's own setting: the cold start's is laid over it.
    env: { NEURON_COMPILE_CACHE_URL: userCache, ...serverEnv },
  };
  const spec: BenchmarkSpec & { server: ServerSpec } = {
    name: 'serve',
    command: 'true',
    format: 'vllm-bench-serve',
    runs: 2,
    confirmRuns: 0,
    profileMode: 'model',
    profile: 'false',
    thresholds: {},
    workingDirectory: root,
    env: { SIM_SLEEP: '0.005', SIM_SERVE_STARTUP: '0.2' },
    timeoutMinutes: 1,
    startup: { cold: true },
    server,
  };
  const outDir = join(root, 'out');
  await mkdir(outDir);
  const options = {
    runner: createProcessRunner({ killGraceMs: 500 }),
    log: new MemoryLogger(),
    outDir,
    baseEnv: { PATH: `${BIN}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: root },
    cache: { dir: userCache },
  };
  return { spec, options, userCache, outDir };
}

describe('serverColdStart', () => {
  it("starts the server on an empty cache of its own, timed, and leaves the user's as it was", async () => {
    const { spec, options, userCache, outDir } = await setup();
    const { summary, warnings } = await serverColdStart(spec, options);
    expect(warnings).toEqual([]);
    expect(summary.graphsCompiled).toBe(4);
    expect(summary.compileSeconds).toBeGreaterThan(250);
    // ~1.6 s of compiling at SIM_SLEEP 0.005, then the 0.2 s load, before /health says ready.
    expect(summary.seconds).toBeGreaterThan(1.5);
    expect(summary.log).toBe('servers/serve/server-cold.log');
    expect(await readdir(userCache)).toEqual(['neuronxcc-1']);
    expect(await readdir(join(userCache, 'neuronxcc-1'))).toEqual(['MODULE_a']);
    expect((await readdir(outDir)).filter((n) => n.startsWith('.cold'))).toEqual([]);
  });

  it('says the cold start failed when the server does not start', async () => {
    const { spec, options } = await setup({ SIM_SERVE_FAIL: 'start' });
    const { summary, warnings } = await serverColdStart(spec, options);
    expect(summary.seconds).toBeUndefined();
    expect(summary.note).toMatch(/^the cold start failed: /);
    expect(warnings.join('\n')).toMatch(
      /cold_startup not measured \(log: servers\/serve\/server-cold\.log\)/,
    );
  });

  it('is taken once: by the group’s first benchmark, before its server started', () => {
    const spec = { startup: { cold: true }, server: {} } as unknown as BenchmarkSpec;
    const served = (first: boolean, starts: number): ServedBy => ({
      first,
      session: { starts: new Array(starts).fill({}) } as unknown as ServerSession,
    });
    expect(takesServerColdStart(spec, served(true, 0))).toBe(true);
    expect(takesServerColdStart(spec, served(false, 0))).toBe(false);
    expect(takesServerColdStart(spec, served(true, 1))).toBe(false);
    expect(takesServerColdStart({ ...spec, startup: { cold: false } }, served(true, 0))).toBe(
      false,
    );
  });
});

describe('servedStartupFigures', () => {
  it("gives cold_startup and what the clean starts' logs loaded, and no benchmark_startup", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'served-startup-'));
    const line = (hash: string) =>
      `2024-09-23 00:09:00.000437:  27  INFO ||NEURON_CC_WRAPPER||: Using a cached neff at /c/neuronxcc-2.1/MODULE_${hash}+1/model.neff. Exiting with a successfully compiled graph.\n`;
    await writeFile(join(dir, 'server-1.clean.log'), line('a') + line('b'));
    await writeFile(
      join(dir, 'server-2.profiled.log'),
      '… INFO ||NEURON_CC_WRAPPER||: Exiting with a successfully compiled graph.\n',
    );
    const starts = [
      { kind: 'clean' as const, run: 1, logPath: join(dir, 'server-1.clean.log') },
      { kind: 'profiled' as const, run: 3, logPath: join(dir, 'server-2.profiled.log') },
    ];
    const cold = { seconds: 9.5, compileSeconds: 300, graphsCompiled: 4, log: 'x' };
    const figures = await servedStartupFigures({ cold: true }, cold, starts);
    expect(figures.metrics.map((m) => [m.id, m.values])).toEqual([
      ['cold_startup', [9.5]],
      ['cold_compile_time', [300]],
    ]);
    expect(figures.notMeasured).toEqual({});
    // The profiled start is no warm start: its compile is not counted.
    expect(figures.summary.serverStarts).toEqual({ starts: 1, graphsLoaded: 2, graphsCompiled: 0 });
  });
});
