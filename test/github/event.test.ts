import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decideBaselineUpdate } from '../../src/baseline/update.js';
import { describe, expect, it } from 'vitest';
import {
  carriesPullRequest,
  checkForkSafety,
  classifyEvent,
  parseGitHubContext,
  readGitHubContext,
  type GitHubContext,
} from '../../src/github/event.js';

const fixtures = fileURLToPath(new URL('../fixtures/github-events/', import.meta.url));

/** The variables the runner sets for a job, as on github.com. */
function jobEnv(eventName: string, fixture: string | undefined, ref: string): NodeJS.ProcessEnv {
  return {
    GITHUB_EVENT_NAME: eventName,
    ...(fixture ? { GITHUB_EVENT_PATH: join(fixtures, fixture) } : {}),
    GITHUB_REPOSITORY: 'acme-ml/llm-serving',
    GITHUB_REF: ref,
    GITHUB_SHA: '5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d',
    GITHUB_RUN_ID: '8812399999',
    GITHUB_RUN_ATTEMPT: '2',
    GITHUB_WORKFLOW: 'perf',
    GITHUB_JOB: 'gate',
    GITHUB_ACTOR: 'dev-a',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'https://api.github.com',
  };
}

function contextOf(eventName: string, fixture: string | undefined, ref: string): GitHubContext {
  return readGitHubContext(jobEnv(eventName, fixture, ref));
}

const compareOthers = { otherEvents: 'compare' } as const;

describe('readGitHubContext', () => {
  it('reads a same-repository pull request', () => {
    const ctx = contextOf('pull_request', 'pull_request-same-repo.json', 'refs/pull/12/merge');
    expect(ctx).toMatchObject({
      eventName: 'pull_request',
      repository: { owner: 'acme-ml', repo: 'llm-serving' },
      defaultBranch: 'main',
      ref: 'refs/pull/12/merge',
      runId: 8812399999,
      runAttempt: 2,
      workflow: 'perf',
      job: 'gate',
      actor: 'dev-a',
      serverUrl: 'https://github.com',
      apiUrl: 'https://api.github.com',
    });
    expect(ctx.pullRequest).toEqual({
      number: 12,
      headSha: '3f5a9c1e7b2d4f6a8c0e1b3d5f7a9c1e3b5d7f9a',
      headRepo: 'acme-ml/llm-serving',
      baseRepo: 'acme-ml/llm-serving',
      baseRef: 'main',
      isFork: false,
    });
    expect(ctx.workflowRun).toBeUndefined();
  });

  it('marks a pull request from another repository as a fork', () => {
    const ctx = contextOf('pull_request', 'pull_request-fork.json', 'refs/pull/31/merge');
    expect(ctx.pullRequest).toMatchObject({
      number: 31,
      headRepo: 'outside-dev/llm-serving',
      baseRepo: 'acme-ml/llm-serving',
      isFork: true,
    });
  });

  it('takes the branch name from the ref when GITHUB_REF_NAME is not set', () => {
    const ctx = contextOf('push', 'push-feature.json', 'refs/heads/faster-decode');
    expect(ctx.refName).toBe('faster-decode');
    expect(ctx.defaultBranch).toBe('main');
    expect(ctx.pullRequest).toBeUndefined();
  });

  it('reads a completed workflow_run, keeping only pull requests into this repository', () => {
    const ctx = contextOf('workflow_run', 'workflow_run-completed.json', 'refs/heads/main');
    expect(ctx.workflowRun).toEqual({
      id: 8812345678,
      headSha: '3f5a9c1e7b2d4f6a8c0e1b3d5f7a9c1e3b5d7f9a',
      headBranch: 'faster-decode',
      // #5 of other-org/llm-serving shares the branch name; it is not this run's.
      pullRequests: [12],
      headRepo: 'acme-ml/llm-serving',
      event: 'pull_request',
      conclusion: 'failure',
    });
  });

  it("reads a fork's workflow_run, whose pull_requests GitHub leaves empty", () => {
    const ctx = contextOf('workflow_run', 'workflow_run-fork.json', 'refs/heads/main');
    expect(ctx.workflowRun).toMatchObject({
      pullRequests: [],
      headRepo: 'outside-dev/llm-serving',
      headBranch: 'main',
    });
  });

  it('tolerates a missing event file: payload fields are absent', () => {
    const env = jobEnv('push', undefined, 'refs/heads/main');
    env.GITHUB_EVENT_PATH = join(tmpdir(), 'no-such-dir-perf-gate', 'event.json');
    const ctx = readGitHubContext(env);
    expect(ctx.defaultBranch).toBeUndefined();
    expect(ctx.pullRequest).toBeUndefined();
    expect(ctx.repository).toEqual({ owner: 'acme-ml', repo: 'llm-serving' });
  });

  it('names the file when the payload is not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perf-gate-event-'));
    const path = join(dir, 'event.json');
    writeFileSync(path, '{"ref": "refs/heads/main",');
    const env = { ...jobEnv('push', undefined, 'refs/heads/main'), GITHUB_EVENT_PATH: path };
    expect(() => readGitHubContext(env)).toThrow(path);
    expect(() => readGitHubContext(env)).toThrow(/not valid JSON/);
  });

  it('refuses a payload that is JSON but not an object', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perf-gate-event-'));
    const path = join(dir, 'event.json');
    writeFileSync(path, '[1, 2]');
    const env = { ...jobEnv('push', undefined, 'refs/heads/main'), GITHUB_EVENT_PATH: path };
    expect(() => readGitHubContext(env)).toThrow(/not a JSON object/);
  });

  it('explains a missing GITHUB_REPOSITORY', () => {
    const env = jobEnv('push', undefined, 'refs/heads/main');
    delete env.GITHUB_REPOSITORY;
    expect(() => readGitHubContext(env)).toThrow(/GITHUB_REPOSITORY is not set/);
  });

  it('derives the API URL of a GitHub Enterprise Server', () => {
    const env = jobEnv('push', undefined, 'refs/heads/main');
    env.GITHUB_SERVER_URL = 'https://ghe.example.com/';
    delete env.GITHUB_API_URL;
    expect(readGitHubContext(env)).toMatchObject({
      serverUrl: 'https://ghe.example.com',
      apiUrl: 'https://ghe.example.com/api/v3',
    });
  });
});

