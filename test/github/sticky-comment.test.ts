// The gate's sticky PR comment against the loopback GitHub API: found by its marker on any
// page, edited in place, created only when the policy allows, never duplicated.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubClient, type GitHubClient } from '../../src/github/client.js';
import {
  commentKey,
  commentMarker,
  isPermissionError,
  upsertStickyComment,
  type StickyCommentOptions,
} from '../../src/github/sticky-comment.js';
import { MemoryLogger } from '../../src/log.js';
import { serverError, startGitHubApi, type GitHubApi } from '../support/github-api.js';

let api: GitHubApi;
let octokit: GitHubClient;
let log: MemoryLogger;
let pr: number;

beforeEach(async () => {
  api = await startGitHubApi();
  log = new MemoryLogger();
  octokit = createGitHubClient({
    token: 'ghs_sticky',
    baseUrl: api.url,
    log,
    waitUnitMs: 1,
    paceWrites: false,
  });
  pr = api.state.addPullRequest({ number: 42 }).number;
});

afterEach(async () => {
  expect(api.violations).toEqual([]);
  await api.close();
});

function upsert(options: Partial<StickyCommentOptions> = {}) {
  return upsertStickyComment(octokit, {
    owner: api.state.owner,
    repo: api.state.repo,
    issueNumber: pr,
    key: 'perf',
    body: '## Performance\nthroughput +1.2%',
    policy: 'always',
    changed: true,
    log,
    ...options,
  });
}

function calls(method: string): string[] {
  return api.requests
    .filter((r) => r.method === method)
    .map((r) => `${r.path}${r.query.size ? `?${r.query.toString()}` : ''}`);
}

const commentsPath = () => `/repos/${api.state.owner}/${api.state.repo}/issues/${pr}/comments`;

