// The git-branch baseline store end to end: the bundled action, run against a real bare
// repository as `origin`, first as a push to main (which stores the baseline), then as a
// pull request with a slower build (which fails against it and stores nothing).
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/baseline/git/git.js';
import { makeRepos } from '../baseline/git/support.js';
import {
  pullRequestPayload,
  pushPayload,
  runActionProcess,
  simulatorInputs,
} from '../support/action-run.js';

const inputs = simulatorInputs({ 'github-token': '' });

async function dataFiles(origin: string): Promise<string[]> {
  const listed = await new Git({ cwd: origin }).tryRun([
    'ls-tree',
    '-r',
    '--name-only',
    'perf-gate-data',
  ]);
  return listed.ok ? listed.stdout.split('\n').filter((line) => line !== '') : [];
}

describe('the action with the git-branch store', () => {
  it('stores a push to main, then fails a slower pull request against it without storing', async () => {
    const repos = await makeRepos();
    const sha = await repos.git.run(['rev-parse', 'HEAD']);

    const push = await runActionProcess({
      workspace: repos.checkout,
      label: 'push',
      inputs,
      event: { name: 'push', payload: pushPayload('main', sha), ref: 'refs/heads/main', sha },
      env: { SIM_SEED: '11' },
    });
    expect(push.stderr).toBe('');
    expect(push.code).toBe(0);
    expect(push.outputs.verdict).toBe('no-baseline');
    const afterPush = await dataFiles(repos.origin);
    expect(afterPush).toHaveLength(1);
    expect(afterPush[0]).toMatch(
      /^perf-gate-[0-9a-f]{8}\/qwen3-reranker\/\d{8}T\d{6}Z-[0-9a-f]{7}-1000-1\.json$/,
    );
    expect(push.stdout).toContain('1 record(s) added to perf-gate-data');

    const pr = await runActionProcess({
      workspace: repos.checkout,
      label: 'pr',
      inputs,
      event: {
        name: 'pull_request',
        payload: pullRequestPayload({ number: 7, headSha: 'f'.repeat(40) }),
        ref: 'refs/pull/7/merge',
        sha: 'e'.repeat(40),
      },
      env: { SIM_SEED: '12', SIM_SLOWDOWN: '1.15', GITHUB_RUN_ID: '1001' },
    });
    expect(pr.code).toBe(1);
    expect(pr.outputs.verdict).toBe('regression');
    expect(pr.summary).toContain('perf-gate-data @');
    expect(pr.stdout).toMatch(/::error title=qwen3-reranker\/throughput::/);
    expect(pr.stdout).toContain('a pull request never updates the baseline');
    // The pull request stored nothing: the data branch holds the push's record only.
    expect(await dataFiles(repos.origin)).toEqual(afterPush);
  });
});