describe('carriesPullRequest', () => {
  it.each([
    ['pull_request', {}, true],
    ['pull_request_review', {}, true],
    ['pull_request_review_comment', {}, true],
    ['merge_group', {}, true],
    ['issue_comment', { issue: { number: 4, pull_request: { url: 'x' } } }, true],
    ['issue_comment', { issue: { number: 4 } }, false],
    ['workflow_run', { workflow_run: { event: 'pull_request', pull_requests: [] } }, true],
    ['workflow_run', { workflow_run: { event: 'push', pull_requests: [{ number: 3 }] } }, true],
    ['workflow_run', { workflow_run: { event: 'push', pull_requests: [] } }, false],
    ['workflow_dispatch', { pull_request: { number: 9 } }, true],
    ['push', { ref: 'refs/heads/main' }, false],
    ['schedule', {}, false],
  ] as const)('%s %j: %s', (name, payload, expected) => {
    expect(carriesPullRequest(name, payload as Record<string, unknown>)).toBe(expected);
    expect(
      parseGitHubContext(
        { GITHUB_EVENT_NAME: name, GITHUB_REPOSITORY: 'octo/inference' },
        payload as Record<string, unknown>,
      ),
    ).toMatchObject({ carriesPullRequest: expected });
  });
});

describe('classifyEvent', () => {
  it('compares and comments on a pull request, never updating the baseline', () => {
    const ctx = contextOf('pull_request', 'pull_request-same-repo.json', 'refs/pull/12/merge');
    const verdict = classifyEvent(ctx, compareOthers);
    expect(verdict).toMatchObject({
      kind: 'pull-request',
      compare: true,
      comment: true,
    });
    expect(verdict.reason).toContain('#12 into main');
  });

  it('treats pull_request_target like pull_request', () => {
    const ctx = contextOf('pull_request_target', 'pull_request-fork.json', 'refs/heads/main');
    expect(classifyEvent(ctx, compareOthers)).toMatchObject({
      kind: 'pull-request',
      comment: true,
    });
  });

  it('lets a push to the default branch update the baseline, without a comment', () => {
    const ctx = contextOf('push', 'push-main.json', 'refs/heads/main');
    expect(classifyEvent(ctx, compareOthers)).toMatchObject({
      kind: 'default-branch',
      compare: true,
      comment: false,
    });
  });

  it('follows other-events for a push to a feature branch, never updating', () => {
    const ctx = contextOf('push', 'push-feature.json', 'refs/heads/faster-decode');
    expect(classifyEvent(ctx, compareOthers)).toMatchObject({
      kind: 'other',
      compare: true,
      comment: false,
    });
    const skipped = classifyEvent(ctx, { otherEvents: 'skip' });
    expect(skipped).toMatchObject({ kind: 'skip', compare: false });
    expect(skipped.reason).toContain('faster-decode');
  });

  it('lets a scheduled run update the baseline although its payload names no branch', () => {
    const ctx = contextOf('schedule', 'schedule.json', 'refs/heads/main');
    expect(ctx.defaultBranch).toBeUndefined();
    expect(classifyEvent(ctx, compareOthers)).toMatchObject({
      kind: 'schedule',
      compare: true,
      comment: false,
    });
  });

  it('lets a manual run update the baseline only on the default branch', () => {
    const onMain = contextOf('workflow_dispatch', 'workflow_dispatch-main.json', 'refs/heads/main');
    expect(classifyEvent(onMain, compareOthers)).toMatchObject({
      kind: 'dispatch',
      compare: true,
    });
    const onBranch = contextOf(
      'workflow_dispatch',
      'workflow_dispatch-branch.json',
      'refs/heads/faster-decode',
    );
    const verdict = classifyEvent(onBranch, compareOthers);
    expect(verdict).toMatchObject({ kind: 'dispatch', compare: true });
    expect(verdict.reason).toContain('not the default branch main');
  });

  it('does not update the baseline from a manual run when the default branch is unknown', () => {
    const ctx = contextOf('workflow_dispatch', undefined, 'refs/heads/main');
    expect(classifyEvent(ctx, compareOthers).reason).toContain('does not say which branch');
    const decision = decideBaselineUpdate(
      'auto',
      { name: 'workflow_dispatch', branch: 'main' },
      { verdict: 'pass' },
    );
    expect(decision.write).toBe(false);
  });

  it('follows other-events for events it has no rule for', () => {
    const ctx = contextOf('workflow_run', 'workflow_run-completed.json', 'refs/heads/main');
    expect(classifyEvent(ctx, compareOthers).kind).toBe('other');
    expect(classifyEvent(ctx, { otherEvents: 'skip' })).toMatchObject({
      kind: 'skip',
      compare: false,
      comment: false,
    });
  });
});

