// The loopback GitHub API that the GitHub tests talk to: its pagination, its OpenAPI
// checks, its canned failures and the shape of its answers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readZip } from '../publish/zip.js';
import {
  secondaryRateLimit,
  serverError,
  startGitHubApi,
  type GitHubApi,
} from '../support/github-api.js';
import { responseProblems } from '../support/openapi.js';
import { zipOf } from '../support/zip-writer.js';

let api: GitHubApi;
let repoPath: string;

beforeEach(async () => {
  api = await startGitHubApi({ owner: 'octo-org', repo: 'inf2-bench' });
  repoPath = '/repos/octo-org/inf2-bench';
});

afterEach(async () => {
  await api.close();
});

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null; redirect?: 'follow' | 'manual' } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/vnd.github+json' };
  if (options.token !== null) headers.authorization = `token ${options.token ?? 'ghs_test'}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers,
    redirect: options.redirect ?? 'follow',
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}

function ids(body: unknown): number[] {
  return (body as { id: number }[]).map((c) => c.id);
}

describe('pagination', () => {
  it('pages a list and names prev, next, last and first pages in the Link header', async () => {
    const pr = api.state.addPullRequest({ number: 7 });
    const comments = Array.from({ length: 5 }, (_, i) =>
      api.state.addComment({ issueNumber: pr.number, body: `comment ${i}` }),
    );
    const path = `${repoPath}/issues/7/comments`;
    const link = (page: number) => `<${api.url}${path}?per_page=2&page=${page}>`;

    const first = await call('GET', `${path}?per_page=2`);
    expect(ids(first.body)).toEqual(comments.slice(0, 2).map((c) => c.id));
    expect(first.headers.get('link')).toBe(`${link(2)}; rel="next", ${link(3)}; rel="last"`);

    const middle = await call('GET', `${path}?per_page=2&page=2`);
    expect(ids(middle.body)).toEqual(comments.slice(2, 4).map((c) => c.id));
    expect(middle.headers.get('link')).toBe(
      `${link(1)}; rel="prev", ${link(3)}; rel="next", ${link(3)}; rel="last", ${link(1)}; rel="first"`,
    );

    const last = await call('GET', `${path}?per_page=2&page=3`);
    expect(ids(last.body)).toEqual([comments[4]!.id]);
    expect(last.headers.get('link')).toBe(`${link(2)}; rel="prev", ${link(1)}; rel="first"`);
    expect(api.violations).toEqual([]);
  });

  it('serves 30 items a page by default and at most 100', async () => {
    const pr = api.state.addPullRequest();
    for (let i = 0; i < 120; i++) api.state.addComment({ issueNumber: pr.number, body: `${i}` });
    const path = `${repoPath}/issues/${pr.number}/comments`;
    expect((await call('GET', path)).body).toHaveLength(30);
    const big = await call('GET', `${path}?per_page=500`);
    expect(big.body).toHaveLength(100);
    expect(big.headers.get('link')).toContain('per_page=500&page=2>; rel="next"');
  });

  it('has no Link header when everything fits on one page', async () => {
    const pr = api.state.addPullRequest();
    api.state.addComment({ issueNumber: pr.number, body: 'only one' });
    const answer = await call('GET', `${repoPath}/issues/${pr.number}/comments`);
    expect(answer.headers.get('link')).toBeNull();
  });
});

describe('OpenAPI checks', () => {
  it('reports a body that does not fit the operation and answers 422', async () => {
    const pr = api.state.addPullRequest();
    const answer = await call('POST', `${repoPath}/issues/${pr.number}/comments`, {
      body: { bdy: 'typo' },
    });
    expect(answer.status).toBe(422);
    expect(api.violations).toHaveLength(1);
    expect(api.violations[0]).toContain(`POST ${repoPath}/issues/${pr.number}/comments`);
    expect(api.violations[0]).toContain("must have required property 'body'");
    expect(api.violations[0]).toContain('"bdy" is not in the schema');
  });

  it('reports a field of the wrong type', async () => {
    const sha = 'a'.repeat(40);
    await call('POST', `${repoPath}/statuses/${sha}`, { body: { state: 'passed' } });
    expect(api.violations).toHaveLength(1);
    expect(api.violations[0]).toMatch(/body \/state must be equal to one of the allowed values/);
  });

  it('reports an operation GitHub does not have, and answers 404', async () => {
    const answer = await call('GET', `${repoPath}/issues/1/commentz`);
    expect(answer.status).toBe(404);
    expect(api.violations).toEqual([
      `GET ${repoPath}/issues/1/commentz: GET ${repoPath}/issues/1/commentz is not an operation in GitHub's REST API`,
    ]);
  });

  it('reports a method the path does not take', async () => {
    await call('DELETE', `${repoPath}/issues/1`);
    expect(api.violations).toHaveLength(1);
    expect(api.violations[0]).toContain('is not an operation');
  });

  it('reports a query parameter the operation does not declare', async () => {
    await call('GET', `${repoPath}/issues?label=perf-regression`);
    expect(api.violations).toHaveLength(1);
    expect(api.violations[0]).toMatch(
      /query parameter must NOT have additional properties "label"/,
    );
  });

  it('reports a path parameter of the wrong type', async () => {
    await call('GET', `${repoPath}/issues/seven`);
    expect(api.violations).toHaveLength(1);
    expect(api.violations[0]).toMatch(/path parameter \/issue_number must be integer/);
  });

  it('takes a request that fits', async () => {
    const pr = api.state.addPullRequest();
    await call('POST', `${repoPath}/issues/${pr.number}/comments`, { body: { body: 'hi' } });
    await call('GET', `${repoPath}/actions/workflows/perf.yml/runs?branch=main&status=success`);
    expect(api.violations).toEqual([]);
  });

  it('does not check when told not to', async () => {
    const quiet = await startGitHubApi({ validate: false });
    try {
      await fetch(`${quiet.url}/nowhere`);
      expect(quiet.violations).toEqual([]);
      expect(quiet.requests).toHaveLength(1);
    } finally {
      await quiet.close();
    }
  });
});

