// coldStart with real processes: the benchmark gets a fresh empty folder inside the out dir
// as NEURON_COMPILE_CACHE_URL (never the user's cache, which is left as it was), it is
// timed like a clean run, the folder is gone afterwards, and a start that compiled nothing
// into it, or failed, says so instead of passing for a cold start.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchmarkSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { coldStart } from '../../src/observe/cold-start.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { BIN } from '../simulator/helpers.js';

async function setup(command: string) {
  const root = await mkdtemp(join(tmpdir(), 'cold-start-'));
  const work = join(root, 'work');
  const userCache = join(root, 'user-cache');
  await mkdir(work);
  await mkdir(join(userCache, 'neuronxcc-1', 'MODULE_a'), { recursive: true });
  await writeFile(join(userCache, 'neuronxcc-1', 'MODULE_a', 'model.neff'), 'neff');
  const spec: BenchmarkSpec = {
    name: 'rerank',
    command,
    format: 'offline-benchmark',
    runs: 3,
    confirmRuns: 0,
    profileMode: 'model',
    profile: 'false',
    thresholds: {},
    workingDirectory: work,
    env: { NEURON_COMPILE_CACHE_URL: userCache, SIM_SLEEP: '0.005' },
    timeoutMinutes: 1,
    startup: { readyLog: 'init engine .* took', cold: true },
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
  return { spec, options, root, userCache, outDir };
}

describe('coldStart', () => {
  it('starts the benchmark on an empty cache of its own, timed, and removes it', async () => {
    const { spec, options, userCache, outDir } = await setup(
      'echo "$NEURON_COMPILE_CACHE_URL" > ../cache-used; ls -A "$NEURON_COMPILE_CACHE_URL" | wc -l > ../cache-entries; ' +
        // The queries take a few ms here: work after the ready line keeps it a start-up,
        // not a sign that came only as the run ended (startup-watch.ts).
        'offline-benchmark --output-file "$PERF_GATE_OUTPUT"; sleep 0.5',
    );
    const { summary, warnings } = await coldStart(spec, options);
    const used = (await readFile(join(outDir, '..', 'cache-used'), 'utf8')).trim();
    expect(dirname(used)).toBe(outDir);
    expect((await readFile(join(outDir, '..', 'cache-entries'), 'utf8')).trim()).toBe('0');
    expect(existsSync(used)).toBe(false);
    expect(summary.graphsCompiled).toBe(4);
    expect(summary.compileSeconds).toBeGreaterThan(250);
    // ~1.55 s of compiling at SIM_SLEEP 0.005 before the ready line.
    expect(summary.seconds).toBeGreaterThan(1.5);
    expect(summary.log).toBe('runs/rerank/run-cold.clean.log');
    expect(warnings).toEqual([]);
    // The user's cache: as it was, nothing compiled into it.
    expect(await readdir(userCache)).toEqual(['neuronxcc-1']);
    expect(await readdir(join(userCache, 'neuronxcc-1'))).toEqual(['MODULE_a']);
  });

  it('warns when nothing was compiled into the empty cache, and when the start failed', async () => {
    const quiet = await setup(
      'echo "init engine took 1 seconds"; echo "{}" > "$PERF_GATE_OUTPUT"; sleep 0.05',
    );
    const ignored = await coldStart(quiet.spec, quiet.options);
    expect(ignored.summary.graphsCompiled).toBe(0);
    expect(ignored.warnings.join('\n')).toMatch(
      /nothing was compiled into the empty compile cache .*may not read that variable/,
    );
    const failing = await setup('echo "init engine took 1 seconds"; exit 3');
    const failed = await coldStart(failing.spec, failing.options);
    expect(failed.summary.seconds).toBeUndefined();
    expect(failed.summary.note).toMatch(/^the cold start failed: the command exited with code 3/);
    expect(failed.warnings.join('\n')).toMatch(
      /cold_startup not measured \(log: runs\/rerank\/run-cold\.clean\.log\)/,
    );
    expect((await readdir(failing.outDir)).filter((n) => n.startsWith('.cold'))).toEqual([]);
  });
});
