// The dashboard's Pages branch with real git: a bare `origin` and a checkout of it, as
// actions/checkout leaves the workspace.
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/baseline/git/git.js';
import {
  PAGES_MARKER_FILE,
  publishToPagesBranch,
  type PagesBranchOptions,
} from '../../src/dashboard/pages-branch.js';
import { checkoutState, makeRepos, type Repos } from '../baseline/git/support.js';

const OFF_LIMITS = [{ branch: 'perf-gate-data', why: 'the data branch of the git-branch store' }];

async function publish(repos: Repos, page: string, overrides: Partial<PagesBranchOptions> = {}) {
  return publishToPagesBranch({
    repoDir: repos.checkout,
    branch: 'gh-pages',
    workDir: await mkdtemp(join(repos.root, 'work-')),
    files: [
      { name: 'index.html', content: page },
      { name: '.nojekyll', content: '' },
    ],
    message: 'perf-gate: dashboard',
    offLimits: OFF_LIMITS,
    ...overrides,
  });
}

/** `name<TAB>content` of every file of the branch in origin. */
async function branchFiles(origin: string, branch: string): Promise<Record<string, string>> {
  const git = new Git({ cwd: origin });
  const names = (await git.run(['ls-tree', '--name-only', branch])).split('\n');
  const files: Record<string, string> = {};
  for (const name of names) files[name] = await git.run(['show', `${branch}:${name}`]);
  return files;
}

describe('publishToPagesBranch', () => {
  it('creates the branch as an orphan, then adds one commit per changed page', async () => {
    const repos = await makeRepos();
    const before = await checkoutState(repos.git);
    const mainBefore = await new Git({ cwd: repos.origin }).run(['rev-parse', 'main']);

    const first = await publish(repos, '<p>night 1</p>');
    expect(first).toMatchObject({ changed: true, attempts: 1 });
    const files = await branchFiles(repos.origin, 'gh-pages');
    expect(Object.keys(files).sort()).toEqual(['.neuron-perf-gate', '.nojekyll', 'index.html']);
    expect(files['index.html']).toBe('<p>night 1</p>');
    const origin = new Git({ cwd: repos.origin });
    expect(await origin.run(['rev-list', '--count', 'gh-pages'])).toBe('1');
    expect(await origin.run(['log', '-1', '--format=%s', 'gh-pages'])).toBe(
      'perf-gate: dashboard [skip ci]',
    );

    const second = await publish(repos, '<p>night 2</p>');
    expect(second.changed).toBe(true);
    expect(await origin.run(['rev-parse', 'gh-pages^'])).toBe(first.commit);
    expect((await branchFiles(repos.origin, 'gh-pages'))['index.html']).toBe('<p>night 2</p>');

    const same = await publish(repos, '<p>night 2</p>');
    expect(same).toMatchObject({ changed: false, commit: second.commit });
    expect(await origin.run(['rev-list', '--count', 'gh-pages'])).toBe('2');

    // Neither the checkout nor the code branch moved.
    expect(await checkoutState(repos.git)).toBe(before);
    expect(await origin.run(['rev-parse', 'main'])).toBe(mainBefore);
  });

  it('never replaces a branch it did not create', async () => {
    const repos = await makeRepos();
    await repos.git.run(['push', '--quiet', 'origin', 'main:gh-pages']);
    const origin = new Git({ cwd: repos.origin });
    const tip = await origin.run(['rev-parse', 'gh-pages']);
    await expect(publish(repos, '<p>page</p>')).rejects.toThrow(
      new RegExp(
        `'gh-pages': the branch exists and was not written by neuron-perf-gate \\(it has no \\${PAGES_MARKER_FILE} file\\)`,
      ),
    );
    expect(await origin.run(['rev-parse', 'gh-pages'])).toBe(tip);
  });

  it("refuses the remote's default branch and the branches it is told to leave alone", async () => {
    const repos = await makeRepos();
    const origin = new Git({ cwd: repos.origin });
    const main = await origin.run(['rev-parse', 'main']);
    // The remote's HEAD names main: asked of the remote, whatever the caller knows.
    await expect(publish(repos, 'x', { branch: 'main', offLimits: [] })).rejects.toThrow(
      "'main': it is the repository's default branch",
    );
    await expect(publish(repos, 'x', { branch: 'perf-gate-data' })).rejects.toThrow(
      "'perf-gate-data': it is the data branch of the git-branch store",
    );
    await expect(publish(repos, 'x', { branch: '-f' })).rejects.toThrow(/not a usable branch/);
    expect(await origin.run(['rev-parse', 'main'])).toBe(main);
    expect((await origin.tryRun(['rev-parse', '--verify', 'perf-gate-data'])).ok).toBe(false);
  });

  it('publishes on top of a page another job pushed first', async () => {
    const repos = await makeRepos();
    const first = await publish(repos, '<p>a</p>');
    // Two jobs at once: one push is rejected and retried on the other's commit.
    const results = await Promise.all(
      ['<p>b</p>', '<p>c</p>'].map((page) => publish(repos, page, { sleep: async () => {} })),
    );
    const origin = new Git({ cwd: repos.origin });
    expect(await origin.run(['rev-list', '--count', 'gh-pages'])).toBe('3');
    const tip = await origin.run(['rev-parse', 'gh-pages']);
    expect(results.map((r) => r.commit)).toContain(tip);
    expect(await origin.run(['rev-parse', 'gh-pages~2'])).toBe(first.commit);
  });
});