describe('canned answers and routes', () => {
  it('answers the queued responses in order, then the real handler', async () => {
    const pr = api.state.addPullRequest();
    const path = `${repoPath}/issues/${pr.number}/comments`;
    const template = '/repos/{owner}/{repo}/issues/{issue_number}/comments';
    api.failNext('GET', template, [serverError(502)]);
    api.failNext('GET', template, [secondaryRateLimit({ status: 429, retryAfter: 1 })]);

    const first = await call('GET', path);
    const second = await call('GET', path);
    const third = await call('GET', path);
    expect([first.status, second.status, third.status]).toEqual([502, 429, 200]);
    expect(second.headers.get('retry-after')).toBe('1');
    expect((second.body as { message: string }).message).toMatch(/secondary rate limit/);
    // a write to the same path is not a GET and was not affected
    expect((await call('POST', path, { body: { body: 'x' } })).status).toBe(201);
  });

  it('gives a canned answer without a body GitHub’s error body', async () => {
    api.failNext('GET', '/repos/{owner}/{repo}', [{ status: 503 }]);
    const answer = await call('GET', repoPath);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ message: 'Service Unavailable', status: '503' });
  });

  it('lets a later route replace a built-in one', async () => {
    api.route('GET', '/repos/{owner}/{repo}', (request, params) => ({
      status: 200,
      body: { replaced: true, owner: params.owner, page: request.query.get('page') },
    }));
    const answer = await call('GET', `${repoPath}?page=2`);
    expect(answer.body).toEqual({ replaced: true, owner: 'octo-org', page: '2' });
    // a more specific built-in route still answers its own paths
    expect((await call('GET', `${repoPath}/issues`)).status).toBe(200);
  });

  it('answers 404 for another repository', async () => {
    expect((await call('GET', '/repos/someone/else')).status).toBe(404);
  });
});

describe('tokens', () => {
  it('records the Authorization header of every request', async () => {
    await call('GET', repoPath, { token: 'ghs_first' });
    await call('GET', repoPath, { token: null });
    expect(api.requests.map((r) => r.headers.authorization)).toEqual([
      'token ghs_first',
      undefined,
    ]);
  });

  it('refuses writes without a token', async () => {
    const pr = api.state.addPullRequest();
    const answer = await call('POST', `${repoPath}/issues/${pr.number}/comments`, {
      body: { body: 'x' },
      token: null,
    });
    expect(answer.status).toBe(401);
  });

  it('acts like a read-only GITHUB_TOKEN when state.readOnly is set', async () => {
    const pr = api.state.addPullRequest();
    api.state.readOnly = true;
    const path = `${repoPath}/issues/${pr.number}/comments`;
    const write = await call('POST', path, { body: { body: 'x' } });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ message: 'Resource not accessible by integration' });
    expect(write.headers.get('x-accepted-github-permissions')).toBe(
      'issues=write; pull_requests=write',
    );
    expect((await call('GET', path)).status).toBe(200);
    expect(api.state.comments).toEqual([]);
  });
});

