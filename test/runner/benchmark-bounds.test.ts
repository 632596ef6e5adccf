// Bounds of a benchmark run no other test pinned (hand mutants of the runner, issue 51): the
// timeout in minutes, a confirmation run never credited with a result file an earlier gate
// run left, and a result of only whitespace up to the size the gate reads to check it.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BenchmarkSpec } from '../../src/config/types.js';
import { MemoryLogger } from '../../src/log.js';
import { benchmarkPaths, runConfirmationRuns, timeoutMsOf } from '../../src/runner/benchmark.js';
import { createProcessRunner } from '../../src/runner/process.js';
import { checkResultFile } from '../../src/runner/run-failure.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'benchmark-bounds-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('timeoutMsOf', () => {
  it('reads timeout-minutes as minutes, at least 1 ms', () => {
    expect(timeoutMsOf({ timeoutMinutes: 30 })).toBe(1_800_000);
    expect(timeoutMsOf({ timeoutMinutes: 0.5 })).toBe(30_000);
    expect(timeoutMsOf({ timeoutMinutes: 0 })).toBe(1);
  });
});

describe('a confirmation run', () => {
  it('fails when it writes no result, even where an earlier gate run left one', async () => {
    const work = join(root, 'work');
    const outDir = join(root, 'out');
    await mkdir(work);
    const spec = {
      name: 'forgets',
      command: 'echo "no result written"',
      runs: 2,
      workingDirectory: work,
      env: {},
      timeoutMinutes: 1,
    } as unknown as BenchmarkSpec;
    const stale = join(benchmarkPaths(outDir, 'forgets').runsDir, 'run-3.clean.json');
    await mkdir(join(stale, '..'), { recursive: true });
    await writeFile(stale, '{"from": "an earlier gate run"}');
    const outcomes = await runConfirmationRuns(spec, {
      runner: createProcessRunner(),
      log: new MemoryLogger(),
      outDir,
      profile: false,
      baseEnv: { PATH: process.env.PATH },
      firstIndex: 3,
      count: 1,
    });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ ok: false, resultPath: stale });
    expect(outcomes[0]?.error).toContain('wrote no result file');
  });
});

describe('checkResultFile', () => {
  it('reads a result of up to 4 KiB to find it holds only whitespace', async () => {
    const blank = join(root, 'blank.json');
    await writeFile(blank, ' '.repeat(4_095) + '\n');
    expect((await checkResultFile(blank))?.short).toBe('empty result file');
    const filled = join(root, 'filled.json');
    await writeFile(filled, `{}${' '.repeat(4_094)}`);
    expect(await checkResultFile(filled)).toBeUndefined();
  });
});
