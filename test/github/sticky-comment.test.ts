// The gate's sticky PR comment against the loopback GitHub API: found by its marker on any
// page, edited in place, created only when the policy allows, never duplicated.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  commentMarker,
  isPermissionError,
  upsertStickyComment,
  type StickyCommentOptions,
} from '../../src/github/sticky-comment.js';
import { serverError } from '../support/github-api.js';
import { useGitHubApi } from '../support/github-test.js';

const github = useGitHubApi();
let pr: number;

beforeEach(() => {
  pr = github.api.state.addPullRequest({ number: 42 }).number;
});

function upsert(options: Partial<StickyCommentOptions> = {}) {
  return upsertStickyComment(github.octokit, {
    owner: github.api.state.owner,
    repo: github.api.state.repo,
    issueNumber: pr,
    key: 'perf',
    body: '## Performance\nthroughput +1.2%',
    policy: 'always',
    changed: true,
    log: github.log,
    ...options,
  });
}

/** Requests of `method`, but not `GET /user` or GraphQL's `viewer`, which ask who the token is. */
function calls(method: string): string[] {
  return github.api.requests
    .filter((r) => r.method === method && r.path !== '/user' && r.path !== '/graphql')
    .map((r) => `${r.path}${r.query.size ? `?${r.query.toString()}` : ''}`);
}

const commentsPath = () =>
  `/repos/${github.api.state.owner}/${github.api.state.repo}/issues/${pr}/comments`;

