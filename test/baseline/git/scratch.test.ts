import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../../src/baseline/git/git.js';
import { openScratchRepository } from '../../../src/baseline/git/scratch.js';
import { makeRepos } from './support.js';

/** The scratch repository's own settings, as git reads them back, sorted. */
async function settings(dir: string): Promise<string[]> {
  const listed = await new Git({ cwd: dir }).run(['config', '--local', '--list']);
  return listed.split('\n').sort();
}

describe('openScratchRepository', () => {
  it('writes the settings of a new repository as `git config` would, odd remote URLs included', async () => {
    const repos = await makeRepos();
    // Characters a config file treats specially: spaces, comment signs, quotes, backslashes.
    const url = `${repos.origin} with "quotes" # not a comment ; nor this \\ end`;
    await repos.git.run(['remote', 'set-url', 'origin', url]);
    const options = { repoDir: repos.checkout, partial: true, noOriginAdvice: 'none' };

    const fresh = join(await mkdtemp(join(repos.root, 'work-')), 'scratch.git');
    await openScratchRepository({ ...options, dir: fresh });
    // The same settings through one `git config` call each: a repository that exists already.
    const existing = join(await mkdtemp(join(repos.root, 'work-')), 'scratch.git');
    await mkdir(existing);
    await new Git({ cwd: existing }).run(['init', '--quiet', '--bare', '.']);
    await openScratchRepository({ ...options, dir: existing });

    const written = await settings(fresh);
    expect(written).toEqual(await settings(existing));
    expect(written).toEqual(
      expect.arrayContaining([
        'core.repositoryformatversion=1',
        'extensions.partialclone=origin',
        `remote.origin.url=${url}`,
        `remote.origin.pushurl=${url}`,
        'remote.origin.promisor=true',
        'remote.origin.partialclonefilter=blob:none',
        'gc.auto=0',
      ]),
    );
    // Opened again (a second store in the same folder): still one value each.
    await openScratchRepository({ ...options, dir: fresh });
    expect(await settings(fresh)).toEqual(written);
    await rm(repos.root, { recursive: true, force: true });
  });
});