describe('checkForkSafety', () => {
  it('lets a same-repository pull request run', () => {
    const ctx = contextOf('pull_request', 'pull_request-same-repo.json', 'refs/pull/12/merge');
    expect(checkForkSafety(ctx, { allowForkPrs: false })).toBeUndefined();
  });

  it('refuses a fork pull request, explaining the risk and the two-stage setup', () => {
    const ctx = contextOf('pull_request', 'pull_request-fork.json', 'refs/pull/31/merge');
    const message = checkForkSafety(ctx, { allowForkPrs: false });
    expect(message).toContain('#31');
    expect(message).toContain('outside-dev/llm-serving');
    expect(message).toContain('self-hosted');
    expect(message).toContain('mode: comment');
    expect(message).toContain('workflow_run');
    expect(message).toContain('Pull requests from forks');
    expect(message).toContain('allow-fork-prs');
  });

  it('lets a fork pull request run when allow-fork-prs is true', () => {
    const ctx = contextOf('pull_request', 'pull_request-fork.json', 'refs/pull/31/merge');
    expect(checkForkSafety(ctx, { allowForkPrs: true })).toBeUndefined();
  });

  it('treats a pull request whose head repository was deleted as a fork', () => {
    // GitHub sends head.repo as null once the fork is gone.
    const payload = JSON.parse(readFileSync(join(fixtures, 'pull_request-fork.json'), 'utf8')) as {
      pull_request: { head: { repo: unknown } };
    };
    payload.pull_request.head.repo = null;
    const dir = mkdtempSync(join(tmpdir(), 'perf-gate-event-'));
    const path = join(dir, 'event.json');
    writeFileSync(path, JSON.stringify(payload));
    const env = {
      ...jobEnv('pull_request', undefined, 'refs/pull/31/merge'),
      GITHUB_EVENT_PATH: path,
    };
    const ctx = readGitHubContext(env);
    expect(ctx.pullRequest).toMatchObject({ number: 31, isFork: true });
    expect(ctx.pullRequest?.headRepo).toBeUndefined();
    expect(checkForkSafety(ctx, { allowForkPrs: false })).toContain('no longer exists');
  });

  it('has nothing to say about runs that are not pull requests', () => {
    const ctx = contextOf('push', 'push-main.json', 'refs/heads/main');
    expect(checkForkSafety(ctx, { allowForkPrs: false })).toBeUndefined();
  });
});
