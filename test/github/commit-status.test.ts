// The gate's commit status against the loopback GitHub API, whose request bodies are checked
// against GitHub's OpenAPI description and which refuses descriptions over 140 characters.
import { describe, expect, it } from 'vitest';
import { setCommitStatus, statusDescription } from '../../src/github/commit-status.js';
import { isPermissionError } from '../../src/github/request-error.js';
import { useGitHubApi } from '../support/github-test.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';

const github = useGitHubApi();

function status(options: { description: string; targetUrl?: string; state?: 'success' }) {
  return setCommitStatus(github.octokit, {
    owner: github.api.state.owner,
    repo: github.api.state.repo,
    sha: SHA,
    state: options.state ?? 'success',
    description: options.description,
    context: 'neuron-perf-gate / llama-8b',
    ...(options.targetUrl ? { targetUrl: options.targetUrl } : {}),
  });
}

describe('setCommitStatus', () => {
  it('posts the state, description, context and link', async () => {
    const run = 'https://github.com/octo-org/inf2-bench/actions/runs/1';
    const result = await status({ description: 'no regression', targetUrl: run });
    expect(github.api.state.statuses).toEqual([
      expect.objectContaining({
        sha: SHA,
        state: 'success',
        description: 'no regression',
        context: 'neuron-perf-gate / llama-8b',
        targetUrl: run,
      }),
    ]);
    expect(result).toEqual({
      id: github.api.state.statuses[0]!.id,
      url: `${github.api.url}/repos/${github.api.state.owner}/${github.api.state.repo}/statuses/${SHA}`,
    });
    expect(github.api.requests[0]!.body).toEqual({
      state: 'success',
      description: 'no regression',
      context: 'neuron-perf-gate / llama-8b',
      target_url: run,
    });
  });

  it('leaves target_url out when there is no link', async () => {
    await status({ description: 'pending' });
    expect(Object.keys(github.api.requests[0]!.body as object).sort()).toEqual([
      'context',
      'description',
      'state',
    ]);
  });

  it('shortens a long description to the 140 characters GitHub takes', async () => {
    // GitHub (here: the loopback API) refuses 141 characters outright
    const refused = await github.octokit.rest.repos
      .createCommitStatus({
        owner: github.api.state.owner,
        repo: github.api.state.repo,
        sha: SHA,
        state: 'failure',
        description: 'x'.repeat(141),
      })
      .catch((error: unknown) => error);
    expect((refused as { status: number }).status).toBe(422);

    const long = 'throughput -12.3% (threshold 5%), latency_p99 +18% (threshold 15%); '.repeat(4);
    await status({ description: long });
    const stored = github.api.state.statuses[0]!.description!;
    expect(stored).toHaveLength(140);
    expect(stored.endsWith('…')).toBe(true);
    expect(long.startsWith(stored.slice(0, -1))).toBe(true);
  });

  it('is refused with a permission error for a read-only token', async () => {
    github.api.state.readOnly = true;
    const error = await status({ description: 'x' }).catch((e: unknown) => e);
    expect(isPermissionError(error)).toBe(true);
    expect(github.api.state.statuses).toEqual([]);
  });
});

describe('statusDescription', () => {
  it('keeps a short description as it is', () => {
    expect(statusDescription('2 regressions')).toBe('2 regressions');
    expect(statusDescription('x'.repeat(140))).toBe('x'.repeat(140));
  });

  it('puts the description on one line', () => {
    expect(statusDescription('  2 regressions:\n throughput\tmfu \n')).toBe(
      '2 regressions: throughput mfu',
    );
  });

  it('counts characters, never cutting an emoji in half', () => {
    const cut = statusDescription('🚀'.repeat(150));
    expect([...cut]).toHaveLength(140);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cut)).toBe(false); // no lone surrogate
    expect(cut).toBe(`${'🚀'.repeat(139)}…`);
  });

  it('does not leave a space before the ellipsis', () => {
    const cut = statusDescription(`${'a'.repeat(138)} bcd`);
    expect(cut).toBe(`${'a'.repeat(138)}…`);
  });
});
