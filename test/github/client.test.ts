// The octokit the gate uses, against the loopback GitHub API: which failures it retries,
// how long it waits, and which it gives up on at once.
import { describe, expect, it } from 'vitest';
import { createGitHubClient, type GitHubClient } from '../../src/github/client.js';
import { GitHubPermissionError, isPermissionError } from '../../src/github/request-error.js';
import { primaryRateLimit, secondaryRateLimit, serverError } from '../support/github-api.js';
import { useGitHubApi } from '../support/github-test.js';
import { startHangingServer, type HangingServer } from '../support/hanging-server.js';
import { Deadline, DeadlineError } from '../../src/net/deadline.js';

const REPO = '/repos/{owner}/{repo}';
const UNIT_MS = 20;

const github = useGitHubApi({ client: { token: 'ghs_client_test', waitUnitMs: UNIT_MS } });

function getRepo(octokit = github.octokit): ReturnType<GitHubClient['rest']['repos']['get']> {
  return octokit.rest.repos.get({ owner: github.api.state.owner, repo: github.api.state.repo });
}

async function statusOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { status?: number }).status;
  }
}

describe('createGitHubClient', () => {
  it('sends the token and the gate’s user agent to the given base URL', async () => {
    const { data } = await getRepo();
    expect(data.default_branch).toBe('main');
    expect(github.api.requests).toHaveLength(1);
    expect(github.api.requests[0]!.headers.authorization).toBe('token ghs_client_test');
    expect(github.api.requests[0]!.headers['user-agent']).toMatch(/^neuron-perf-gate\/\d/);
  });

  it('uses GITHUB_API_URL when no base URL is given', async () => {
    const saved = process.env.GITHUB_API_URL;
    process.env.GITHUB_API_URL = github.api.url;
    try {
      const fromEnv = createGitHubClient({ token: 't', paceWrites: false });
      await fromEnv.rest.repos.get({ owner: github.api.state.owner, repo: github.api.state.repo });
      expect(github.api.requests).toHaveLength(1);
    } finally {
      if (saved === undefined) delete process.env.GITHUB_API_URL;
      else process.env.GITHUB_API_URL = saved;
    }
  });

  it('retries a 502 and succeeds with the second request', async () => {
    github.api.failNext('GET', REPO, [serverError(502)]);
    const { status } = await getRepo();
    expect(status).toBe(200);
    expect(github.api.requests).toHaveLength(2);
  });

  it('gives up on a 5xx after the configured retries', async () => {
    github.api.failNext('GET', REPO, [serverError(502), serverError(503), serverError(504)]);
    expect(await statusOf(getRepo(github.client({ retries: 2 })))).toBe(504);
    expect(github.api.requests).toHaveLength(3);
  });

  it('waits as long as retry-after says on a 429 secondary rate limit', async () => {
    github.api.failNext('GET', REPO, [secondaryRateLimit({ status: 429, retryAfter: 3 })]);
    const started = performance.now();
    await getRepo();
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * UNIT_MS);
    expect(github.api.requests).toHaveLength(2);
    expect(github.log.lines).toEqual([
      expect.stringMatching(
        /^warning: GitHub's secondary rate limit stopped GET .*retrying in 3 s/,
      ),
    ]);
  });

  it('retries a 403 secondary rate limit, waiting a minute when GitHub names no time', async () => {
    github.api.failNext('GET', REPO, [secondaryRateLimit({ status: 403 })]);
    const started = performance.now();
    await getRepo(github.client({ waitUnitMs: 2 }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(60 * 2);
    expect(github.api.requests).toHaveLength(2);
    expect(github.log.lines[0]).toMatch(/retrying in 60 s \(1 of 2\)/);
  });

  it('waits for a primary rate limit to reset', async () => {
    github.api.failNext('GET', REPO, [primaryRateLimit({ status: 429, resetInSeconds: 1 })]);
    await getRepo();
    expect(github.api.requests).toHaveLength(2);
    expect(github.log.lines[0]).toMatch(/primary rate limit stopped GET .*retrying in [12] s/);
  });

  it('gives up after two rate-limit waits', async () => {
    github.api.failNext('GET', REPO, [
      secondaryRateLimit({ retryAfter: 1 }),
      secondaryRateLimit({ retryAfter: 1 }),
      secondaryRateLimit({ retryAfter: 1 }),
    ]);
    expect(await statusOf(getRepo())).toBe(403);
    expect(github.api.requests).toHaveLength(3);
    expect(github.log.lines.at(-1)).toMatch(/giving up after 2 waits/);
  });

  it('does not sit out a primary rate limit that resets in an hour', async () => {
    github.api.failNext('GET', REPO, [primaryRateLimit({ resetInSeconds: 3600 })]);
    expect(await statusOf(getRepo())).toBe(403);
    expect(github.api.requests).toHaveLength(1);
    expect(github.log.lines[0]).toMatch(/too long to wait/);
  });

  it('does not retry a 404', async () => {
    const status = await statusOf(
      github.octokit.rest.repos.get({ owner: 'someone', repo: 'else' }),
    );
    expect(status).toBe(404);
    expect(github.api.requests).toHaveLength(1);
  });

  it('spaces writes a second apart unless told not to', async () => {
    const sha = 'd'.repeat(40);
    const twoStatuses = async (octokit: GitHubClient) => {
      const started = performance.now();
      for (const state of ['pending', 'success'] as const) {
        await octokit.rest.repos.createCommitStatus({
          owner: github.api.state.owner,
          repo: github.api.state.repo,
          sha,
          state,
          context: 'perf',
        });
      }
      return performance.now() - started;
    };
    // Unpaced, two local requests: tens of ms at rest, and well under the 1 s gap that tells
    // a paced pair on a loaded host too (a timer is never early, so the bound below holds).
    expect(await twoStatuses(github.client({ paceWrites: false }))).toBeLessThan(900);
    expect(await twoStatuses(github.client({ paceWrites: true }))).toBeGreaterThanOrEqual(900);
    expect(github.api.state.statuses).toHaveLength(4);
  });
});

describe('isPermissionError', () => {
  it('recognises a read-only token’s 403 and nothing else', async () => {
    github.api.state.readOnly = true;
    const pr = github.api.state.addPullRequest();
    const refused = await github.octokit.rest.issues
      .createComment({
        owner: github.api.state.owner,
        repo: github.api.state.repo,
        issue_number: pr.number,
        body: 'x',
      })
      .catch((error: unknown) => error);
    expect(isPermissionError(refused)).toBe(true);
    expect(github.api.requests).toHaveLength(1);

    const wrapped = new GitHubPermissionError(
      'Posting the comment',
      'pull-requests: write',
      refused,
    );
    expect(isPermissionError(wrapped)).toBe(true);
    expect(wrapped.message).toContain('Resource not accessible by integration');
    expect(wrapped.message).toContain('issues=write; pull_requests=write');

    const missing = await getRepo()
      .then(() => github.octokit.rest.repos.get({ owner: 'someone', repo: 'else' }))
      .catch((error: unknown) => error);
    expect(isPermissionError(missing)).toBe(false);

    const limit = secondaryRateLimit({ retryAfter: 1 });
    github.api.failNext('GET', REPO, [limit, limit, limit]);
    const limited = await getRepo().catch((error: unknown) => error);
    expect((limited as { status: number }).status).toBe(403);
    expect(isPermissionError(limited)).toBe(false);
    expect(isPermissionError(new Error('boom'))).toBe(false);
  });
});

describe('a GitHub that accepts and never answers', () => {
  async function hanging<T>(use: (server: HangingServer) => Promise<T>): Promise<T> {
    const server = await startHangingServer();
    try {
      return await use(server);
    } finally {
      await server.close();
    }
  }

  it('fails each attempt after its time limit, retries, then gives a clear error', async () => {
    await hanging(async (server) => {
      const octokit = createGitHubClient({
        token: 't',
        baseUrl: server.url,
        // Long enough for a busy host to get each request to the server (counted below).
        timeoutMs: 2_000,
        waitUnitMs: UNIT_MS,
        paceWrites: false,
      });
      // 4 attempts of 2 s and the back-off (1 + 4 + 9 units); fetch's own 5 min would pass
      // the test's timeout (no bound on the time taken).
      const error = (await getRepo(octokit).catch((e: unknown) => e)) as Error;
      expect(error.message).toBe('GitHub did not answer GET /repos/{owner}/{repo} within 2.0 s');
      expect((error as { status?: number }).status).toBe(500);
      expect(server.requests).toBe(4);
    });
  }, 30_000);

  it('stops a request under way when the deadline passes, and sends no more', async () => {
    await hanging(async (server) => {
      const deadline = new Deadline('publishing');
      const octokit = createGitHubClient({
        token: 't',
        baseUrl: server.url,
        timeoutMs: 60_000,
        waitUnitMs: UNIT_MS,
        paceWrites: false,
        deadline,
      });
      // Long enough for a busy host to get the request to the server (counted below).
      deadline.start(3_000);
      const error = (await getRepo(octokit).catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(DeadlineError);
      expect(error.message).toBe(
        'GitHub request GET /repos/{owner}/{repo}: publishing ran out of its 3.0 s bound, so the gate stopped waiting for the network',
      );
      expect(server.requests).toBe(1);
      // Refused at once now, without a connection.
      const refused = (await getRepo(octokit).catch((e: unknown) => e)) as Error;
      expect(refused.message).toMatch(
        /^GitHub request GET \/repos\/\{owner\}\/\{repo\} not sent: publishing ran out/,
      );
      expect(server.requests).toBe(1);
    });
  }, 30_000);
});
