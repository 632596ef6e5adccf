// A GitHub API or a git remote that accepts and never answers, against the bundled action:
// each request and git call has a time limit and the publish phase a deadline, so the gate
// ends with its verdict and a clear note, and nothing stored or posted is lost or replaced.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Git } from '../../src/baseline/git/git.js';
import { makeRepos } from '../baseline/git/support.js';
import {
  pullRequestPayload,
  pushPayload,
  runActionProcess,
  simulatorInputs,
  type ActionEvent,
  useActionGitHubApi,
} from '../support/action-run.js';
import { tempDir } from '../support/offline-result.js';
import { isAlive } from '../support/processes.js';

/** Seconds: short, so that the tests take seconds instead of the real 30 s and 10 min. */
const LIMITS = { PERF_GATE_NETWORK_TIMEOUT: '2', PERF_GATE_PUBLISH_TIMEOUT: '8' };
/** Far below what a hang costs without the limits (fetch alone waits 5 min for headers). */
const BOUND_MS = 60_000;

const inputs = simulatorInputs({ runs: '2', 'confirm-runs': '0' });

async function timed<T>(run: () => Promise<T>): Promise<T & { ms: number }> {
  const started = performance.now();
  const result = await run();
  return { ...result, ms: performance.now() - started };
}

describe('a GitHub API that takes writes and never answers', () => {
  const github = useActionGitHubApi();
  let workspace: string;
  beforeAll(async () => {
    workspace = await tempDir('perf-gate-hanging-api-');
  });

  function run(label: string, event: ActionEvent, env: Record<string, string> = {}) {
    return timed(() =>
      runActionProcess({
        workspace,
        label,
        inputs: { ...inputs, 'baseline-store': 'file', 'github-token': 'ghs_hangingApiToken' },
        event,
        env: { GITHUB_API_URL: github.api.url, ...env },
      }),
    );
  }

  it('ends within its bound with the verdict, and leaves the comment as it was', async () => {
    const { api } = github;
    api.state.addPullRequest({ number: 70 });
    const event: ActionEvent = {
      name: 'pull_request',
      payload: pullRequestPayload({ number: 70, headSha: 'c'.repeat(40) }),
      ref: 'refs/pull/70/merge',
      sha: 'd'.repeat(40),
    };
    const first = await run('first', event, { SIM_SEED: '1' });
    expect(first.code, first.stdout).toBe(0);
    const before = api.state.commentsOn(70);
    expect(before).toHaveLength(1);

    // Now GitHub takes the comment's edit or post, and never answers.
    const never = () => new Promise<never>(() => {});
    api.route('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', never);
    api.route('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', never);
    const second = await run('second', event, { SIM_SEED: '2', ...LIMITS });

    expect(second.ms).toBeLessThan(BOUND_MS);
    expect(second.code, second.stdout).toBe(0);
    expect(second.outputs.verdict).toBe('no-baseline');
    expect(second.summary).toContain('neuron-perf-gate');
    expect(second.summary).toMatch(
      /the pull request comment failed: GitHub (did not answer (PATCH|POST) \S+ within 2\.0 s|request (PATCH|POST) \S+( not sent)?: the publish phase ran out of its 8\.0 s bound)/,
    );
    // The comment is the first run's, untouched; nothing was deleted.
    expect(api.state.commentsOn(70)).toEqual(before);
    expect(api.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    const writes = api.requests.filter((r) => r.method === 'PATCH' || r.method === 'POST');
    expect(writes.length).toBeGreaterThan(0);
  }, 120_000);
});

describe('a git remote that never answers', () => {
  /**
   * An `ext::` remote: serves fetches from the bare repository, but hangs the push (HANG=push)
   * or everything (HANG=all), the way a stalled server does. Notes each pid it starts.
   */
  async function hangingRemote(origin: string, pids: string): Promise<string> {
    const dir = await tempDir('perf-gate-hanging-remote-');
    const script = join(dir, 'remote.sh');
    await writeFile(
      script,
      [
        '#!/bin/sh',
        `echo $$ >> "${pids}"`,
        'case "$1:$HANG" in',
        '  *receive-pack:push | *:all) exec sleep 1000 ;;',
        'esac',
        'exec git "${1#git-}" "$2"',
        '',
      ].join('\n'),
    );
    await chmod(script, 0o755);
    return `ext::sh ${script} %S ${origin}`;
  }

  it('stops a hanging push and a hanging fetch within the bound, and overwrites nothing', async () => {
    const repos = await makeRepos({ allowFilter: true });
    const sha = await repos.git.run(['rev-parse', 'HEAD']);
    const event: ActionEvent = {
      name: 'push',
      payload: pushPayload('main', sha),
      ref: 'refs/heads/main',
      sha,
    };
    const run = (label: string, env: Record<string, string>) =>
      timed(() =>
        runActionProcess({
          workspace: repos.checkout,
          label,
          inputs: { ...inputs, 'github-token': '' },
          event,
          env: { GIT_ALLOW_PROTOCOL: 'ext:file', ...env },
        }),
      );
    const origin = new Git({ cwd: repos.origin });
    // As GitHub does: the store fetches record files by id (protocol v0 over ext::).
    await origin.run(['config', 'uploadpack.allowAnySHA1InWant', 'true']);
    const tip = () => origin.run(['rev-parse', 'refs/heads/perf-gate-data']);

    // A first push to main stores its record.
    const stored = await run('store', { SIM_SEED: '11' });
    expect(stored.code, stored.stdout).toBe(0);
    const before = await tip();

    const pids = join(repos.root, 'remote.pids');
    await repos.git.run(['remote', 'set-url', 'origin', await hangingRemote(repos.origin, pids)]);

    // The fetch works, the push hangs: the verdict stands, the record is not stored, and
    // the step fails loudly so nobody takes the green verdict for a stored baseline.
    const push = await run('hanging-push', { SIM_SEED: '12', HANG: 'push', ...LIMITS });
    expect(push.ms).toBeLessThan(BOUND_MS);
    expect(push.code, push.stdout).toBe(1);
    expect(push.stdout).toMatch(
      /^::error::neuron-perf-gate: .*could not push to the baseline branch/m,
    );
    expect(push.outputs.verdict).toBe('pass');
    expect(push.summary).toContain(
      "the baseline was not updated: could not push to the baseline branch 'perf-gate-data': no answer within 2.0 s: git was stopped.",
    );
    expect(await tip()).toBe(before);

    // Nothing answers: the gate stops before the benchmarks, saying why.
    const fetch = await run('hanging-fetch', { SIM_SEED: '13', HANG: 'all', ...LIMITS });
    expect(fetch.ms).toBeLessThan(BOUND_MS);
    expect(fetch.code).toBe(1);
    expect(fetch.outputs.verdict).toBe('error');
    expect(fetch.stdout).toContain(
      "::error::neuron-perf-gate: could not fetch the baseline branch 'perf-gate-data': no answer within 2.0 s: git was stopped. Check that the runner reaches the repository's remote",
    );
    expect(await tip()).toBe(before);

    // The remote's stuck processes were stopped with git.
    const started = (await readFile(pids, 'utf8')).trim().split('\n').map(Number);
    expect(started.length).toBeGreaterThan(1);
    for (const pid of started) expect(isAlive(pid), `remote process ${pid}`).toBe(false);
  }, 180_000);
});
