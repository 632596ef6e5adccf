// The base side's guard (src/ab/base-guard.ts) on a real worktree: each way the head side
// could change the base between two base runs is named, and an untouched base passes.
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BaseGuard } from '../../src/ab/base-guard.js';
import type { PreparedSide } from '../../src/ab/sides.js';
import { Git } from '../../src/baseline/git/git.js';
import { gitIn } from '../support/git.js';

let top: string;
let side: PreparedSide;
let commits: string[];

beforeEach(async () => {
  top = await mkdtemp(join(tmpdir(), 'perf-gate-guard-'));
  const repo = join(top, 'repo');
  await mkdir(repo);
  gitIn(repo, ['init', '--quiet', '--initial-branch=main']);
  await writeFile(join(repo, 'knobs.env'), 'SLOW=1\n');
  gitIn(repo, ['add', '-A']);
  gitIn(repo, ['commit', '--quiet', '-m', 'one']);
  await writeFile(join(repo, 'knobs.env'), 'SLOW=1.25\n');
  gitIn(repo, ['commit', '--quiet', '-am', 'two']);
  commits = gitIn(repo, ['rev-list', 'HEAD']).trim().split('\n').reverse();
  const dir = join(top, 'trees', 'base');
  gitIn(repo, ['worktree', 'add', '--quiet', '--detach', dir, commits[0]!]);
  const outDir = join(top, 'out', 'base');
  await mkdir(outDir, { recursive: true });
  side = { side: 'base', label: 'main', sha: commits[0]!, dir, outDir, env: {} };
});

afterEach(async () => {
  await rm(top, { recursive: true, force: true });
});

const guardOf = () => BaseGuard.take(side, new Git({ cwd: join(top, 'repo') }));

describe('BaseGuard', () => {
  it('passes a base side nobody touched, and untracked files its runs write', async () => {
    const guard = await guardOf();
    await writeFile(join(side.dir, 'cache.bin'), 'written by the base run');
    expect(await guard.changed()).toBeUndefined();
  });

  it.each([
    ['the worktree', () => side.dir],
    ['the out-dir', () => side.outDir],
  ])(
    'names a %s whose parent was renamed and replaced by a folder of the same name',
    async (_what, dirOf) => {
      const guard = await guardOf();
      const dir = dirOf();
      const parent = join(dir, '..');
      await rename(parent, `${parent}.moved`);
      await mkdir(dir, { recursive: true });
      expect(await guard.changed()).toBe(
        `${dir} is no longer the folder the gate made (moved away or replaced)`,
      );
    },
  );

  it('names a worktree checked out at another commit', async () => {
    const guard = await guardOf();
    gitIn(side.dir, ['checkout', '--quiet', '--detach', commits[1]!]);
    expect(await guard.changed()).toMatch(
      new RegExp(
        `is at ${commits[1]!.slice(0, 7)}, not the base commit ${commits[0]!.slice(0, 7)}`,
      ),
    );
  });

  it('names a tracked file changed since setup', async () => {
    const guard = await guardOf();
    await writeFile(join(side.dir, 'knobs.env'), 'SLOW=1.25\n');
    expect(await guard.changed()).toMatch(
      /tracked files in .* changed since setup \(M knobs\.env\)/,
    );
  });

  it('names a base result file rewritten after its run, and passes one left as it was', async () => {
    const guard = await guardOf();
    const kept = join(side.outDir, 'run-1.clean.json');
    const rewritten = join(side.outDir, 'run-2.clean.json');
    await writeFile(kept, '{"p50": 10}');
    await writeFile(rewritten, '{"p50": 10}');
    await guard.recordResult(kept);
    await guard.recordResult(rewritten);
    expect(await guard.changedResults([kept, rewritten])).toBeUndefined();
    await writeFile(rewritten, '{"p50": 12.5}');
    expect(await guard.changedResults([kept, rewritten])).toBe(
      `${rewritten} is not the file its run wrote (changed after the run)`,
    );
  });
});