describe('upsertStickyComment', () => {
  it('creates the comment, with the marker, when there is none', async () => {
    const outcome = await upsert();
    expect(github.api.state.comments).toHaveLength(1);
    const comment = github.api.state.comments[0]!;
    expect(outcome).toEqual({
      action: 'created',
      id: comment.id,
      url: `https://github.com/${github.api.state.owner}/${github.api.state.repo}/pull/${pr}#issuecomment-${comment.id}`,
    });
    expect(comment.body).toBe(`## Performance\nthroughput +1.2%\n\n${commentMarker('perf')}\n`);
    expect(comment.user).toBe('github-actions[bot]');
    expect(calls('GET')).toEqual([`${commentsPath()}?per_page=100`]);
    expect(github.api.requests.filter((r) => r.path === '/user')).toHaveLength(1);
    expect(github.log.lines).toEqual([`Posted the PR comment: ${outcome.url}`]);
  });

  it('updates the same comment on the next run instead of adding one', async () => {
    const first = await upsert();
    const second = await upsert({ body: '## Performance\nthroughput -7.0%' });
    expect(second).toMatchObject({ action: 'updated', id: first.id, url: first.url });
    expect(github.api.state.comments).toHaveLength(1);
    expect(github.api.state.comments[0]!.body).toContain('throughput -7.0%');
    expect(calls('POST')).toHaveLength(1);
    expect(calls('PATCH')).toEqual([
      `/repos/${github.api.state.owner}/${github.api.state.repo}/issues/comments/${first.id}`,
    ]);
  });

  it('leaves a comment that already says the same alone', async () => {
    const first = await upsert();
    const again = await upsert();
    expect(again).toMatchObject({ action: 'skipped', id: first.id, url: first.url });
    expect(calls('PATCH')).toEqual([]);
  });

  it('finds the marked comment on the second page, reading each page once', async () => {
    for (let i = 0; i < 150; i++) {
      github.api.state.addComment({
        issueNumber: pr,
        body: i === 120 ? `old figures\n\n${commentMarker('perf')}\n` : `chatter ${i}`,
        user: i % 2 ? 'octocat' : 'github-actions[bot]',
      });
    }
    const marked = github.api.state.commentsOn(pr)[120]!;
    const outcome = await upsert();
    expect(outcome).toMatchObject({ action: 'updated', id: marked.id });
    expect(marked.body).toContain('throughput +1.2%');
    expect(github.api.state.comments).toHaveLength(150);
    expect(calls('GET')).toEqual([
      `${commentsPath()}?per_page=100`,
      `${commentsPath()}?per_page=100&page=2`,
    ]);
  });

  it('updates the newest of the token’s own marked comments and deletes none', async () => {
    const marker = commentMarker('perf');
    const older = github.api.state.addComment({ issueNumber: pr, body: `one\n${marker}` });
    const newer = github.api.state.addComment({ issueNumber: pr, body: `two\n${marker}` });
    const quoted = github.api.state.addComment({
      issueNumber: pr,
      body: `> quoting the bot\n${marker}`,
      user: 'octocat',
    });
    const outcome = await upsert();
    expect(outcome.id).toBe(newer.id);
    expect(older.body).toBe(`one\n${marker}`);
    expect(quoted.body).toBe(`> quoting the bot\n${marker}`);
    expect(github.api.state.comments).toHaveLength(3);
  });

  it('never edits another author’s quote of the marker, or a marker inside their text', async () => {
    const marker = commentMarker('perf');
    const quoted = github.api.state.addComment({
      issueNumber: pr,
      body: `> old figures\n> ${marker}\n\nwhy did this regress?`,
      user: 'octocat',
    });
    const inside = github.api.state.addComment({
      issueNumber: pr,
      body: `the gate writes ${marker} at the end`,
      user: 'octocat',
    });
    const outcome = await upsert();
    expect(outcome.action).toBe('created');
    expect(quoted.body).toContain('why did this regress?');
    expect(inside.body).toBe(`the gate writes ${marker} at the end`);
    expect(github.api.state.comments).toHaveLength(3);
  });

  it("never edits another login's comment, even one that ends with the marker", async () => {
    const marker = commentMarker('perf');
    const copied = github.api.state.addComment({
      issueNumber: pr,
      body: `Looks fine to me!\n\n${marker}`,
      user: 'mallory',
    });
    const outcome = await upsert();
    expect(outcome.action).toBe('created');
    expect(outcome.id).not.toBe(copied.id);
    expect(github.api.state.comments[0]!.body).toBe(`Looks fine to me!\n\n${marker}`);
    expect(calls('PATCH')).toEqual([]);
  });

  it('edits the comment of a personal token, whose login GET /user gives', async () => {
    github.api.state.actor = 'perf-bot';
    const marker = commentMarker('perf');
    const byPat = github.api.state.addComment({ issueNumber: pr, body: `x\n${marker}` });
    github.api.state.addComment({ issueNumber: pr, body: `y\n${marker}`, user: 'mallory' });
    expect(await upsert()).toMatchObject({ action: 'updated', id: byPat.id });
  });

  it('posts a new comment when its own cannot be edited, without calling it a permission problem', async () => {
    const first = await upsert();
    github.api.failNext('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', [
      { status: 403, body: { message: 'Resource not accessible by integration' } },
    ]);
    const second = await upsert({ body: 'changed' });
    expect(second.action).toBe('created');
    expect(second.id).not.toBe(first.id);
  });

  it('keeps one comment per key, so matrix jobs do not overwrite each other', async () => {
    const a = await upsert({ key: 'job-a', body: 'A1' });
    const b = await upsert({ key: 'job-b', body: 'B1' });
    await upsert({ key: 'job-a', body: 'A2' });
    expect(a.id).not.toBe(b.id);
    expect(github.api.state.comments.map((c) => c.body.split('\n')[0])).toEqual(['A2', 'B1']);
  });

  describe('policy', () => {
    it('on-change without a change and without a comment writes nothing', async () => {
      const outcome = await upsert({ policy: 'on-change', changed: false });
      expect(outcome).toEqual({
        action: 'skipped',
        reason: 'nothing changed and there is no comment to update',
      });
      expect(calls('POST')).toEqual([]);
      expect(github.api.state.comments).toEqual([]);
    });

    it('on-change without a change still updates an existing comment', async () => {
      const first = await upsert();
      const outcome = await upsert({ policy: 'on-change', changed: false, body: 'new run link' });
      expect(outcome).toMatchObject({ action: 'updated', id: first.id });
      expect(github.api.state.comments[0]!.body).toContain('new run link');
    });

    it('on-change with a change creates the comment', async () => {
      expect((await upsert({ policy: 'on-change', changed: true })).action).toBe('created');
    });

    it('never sends no request at all', async () => {
      github.api.state.addComment({ issueNumber: pr, body: `x\n${commentMarker('perf')}` });
      const outcome = await upsert({ policy: 'never' });
      expect(outcome).toEqual({ action: 'skipped', reason: 'the comment policy is "never"' });
      expect(github.api.requests).toEqual([]);
    });
  });

  describe('failures', () => {
    it('retries a 502 from GitHub and ends with one comment', async () => {
      github.api.failNext('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', [
        serverError(502),
      ]);
      const outcome = await upsert();
      expect(outcome.action).toBe('created');
      expect(calls('POST')).toHaveLength(2);
      expect(github.api.state.comments).toHaveLength(1);
    });

    it('throws an error the caller recognises when the token is read-only', async () => {
      github.api.state.readOnly = true;
      const error = await upsert().catch((e: unknown) => e);
      expect(isPermissionError(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /Posting the PR comment failed: GitHub answered 403/,
      );
      expect((error as Error).message).toMatch(/permissions: pull-requests: write/);
      expect(calls('POST')).toHaveLength(1);
      expect(github.api.state.comments).toEqual([]);
    });

    it('recognises a refused update and post too', async () => {
      await upsert();
      github.api.state.readOnly = true;
      const error = await upsert({ body: 'changed' }).catch((e: unknown) => e);
      expect(isPermissionError(error)).toBe(true);
      expect((error as Error).message).toMatch(/^Posting the PR comment failed/);
    });

    it('does not hide other errors', async () => {
      const error = await upsert({ issueNumber: 999 }).catch((e: unknown) => e);
      expect((error as { status?: number }).status).toBe(404);
      expect(isPermissionError(error)).toBe(false);
    });

    it('refuses a body over 65,536 characters before sending anything', async () => {
      await expect(upsert({ body: 'x'.repeat(65_536) })).rejects.toThrow(
        /GitHub takes at most 65536/,
      );
      expect(github.api.requests).toEqual([]);
    });
  });
});

describe('commentMarker', () => {
  it('is a hidden HTML comment that a key cannot end early', () => {
    expect(commentMarker('perf')).toBe('<!-- neuron-perf-gate:comment:perf -->');
    const marker = commentMarker('a --> <b> c');
    expect(marker).toBe('<!-- neuron-perf-gate:comment:a-b-c -->');
    expect(marker.indexOf('-->')).toBe(marker.length - 3);
    expect(commentMarker('-->')).toBe('<!-- neuron-perf-gate:comment:default -->');
  });

  it('does not let one key’s marker match another’s', () => {
    expect(commentMarker('abcd').includes(commentMarker('abc'))).toBe(false);
  });
});