describe('issues and labels', () => {
  it('creates an issue with labels, creating labels it does not know', async () => {
    api.state.label('perf', { color: '0e8a16' });
    const answer = await call('POST', `${repoPath}/issues`, {
      body: { title: 'Nightly regression', body: 'details', labels: ['perf', 'nightly'] },
    });
    expect(answer.status).toBe(201);
    const issue = answer.body as { number: number; labels: { name: string; color: string }[] };
    expect(issue.labels.map((l) => [l.name, l.color])).toEqual([
      ['perf', '0e8a16'],
      ['nightly', 'ededed'],
    ]);
    expect(answer.headers.get('location')).toBe(`${api.url}${repoPath}/issues/${issue.number}`);
    expect(api.state.labels.map((l) => l.name)).toEqual(['perf', 'nightly']);
  });

  it('filters the issue list by state, labels and creator', async () => {
    const open = api.state.addIssue({ labels: ['perf', 'nightly'], user: 'github-actions[bot]' });
    api.state.addIssue({ labels: ['perf'], user: 'github-actions[bot]' });
    api.state.addIssue({ labels: ['perf', 'nightly'], user: 'octocat' });
    const closed = api.state.addIssue({
      labels: ['perf', 'nightly'],
      user: 'github-actions[bot]',
      state: 'closed',
    });
    const query = 'labels=perf,nightly&creator=github-actions%5Bbot%5D';
    expect(ids((await call('GET', `${repoPath}/issues?${query}`)).body)).toEqual([open.id]);
    expect(ids((await call('GET', `${repoPath}/issues?${query}&state=all`)).body)).toEqual([
      closed.id,
      open.id,
    ]);
    expect(api.violations).toEqual([]);
  });

  it('closes and reopens an issue', async () => {
    const issue = api.state.addIssue();
    const path = `${repoPath}/issues/${issue.number}`;
    const closed = await call('PATCH', path, { body: { state: 'closed' } });
    expect(closed.body).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect((closed.body as { closed_at: string }).closed_at).toMatch(/Z$/);
    const reopened = await call('PATCH', path, { body: { state: 'open' } });
    expect(reopened.body).toMatchObject({
      state: 'open',
      state_reason: 'reopened',
      closed_at: null,
    });
  });
});

describe('commit statuses', () => {
  it('stores a status and refuses a description over 140 characters', async () => {
    const sha = 'b'.repeat(40);
    const ok = await call('POST', `${repoPath}/statuses/${sha}`, {
      body: { state: 'success', description: 'fine', context: 'perf' },
    });
    expect(ok.status).toBe(201);
    const long = await call('POST', `${repoPath}/statuses/${sha}`, {
      body: { state: 'success', description: 'x'.repeat(141), context: 'perf' },
    });
    expect(long.status).toBe(422);
    expect(api.state.statuses.map((s) => s.description)).toEqual(['fine']);
  });
});

