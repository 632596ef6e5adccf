// The compile cache around a benchmark's runs, on a real folder: entries added between the
// look before and the look after are graphs compiled; the logs say what was loaded.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../src/model.js';
import {
  compileCacheLocation,
  DEFAULT_COMPILE_CACHE_DIR,
  listCompileCache,
} from '../../src/observe/compile-cache-dir.js';
import { observeCompileCache, watchCompileCache } from '../../src/observe/compile-cache.js';
import { compileCacheMetrics } from '../../src/observe/compile-metrics.js';

const VERSION = 'neuronxcc-2.21.18209.0+043b1bf7';

async function addEntry(cache: string, module: string, neff = true): Promise<void> {
  const dir = join(cache, VERSION, module);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'model.hlo_module.pb'), 'hlo');
  if (neff) await writeFile(join(dir, 'model.neff'), 'neff');
}

function runOf(logPath: string, index: number, durationMs: number): RunOutcome {
  return {
    index,
    kind: 'clean',
    ok: true,
    exitCode: 0,
    timedOut: false,
    durationMs,
    resultPath: join(logPath, '..', `r${index}.json`),
    logPath,
    logTail: [],
  };
}

const cachedLine = (cache: string, module: string) =>
  `2025-11-22 03:10:15.000437:  5151  INFO ||NEURON_CC_WRAPPER||: Using a cached neff at ${cache}/${VERSION}/${module}/model.neff. Exiting with a successfully compiled graph.\n`;
const compiledLine =
  'Compiler status PASS\n2025-11-22 02:27:52.000113:  4242  INFO ||NEURON_CC_WRAPPER||: Exiting with a successfully compiled graph.\n';

describe('compileCacheLocation', () => {
  it('follows NEURON_COMPILE_CACHE_URL: a path, file://, a remote URL, or the default', () => {
    expect(compileCacheLocation({}, '/w')).toEqual({ dir: DEFAULT_COMPILE_CACHE_DIR });
    expect(compileCacheLocation({ NEURON_COMPILE_CACHE_URL: ' ' }, '/w')).toEqual({
      dir: DEFAULT_COMPILE_CACHE_DIR,
    });
    // A relative folder is listed where it is and shown as configured, the same on every machine.
    expect(compileCacheLocation({ NEURON_COMPILE_CACHE_URL: 'cache' }, '/w')).toEqual({
      dir: '/w/cache',
      shown: 'cache',
    });
    expect(compileCacheLocation({ NEURON_COMPILE_CACHE_URL: 'file:///c' }, '/w')).toEqual({
      dir: '/c',
    });
    expect(compileCacheLocation({ NEURON_COMPILE_CACHE_URL: 's3://b/p' }, '/w')).toEqual({
      remote: 's3://b/p',
    });
  });
});

describe('listCompileCache', () => {
  it('lists entries with a NEFF only; a missing folder is an empty cache', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'cc-list-'));
    await addEntry(cache, 'MODULE_a+1');
    await addEntry(cache, 'MODULE_b+1', false);
    await mkdir(join(cache, 'not-a-version', 'MODULE_c+1'), { recursive: true });
    expect([...(await listCompileCache(cache)).entries]).toEqual([`${VERSION}/MODULE_a+1`]);
    expect(await listCompileCache(join(cache, 'none'))).toEqual({
      entries: new Set(),
      warnings: [],
    });
  });

  it('warns of a cache path it cannot read as a folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-file-'));
    await writeFile(join(root, 'cache'), 'not a folder');
    const listing = await listCompileCache(join(root, 'cache'));
    expect(listing.entries.size).toBe(0);
    expect(listing.warnings).toEqual([
      expect.stringMatching(/^cannot read the compile cache folder .*\/cache: .*ENOTDIR/),
    ]);
  });
});

