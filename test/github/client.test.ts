// The octokit the gate uses, against the loopback GitHub API: which failures it retries,
// how long it waits, and which it gives up on at once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createGitHubClient,
  GitHubPermissionError,
  isPermissionError,
  type GitHubClient,
} from '../../src/github/client.js';
import { MemoryLogger } from '../../src/log.js';
import {
  primaryRateLimit,
  secondaryRateLimit,
  serverError,
  startGitHubApi,
  type GitHubApi,
} from '../support/github-api.js';

const REPO = '/repos/{owner}/{repo}';
const UNIT_MS = 20;

let api: GitHubApi;
let log: MemoryLogger;
let octokit: GitHubClient;

beforeEach(async () => {
  api = await startGitHubApi();
  log = new MemoryLogger();
  octokit = client();
});

afterEach(async () => {
  expect(api.violations).toEqual([]);
  await api.close();
});

function client(
  options: { retries?: number; paceWrites?: boolean; waitUnitMs?: number } = {},
): GitHubClient {
  return createGitHubClient({
    token: 'ghs_client_test',
    baseUrl: api.url,
    log,
    waitUnitMs: UNIT_MS,
    paceWrites: false,
    ...options,
  });
}

function getRepo(): ReturnType<GitHubClient['rest']['repos']['get']> {
  return octokit.rest.repos.get({ owner: api.state.owner, repo: api.state.repo });
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
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.headers.authorization).toBe('token ghs_client_test');
    expect(api.requests[0]!.headers['user-agent']).toMatch(/^neuron-perf-gate\/\d/);
  });

  it('uses GITHUB_API_URL when no base URL is given', async () => {
    const saved = process.env.GITHUB_API_URL;
    process.env.GITHUB_API_URL = api.url;
    try {
      const fromEnv = createGitHubClient({ token: 't', paceWrites: false });
      await fromEnv.rest.repos.get({ owner: api.state.owner, repo: api.state.repo });
      expect(api.requests).toHaveLength(1);
    } finally {
      if (saved === undefined) delete process.env.GITHUB_API_URL;
      else process.env.GITHUB_API_URL = saved;
    }
  });

  it('retries a 502 and succeeds with the second request', async () => {
    api.failNext('GET', REPO, [serverError(502)]);
    const { status } = await getRepo();
    expect(status).toBe(200);
    expect(api.requests).toHaveLength(2);
  });

  it('gives up on a 5xx after the configured retries', async () => {
    octokit = client({ retries: 2 });
    api.failNext('GET', REPO, [serverError(502), serverError(503), serverError(504)]);
    expect(await statusOf(getRepo())).toBe(504);
    expect(api.requests).toHaveLength(3);
  });

  it('waits as long as retry-after says on a 429 secondary rate limit', async () => {
    api.failNext('GET', REPO, [secondaryRateLimit({ status: 429, retryAfter: 3 })]);
    const started = performance.now();
    await getRepo();
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * UNIT_MS);
    expect(api.requests).toHaveLength(2);
    expect(log.lines).toEqual([
      expect.stringMatching(
        /^warning: GitHub's secondary rate limit stopped GET .*retrying in 3 s/,
      ),
    ]);
  });

  it('retries a 403 secondary rate limit, waiting a minute when GitHub names no time', async () => {
    octokit = client({ waitUnitMs: 2 });
    api.failNext('GET', REPO, [secondaryRateLimit({ status: 403 })]);
    const started = performance.now();
    await getRepo();
    expect(performance.now() - started).toBeGreaterThanOrEqual(60 * 2);
    expect(api.requests).toHaveLength(2);
    expect(log.lines[0]).toMatch(/retrying in 60 s \(1 of 2\)/);
  });

  it('waits for a primary rate limit to reset', async () => {
    api.failNext('GET', REPO, [primaryRateLimit({ status: 429, resetInSeconds: 1 })]);
    await getRepo();
    expect(api.requests).toHaveLength(2);
    expect(log.lines[0]).toMatch(/primary rate limit stopped GET .*retrying in [12] s/);
  });

  it('gives up after two rate-limit waits', async () => {
    api.failNext('GET', REPO, [
      secondaryRateLimit({ retryAfter: 1 }),
      secondaryRateLimit({ retryAfter: 1 }),
      secondaryRateLimit({ retryAfter: 1 }),
    ]);
    expect(await statusOf(getRepo())).toBe(403);
    expect(api.requests).toHaveLength(3);
    expect(log.lines.at(-1)).toMatch(/giving up after 2 waits/);
  });

  it('does not sit out a primary rate limit that resets in an hour', async () => {
    api.failNext('GET', REPO, [primaryRateLimit({ resetInSeconds: 3600 })]);
    expect(await statusOf(getRepo())).toBe(403);
    expect(api.requests).toHaveLength(1);
    expect(log.lines[0]).toMatch(/too long to wait/);
  });

  it('does not retry a 404', async () => {
    const status = await statusOf(octokit.rest.repos.get({ owner: 'someone', repo: 'else' }));
    expect(status).toBe(404);
    expect(api.requests).toHaveLength(1);
  });

  it('spaces writes a second apart unless told not to', async () => {
    const sha = 'd'.repeat(40);
    const twoStatuses = async (github: GitHubClient) => {
      const started = performance.now();
      for (const state of ['pending', 'success'] as const) {
        await github.rest.repos.createCommitStatus({
          owner: api.state.owner,
          repo: api.state.repo,
          sha,
          state,
          context: 'perf',
        });
      }
      return performance.now() - started;
    };
    expect(await twoStatuses(client({ paceWrites: false }))).toBeLessThan(500);
    expect(await twoStatuses(client({ paceWrites: true }))).toBeGreaterThanOrEqual(900);
    expect(api.state.statuses).toHaveLength(4);
  });
});

describe('isPermissionError', () => {
  it('recognises a read-only token’s 403 and nothing else', async () => {
    api.state.readOnly = true;
    const pr = api.state.addPullRequest();
    const refused = await octokit.rest.issues
      .createComment({
        owner: api.state.owner,
        repo: api.state.repo,
        issue_number: pr.number,
        body: 'x',
      })
      .catch((error: unknown) => error);
    expect(isPermissionError(refused)).toBe(true);
    expect(api.requests).toHaveLength(1);

    const wrapped = new GitHubPermissionError(
      'Posting the comment',
      'pull-requests: write',
      refused,
    );
    expect(isPermissionError(wrapped)).toBe(true);
    expect(wrapped.message).toContain('Resource not accessible by integration');
    expect(wrapped.message).toContain('issues=write; pull_requests=write');

    const missing = await getRepo()
      .then(() => octokit.rest.repos.get({ owner: 'someone', repo: 'else' }))
      .catch((error: unknown) => error);
    expect(isPermissionError(missing)).toBe(false);

    const limit = secondaryRateLimit({ retryAfter: 1 });
    api.failNext('GET', REPO, [limit, limit, limit]);
    const limited = await getRepo().catch((error: unknown) => error);
    expect((limited as { status: number }).status).toBe(403);
    expect(isPermissionError(limited)).toBe(false);
    expect(isPermissionError(new Error('boom'))).toBe(false);
  });
});