describe('workflow runs and artifacts', () => {
  it('filters runs by branch, event and status or conclusion, newest first', async () => {
    const nightly = api.state.addWorkflowRun({ event: 'schedule', conclusion: 'success' });
    api.state.addWorkflowRun({ event: 'schedule', conclusion: 'failure' });
    api.state.addWorkflowRun({ event: 'push', headBranch: 'feature' });
    const newest = api.state.addWorkflowRun({ event: 'schedule', conclusion: 'success' });
    api.state.addWorkflowRun({ event: 'schedule', status: 'in_progress' });

    const answer = await call(
      'GET',
      `${repoPath}/actions/workflows/perf.yml/runs?branch=main&event=schedule&status=success`,
    );
    const body = answer.body as { total_count: number; workflow_runs: { id: number }[] };
    expect(body.total_count).toBe(2);
    expect(body.workflow_runs.map((r) => r.id)).toEqual([newest.id, nightly.id]);

    const byId = await call('GET', `${repoPath}/actions/workflows/${nightly.workflowId}/runs`);
    expect((byId.body as { total_count: number }).total_count).toBe(5);
    const inProgress = await call(
      'GET',
      `${repoPath}/actions/workflows/perf.yml/runs?status=in_progress&per_page=1`,
    );
    expect((inProgress.body as { total_count: number }).total_count).toBe(1);
    expect(api.violations).toEqual([]);
  });

  it('lists a run’s artifacts by name and redirects the download to the zip', async () => {
    const run = api.state.addWorkflowRun();
    const report = JSON.stringify({ schemaVersion: 1, verdict: 'pass' });
    const artifact = api.state.addArtifact({
      runId: run.id,
      name: 'perf-gate-report',
      files: { 'report.json': report, 'profiles/model.ntff': Buffer.from([0, 1, 2, 3]) },
    });
    api.state.addArtifact({ runId: run.id, name: 'other', files: { 'a.txt': 'a' } });

    const list = await call(
      'GET',
      `${repoPath}/actions/runs/${run.id}/artifacts?name=perf-gate-report`,
    );
    const artifacts = (list.body as { artifacts: { id: number; archive_download_url: string }[] })
      .artifacts;
    expect(artifacts.map((a) => a.id)).toEqual([artifact.id]);
    expect(artifacts[0]!.archive_download_url).toBe(
      `${api.url}${repoPath}/actions/artifacts/${artifact.id}/zip`,
    );

    const redirect = await call('GET', `${repoPath}/actions/artifacts/${artifact.id}/zip`, {
      redirect: 'manual',
    });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location')!;
    expect(location.startsWith(`${api.url}/_blob/artifacts/${artifact.id}/`)).toBe(true);

    const zip = Buffer.from(await (await fetch(location)).arrayBuffer());
    const entries = readZip(zip);
    expect(entries.map((e) => [e.name, e.data.toString('utf8')])).toEqual([
      ['report.json', report],
      ['profiles/model.ntff', '\u0000\u0001\u0002\u0003'],
    ]);
    // a tampered signature is refused like blob storage refuses it
    expect((await fetch(location.replace(/sig=[0-9a-f]/, 'sig=z'))).status).toBe(403);
    expect(api.violations).toEqual([]);
  });

  it('answers 410 for an expired artifact', async () => {
    const run = api.state.addWorkflowRun();
    const artifact = api.state.addArtifact({ runId: run.id, name: 'old', expired: true });
    const answer = await call('GET', `${repoPath}/actions/artifacts/${artifact.id}/zip`, {
      redirect: 'manual',
    });
    expect(answer.status).toBe(410);
  });
});