describe('observeCompileCache', () => {
  it('counts new entries as compiled and what the logs loaded from before as cached', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-observe-'));
    const cache = join(root, 'cache');
    await addEntry(cache, 'MODULE_old+1');
    const watch = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: cache }, root);
    await addEntry(cache, 'MODULE_new+1');
    await writeFile(
      join(root, 'run-1.log'),
      `${cachedLine(cache, 'MODULE_old+1')}${compiledLine}INFO:Neuron:Finished Compilation for all HLOs in 96.50 seconds\n`,
    );
    await writeFile(
      join(root, 'run-2.log'),
      `${cachedLine(cache, 'MODULE_old+1')}${cachedLine(cache, 'MODULE_new+1')}INFO:Neuron:Finished Compilation for all HLOs in 0.40 seconds\n`,
    );
    const summary = await observeCompileCache(watch, [
      runOf(join(root, 'run-1.log'), 1, 97_000),
      runOf(join(root, 'run-2.log'), 2, 1_000),
    ]);
    expect(summary).toEqual({
      dir: cache,
      graphsCompiled: 1,
      compiled: [`${VERSION}/MODULE_new+1`],
      cached: 1,
      // The cache held an entry of this compiler before: not a cold cache.
      coldBefore: false,
      // Only the run that compiled counts: the other's 0.4 s was loading NEFFs.
      compileSeconds: 96.5,
      compileTimeFrom: 'log',
      warnings: [],
    });
    expect(compileCacheMetrics(summary!).map((m) => [m.id, m.values])).toEqual([
      ['graphs_compiled', [1]],
      ['graphs_cached', [1]],
      ['compile_time', [96.5]],
    ]);
  });

  it("takes the compile time from the first run's extra time when no log says it", async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-first-run-'));
    const cache = join(root, 'cache');
    const watch = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: cache }, root);
    await addEntry(cache, 'MODULE_x+1');
    await addEntry(cache, 'MODULE_y+1');
    const runs = [61_000, 1_000, 2_000, 1_500].map((ms, i) => runOf(join(root, 'none.log'), i, ms));
    const summary = await observeCompileCache(watch, runs);
    expect(summary).toMatchObject({ graphsCompiled: 2, compileSeconds: 59.5 });
    expect(summary?.compileTimeFrom).toBe('first-run');
    // No log line said what was loaded: unknown, not 0.
    expect(summary?.cached).toBeUndefined();
  });

  it('counts a remote cache from the logs, and nothing for a benchmark that never compiles', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-remote-'));
    await writeFile(join(root, 'run.log'), `${compiledLine}${compiledLine}`);
    const remote = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: 's3://b/c' }, root);
    const summary = await observeCompileCache(remote, [runOf(join(root, 'run.log'), 1, 5)]);
    expect(summary).toMatchObject({
      remote: 's3://b/c',
      graphsCompiled: 2,
      compiled: [],
      cached: 0,
    });
    await writeFile(join(root, 'plain.log'), 'Processing query 1/10\n');
    const local = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: join(root, 'c') }, root);
    expect(await observeCompileCache(local, [runOf(join(root, 'plain.log'), 1, 5)])).toBe(
      undefined,
    );
  });

  it('says whether the cache held none of the compiled version before the first run', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-cold-'));
    const runs = [runOf(join(root, 'none.log'), 0, 1_000)];
    const observe = async (cache: string) => {
      const watch = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: cache }, root);
      await addEntry(cache, 'MODULE_new+1');
      return observeCompileCache(watch, runs);
    };
    // Empty (or missing) before, an entry after: cold.
    expect(await observe(join(root, 'empty'))).toMatchObject({
      graphsCompiled: 1,
      coldBefore: true,
    });
    // An entry of the same compiler before: warm, whatever the new graph's key.
    const warmCache = join(root, 'warm');
    await addEntry(warmCache, 'MODULE_old+1');
    expect(await observe(warmCache)).toMatchObject({ graphsCompiled: 1, coldBefore: false });
    // Entries of another compiler only: cold for this one (its cache keys are its own).
    const otherCache = join(root, 'other');
    await mkdir(join(otherCache, 'neuronxcc-2.20.0/MODULE_old+1'), { recursive: true });
    await writeFile(join(otherCache, 'neuronxcc-2.20.0/MODULE_old+1/model.neff'), 'neff');
    expect(await observe(otherCache)).toMatchObject({ graphsCompiled: 1, coldBefore: true });
  });

  it("judges cold from the gate run's first listing, not one after an earlier benchmark", async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-cold-gate-'));
    const cache = join(root, 'cache');
    const seen = new Map();
    const env = { NEURON_COMPILE_CACHE_URL: cache };
    const runs = [runOf(join(root, 'none.log'), 0, 1_000)];
    // The first benchmark compiles into the wiped cache; the second finds its entries.
    const first = await watchCompileCache(env, root, seen);
    await addEntry(cache, 'MODULE_a+1');
    expect(await observeCompileCache(first, runs)).toMatchObject({ coldBefore: true });
    const second = await watchCompileCache(env, root, seen);
    await addEntry(cache, 'MODULE_b+1');
    expect(await observeCompileCache(second, runs)).toMatchObject({
      graphsCompiled: 1,
      compiled: [`${VERSION}/MODULE_b+1`],
      coldBefore: true,
    });
    // Without the gate's first listing the second would look warm.
    const alone = await watchCompileCache(env, root);
    await addEntry(cache, 'MODULE_c+1');
    expect(await observeCompileCache(alone, runs)).toMatchObject({ coldBefore: false });
  });

  it('says nothing of coldness for a remote cache, an unreadable folder or nothing compiled', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-cold-unknown-'));
    await writeFile(join(root, 'run.log'), compiledLine);
    const run = [runOf(join(root, 'run.log'), 1, 5)];
    const remote = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: 's3://b/c' }, root);
    expect((await observeCompileCache(remote, run))?.coldBefore).toBeUndefined();
    const cache = join(root, 'cache');
    await addEntry(cache, 'MODULE_old+1');
    const warmWatch = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: cache }, root);
    await writeFile(join(root, 'loaded.log'), cachedLine(cache, 'MODULE_old+1'));
    const loaded = [runOf(join(root, 'loaded.log'), 1, 5)];
    expect(await observeCompileCache(warmWatch, loaded)).toMatchObject({ graphsCompiled: 0 });
    expect((await observeCompileCache(warmWatch, loaded))?.coldBefore).toBeUndefined();
    const unreadable = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: cache }, root);
    unreadable.before!.entries.clear();
    unreadable.before!.warnings.push('cannot read the compile cache folder');
    await addEntry(cache, 'MODULE_new+1');
    expect((await observeCompileCache(unreadable, run))?.coldBefore).toBeUndefined();
  });

  it('keeps the warnings of a cut-off log beside what it could read', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cc-cut-'));
    const cache = join(root, 'cache');
    await addEntry(cache, 'MODULE_old+1');
    const watch = await watchCompileCache({ NEURON_COMPILE_CACHE_URL: cache }, root);
    await writeFile(
      join(root, 'run-1.log'),
      `${cachedLine(cache, 'MODULE_old+1')}${cachedLine(cache, 'MODULE_old+1').slice(0, 120)}`,
    );
    const summary = await observeCompileCache(watch, [runOf(join(root, 'run-1.log'), 1, 5)]);
    expect(summary).toMatchObject({ graphsCompiled: 0, cached: 1 });
    expect(summary?.warnings).toEqual([expect.stringMatching(/^run-1\.log:2: /)]);
  });
});