describe('upsertStickyComment', () => {
  it('creates the comment, with the marker, when there is none', async () => {
    const outcome = await upsert();
    expect(api.state.comments).toHaveLength(1);
    const comment = api.state.comments[0]!;
    expect(outcome).toEqual({
      action: 'created',
      id: comment.id,
      url: `https://github.com/${api.state.owner}/${api.state.repo}/pull/${pr}#issuecomment-${comment.id}`,
    });
    expect(comment.body).toBe(`## Performance\nthroughput +1.2%\n\n${commentMarker('perf')}\n`);
    expect(comment.user).toBe('github-actions[bot]');
    expect(calls('GET')).toEqual([`${commentsPath()}?per_page=100`]);
    expect(log.lines).toEqual([`Posted the PR comment: ${outcome.url}`]);
  });

  it('updates the same comment on the next run instead of adding one', async () => {
    const first = await upsert();
    const second = await upsert({ body: '## Performance\nthroughput -7.0%' });
    expect(second).toMatchObject({ action: 'updated', id: first.id, url: first.url });
    expect(api.state.comments).toHaveLength(1);
    expect(api.state.comments[0]!.body).toContain('throughput -7.0%');
    expect(calls('POST')).toHaveLength(1);
    expect(calls('PATCH')).toEqual([
      `/repos/${api.state.owner}/${api.state.repo}/issues/comments/${first.id}`,
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
      api.state.addComment({
        issueNumber: pr,
        body: i === 120 ? `old figures\n\n${commentMarker('perf')}\n` : `chatter ${i}`,
        user: i % 2 ? 'octocat' : 'github-actions[bot]',
      });
    }
    const marked = api.state.commentsOn(pr)[120]!;
    const outcome = await upsert();
    expect(outcome).toMatchObject({ action: 'updated', id: marked.id });
    expect(marked.body).toContain('throughput +1.2%');
    expect(api.state.comments).toHaveLength(150);
    expect(calls('GET')).toEqual([
      `${commentsPath()}?per_page=100`,
      `${commentsPath()}?per_page=100&page=2`,
    ]);
  });

  it('updates the newest of the token’s own marked comments and deletes none', async () => {
    const marker = commentMarker('perf');
    const older = api.state.addComment({ issueNumber: pr, body: `one\n${marker}` });
    const newer = api.state.addComment({ issueNumber: pr, body: `two\n${marker}` });
    const quoted = api.state.addComment({
      issueNumber: pr,
      body: `> quoting the bot\n${marker}`,
      user: 'octocat',
    });
    const outcome = await upsert();
    expect(outcome.id).toBe(newer.id);
    expect(older.body).toBe(`one\n${marker}`);
    expect(quoted.body).toBe(`> quoting the bot\n${marker}`);
    expect(api.state.comments).toHaveLength(3);
  });

  it('edits a marked comment by another login when it is the only one', async () => {
    const marker = commentMarker('perf');
    const byPat = api.state.addComment({ issueNumber: pr, body: `x\n${marker}`, user: 'perf-bot' });
    expect((await upsert()).id).toBe(byPat.id);
  });

  it('keeps one comment per key, so matrix jobs do not overwrite each other', async () => {
    const a = await upsert({ key: 'job-a', body: 'A1' });
    const b = await upsert({ key: 'job-b', body: 'B1' });
    await upsert({ key: 'job-a', body: 'A2' });
    expect(a.id).not.toBe(b.id);
    expect(api.state.comments.map((c) => c.body.split('\n')[0])).toEqual(['A2', 'B1']);
  });

  describe('policy', () => {
    it('on-change without a change and without a comment writes nothing', async () => {
      const outcome = await upsert({ policy: 'on-change', changed: false });
      expect(outcome).toEqual({
        action: 'skipped',
        reason: 'nothing changed and there is no comment to update',
      });
      expect(calls('POST')).toEqual([]);
      expect(api.state.comments).toEqual([]);
    });

    it('on-change without a change still updates an existing comment', async () => {
      const first = await upsert();
      const outcome = await upsert({ policy: 'on-change', changed: false, body: 'new run link' });
      expect(outcome).toMatchObject({ action: 'updated', id: first.id });
      expect(api.state.comments[0]!.body).toContain('new run link');
    });

    it('on-change with a change creates the comment', async () => {
      expect((await upsert({ policy: 'on-change', changed: true })).action).toBe('created');
    });

    it('never sends no request at all', async () => {
      api.state.addComment({ issueNumber: pr, body: `x\n${commentMarker('perf')}` });
      const outcome = await upsert({ policy: 'never' });
      expect(outcome).toEqual({ action: 'skipped', reason: 'the comment policy is "never"' });
      expect(api.requests).toEqual([]);
    });
  });

  describe('failures', () => {
    it('retries a 502 from GitHub and ends with one comment', async () => {
      api.failNext('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', [
        serverError(502),
      ]);
      const outcome = await upsert();
      expect(outcome.action).toBe('created');
      expect(calls('POST')).toHaveLength(2);
      expect(api.state.comments).toHaveLength(1);
    });

    it('throws an error the caller recognises when the token is read-only', async () => {
      api.state.readOnly = true;
      const error = await upsert().catch((e: unknown) => e);
      expect(isPermissionError(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /Posting the PR comment failed: GitHub answered 403/,
      );
      expect((error as Error).message).toMatch(/permissions: pull-requests: write/);
      expect(calls('POST')).toHaveLength(1);
      expect(api.state.comments).toEqual([]);
    });

    it('recognises a refused update too', async () => {
      await upsert();
      api.state.readOnly = true;
      const error = await upsert({ body: 'changed' }).catch((e: unknown) => e);
      expect(isPermissionError(error)).toBe(true);
      expect((error as Error).message).toMatch(/^Updating the PR comment failed/);
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
      expect(api.requests).toEqual([]);
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

describe('commentKey', () => {
  const parts = { workflow: 'perf', job: 'gate', config: '.github/perf-gate.yml' };

  it('uses the explicit key when there is one', () => {
    expect(commentKey({ ...parts, explicit: ' llama-8b ' })).toBe('llama-8b');
    expect(commentKey({ ...parts, explicit: '  ' })).toMatch(/^[0-9a-f]{12}$/);
  });

  it('is a short hash that stays the same run after run', () => {
    const key = commentKey(parts);
    expect(key).toMatch(/^[0-9a-f]{12}$/);
    expect(commentKey({ ...parts })).toBe(key);
    expect(commentKey({ ...parts, job: 'gate-2' })).not.toBe(key);
    expect(commentKey({ ...parts, workflow: 'nightly' })).not.toBe(key);
    expect(commentKey({ ...parts, config: 'other.yml' })).not.toBe(key);
  });

  it('gives each matrix job its own key, whatever the JSON’s layout', () => {
    const tp2 = commentKey({ ...parts, matrix: '{\n  "model": "llama", "tp": 2\n}' });
    expect(commentKey({ ...parts, matrix: '{"tp":2,"model":"llama"}' })).toBe(tp2);
    expect(commentKey({ ...parts, matrix: { tp: 2, model: 'llama' } })).toBe(tp2);
    expect(commentKey({ ...parts, matrix: '{"tp":8,"model":"llama"}' })).not.toBe(tp2);
    expect(tp2).not.toBe(commentKey(parts));
  });

  it('treats the matrix of a job outside a matrix as no matrix', () => {
    const key = commentKey(parts);
    for (const matrix of ['null', '', '{}', null, undefined]) {
      expect(commentKey({ ...parts, matrix })).toBe(key);
    }
  });
});