describe('zipOf', () => {
  it('writes stored and deflated entries the repository’s zip reader opens', () => {
    const files = { 'a.txt': 'a'.repeat(1000), 'dir/': '', 'dir/ü.bin': Buffer.from([255, 0]) };
    for (const compression of ['deflate', 'store'] as const) {
      const entries = readZip(zipOf(files, { compression }));
      expect(entries.map((e) => e.name)).toEqual(['a.txt', 'dir/', 'dir/ü.bin']);
      expect(entries[0]!.method).toBe(compression === 'deflate' ? 8 : 0);
      expect(entries[0]!.data.toString()).toBe('a'.repeat(1000));
      expect(entries[1]!.isDirectory).toBe(true);
      expect([...entries[2]!.data]).toEqual([255, 0]);
    }
  });

  it.skipIf(!hasUnzip())('writes a zip that Info-ZIP unzip tests clean', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zip-writer-'));
    try {
      const file = join(dir, 'a.zip');
      writeFileSync(file, zipOf({ 'report.json': '{"a":1}', 'run/log.txt': 'line\n'.repeat(50) }));
      const output = execFileSync('unzip', ['-t', file], { encoding: 'utf8' });
      expect(output).toMatch(/No errors detected/);
      expect(execFileSync('unzip', ['-p', file, 'report.json'], { encoding: 'utf8' })).toBe(
        '{"a":1}',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('answers fit GitHub’s description', () => {
  it('shapes every built-in answer like GitHub’s response schemas', async () => {
    const pr = api.state.addPullRequest({ body: 'PR body' });
    const issue = api.state.addIssue({ labels: ['perf'], state: 'closed' });
    const comment = api.state.addComment({ issueNumber: pr.number, body: 'hello' });
    const run = api.state.addWorkflowRun({ pullRequests: [pr.number], runAttempt: 2 });
    const artifact = api.state.addArtifact({ runId: run.id, name: 'a', files: { x: 'y' } });
    const sha = 'c'.repeat(40);
    const checks: [string, string, string, unknown?][] = [
      ['GET', '/repos/{owner}/{repo}', repoPath],
      ['GET', '/repos/{owner}/{repo}/issues', `${repoPath}/issues?state=all`],
      ['GET', '/repos/{owner}/{repo}/issues/{issue_number}', `${repoPath}/issues/${issue.number}`],
      [
        'PATCH',
        '/repos/{owner}/{repo}/issues/{issue_number}',
        `${repoPath}/issues/${issue.number}`,
        { state: 'open' },
      ],
      ['POST', '/repos/{owner}/{repo}/issues', `${repoPath}/issues`, { title: 't', labels: ['x'] }],
      [
        'GET',
        '/repos/{owner}/{repo}/issues/{issue_number}/comments',
        `${repoPath}/issues/${pr.number}/comments`,
      ],
      [
        'POST',
        '/repos/{owner}/{repo}/issues/{issue_number}/comments',
        `${repoPath}/issues/${pr.number}/comments`,
        { body: 'new' },
      ],
      [
        'GET',
        '/repos/{owner}/{repo}/issues/comments/{comment_id}',
        `${repoPath}/issues/comments/${comment.id}`,
      ],
      [
        'PATCH',
        '/repos/{owner}/{repo}/issues/comments/{comment_id}',
        `${repoPath}/issues/comments/${comment.id}`,
        { body: 'edited' },
      ],
      [
        'POST',
        '/repos/{owner}/{repo}/issues/{issue_number}/labels',
        `${repoPath}/issues/${issue.number}/labels`,
        { labels: ['nightly'] },
      ],
      ['GET', '/repos/{owner}/{repo}/labels', `${repoPath}/labels`],
      ['GET', '/repos/{owner}/{repo}/labels/{name}', `${repoPath}/labels/perf`],
      [
        'POST',
        '/repos/{owner}/{repo}/labels',
        `${repoPath}/labels`,
        { name: 'new', color: 'ff0000' },
      ],
      [
        'POST',
        '/repos/{owner}/{repo}/statuses/{sha}',
        `${repoPath}/statuses/${sha}`,
        { state: 'failure', target_url: 'https://example.com/run', description: 'd', context: 'c' },
      ],
      [
        'GET',
        '/repos/{owner}/{repo}/commits/{ref}/statuses',
        `${repoPath}/commits/${sha}/statuses`,
      ],
      ['GET', '/repos/{owner}/{repo}/actions/runs/{run_id}', `${repoPath}/actions/runs/${run.id}`],
      [
        'GET',
        '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
        `${repoPath}/actions/workflows/perf.yml/runs`,
      ],
      [
        'GET',
        '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts',
        `${repoPath}/actions/runs/${run.id}/artifacts`,
      ],
      ['GET', '/repos/{owner}/{repo}/actions/artifacts', `${repoPath}/actions/artifacts?name=a`],
      [
        'GET',
        '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}',
        `${repoPath}/actions/artifacts/${artifact.id}`,
      ],
    ];
    for (const [method, template, path, body] of checks) {
      const answer = await call(method, path, body === undefined ? {} : { body });
      expect([path, answer.status < 300]).toEqual([path, true]);
      expect([
        method,
        template,
        responseProblems(method, template, answer.status, answer.body),
      ]).toEqual([method, template, []]);
    }
    expect(api.violations).toEqual([]);
  });

  it('notices an answer that lacks what GitHub always sends', () => {
    const template = '/repos/{owner}/{repo}/issues/comments/{comment_id}';
    expect(responseProblems('GET', template, 200, { id: 1, body: 'x' })).toContain(
      "response must have required property 'user'",
    );
    expect(responseProblems('GET', template, 418, {})).toEqual([
      `GET ${template} does not answer 418`,
    ]);
  });
});

function hasUnzip(): boolean {
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
