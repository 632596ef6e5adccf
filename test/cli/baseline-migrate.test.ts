// `baseline migrate` moves a history between stores, samples and paths and all, and the
// history read from the copy is the history read from the original.

import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderBackend } from '../../src/baseline/folder-backend.js';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { cli } from '../support/cli-run.js';
import { makeRepos } from '../baseline/git/support.js';
import { historyOf, sampleHistoryOnDataBranch } from './sample-history.js';

describe('neuron-perf-gate baseline migrate', () => {
  it('moves the sample history to a folder and to another data branch, and back, with the same history', async () => {
    const { repos, original, nights, total } = await sampleHistoryOnDataBranch();

    const toFolder = await cli(
      ['baseline', 'migrate', '--from', 'git-branch', '--to', 'dir:copy'],
      repos.checkout,
    );
    expect(toFolder.stderr).toContain(`${total} record(s) of 2 gate(s) are in the folder`);
    expect(toFolder.code).toBe(0);
    expect(toFolder.stdout).toBe(
      'default: 5 record(s) in the source, 5 added, 5 in the target\n' +
        `nightly: ${nights.length} record(s) in the source, ${nights.length} added, ${nights.length} in the target\n`,
    );

    const back = `git+${repos.origin}#perf-gate-copy`;
    const toBranch = await cli(
      ['baseline', 'migrate', '--from', 'dir:copy', '--to', back],
      repos.checkout,
    );
    expect(toBranch.code).toBe(0);
    const again = await cli(
      ['baseline', 'migrate', '--from', 'dir:copy', '--to', back],
      repos.checkout,
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `nightly: ${nights.length} record(s) in the source, 0 added, ${nights.length} in the target`,
    );
    expect(again.stdout).toContain('default: 5 record(s) in the source, 0 added, 5 in the target');

    // The same paths, the same records, samples and all.
    const copy = new GitBranchStore({
      repoDir: repos.checkout,
      branch: 'perf-gate-copy',
      workDir: await mkdtemp(join(repos.root, 'read-')),
    });
    const paths = async (store: GitBranchStore) =>
      (await store.readStoredRecords()).records.map((r) => r.path);
    expect(await paths(copy)).toEqual(await paths(original));
    expect((await copy.readRecords('default', 'qwen')).records).toEqual(
      (await original.readRecords('default', 'qwen')).records,
    );
    const folder = new FolderBackend(join(repos.checkout, 'copy'));
    expect((await folder.readRecords('default', 'qwen')).records).toEqual(
      (await original.readRecords('default', 'qwen')).records,
    );

    const fromOriginal = await cli(['history', '--json'], repos.checkout);
    const fromBranch = await cli(['history', '--json', '--store', back], repos.checkout);
    const fromFolder = await cli(['history', '--json', '--store', 'dir:copy'], repos.checkout);
    for (const read of [fromOriginal, fromBranch, fromFolder]) expect(read.code).toBe(0);
    expect(JSON.parse(fromBranch.stdout).source).toBe(`branch perf-gate-copy of ${repos.origin}`);
    expect(historyOf(fromBranch.stdout)).toEqual(historyOf(fromOriginal.stdout));
    expect(historyOf(fromFolder.stdout)).toEqual(historyOf(fromOriginal.stdout));
    // Not an empty history compared with an empty one.
    expect((historyOf(fromOriginal.stdout).series as unknown[]).length).toBeGreaterThan(3);
  });

  it('names what it needs, and refuses a store moved onto itself', async () => {
    const repos = await makeRepos();
    const missing = await cli(['baseline', 'migrate', '--from', 'git-branch'], repos.checkout);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/needs --from STORE and --to STORE/);
    const same = await cli(
      ['baseline', 'migrate', '--from', 'dir:a', '--to', 'dir:./a'],
      repos.checkout,
    );
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/--from and --to are the same store/);
    const bad = await cli(
      ['baseline', 'migrate', '--from', 'git-branch', '--to', 'ftp://x'],
      repos.checkout,
    );
    expect(bad.stderr).toMatch(/--to: 'ftp:' is not a store this tool knows/);
  });
});
