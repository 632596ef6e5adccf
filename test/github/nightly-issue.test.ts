// The nightly regression issue against the loopback GitHub API: one open issue per gate
// key, opened, commented on and closed by real octokit requests.
import { describe, expect, it } from 'vitest';
import {
  issueMarker,
  limitBody,
  MAX_BODY_CHARS,
  REGRESSION_LABEL,
  reportNightlyIssue,
  type NightlyIssueOptions,
} from '../../src/github/nightly-issue.js';
import { useGitHubApi } from '../support/github-test.js';

const github = useGitHubApi({ owner: 'octo-org', repo: 'inf2-bench' });

function report(options: Partial<NightlyIssueOptions> & Pick<NightlyIssueOptions, 'regressed'>) {
  return reportNightlyIssue(github.octokit, {
    owner: 'octo-org',
    repo: 'inf2-bench',
    key: 'llama3-8b-tp2',
    body: '## neuron-perf-gate\n\nthroughput −12.4% (threshold 5%)',
    runUrl: 'https://github.com/octo-org/inf2-bench/actions/runs/101',
    log: github.log,
    ...options,
  });
}

/** Requests that change something: not GETs, nor the GraphQL query for the token's login. */
function writes() {
  return github.api.requests.filter((r) => r.method !== 'GET' && r.path !== '/graphql');
}

describe('reportNightlyIssue', () => {
  it('opens one labelled issue with the hidden marker on the first regression', async () => {
    const outcome = await report({ regressed: true });

    expect(outcome.action).toBe('opened');
    const issue = github.api.state.issue(outcome.number!);
    expect(issue).toMatchObject({
      state: 'open',
      title: 'Performance regression: llama3-8b-tp2',
      labels: [REGRESSION_LABEL],
    });
    expect(issue?.body).toContain('<!-- neuron-perf-gate:nightly:llama3-8b-tp2 -->');
    expect(issue?.body).toContain('throughput −12.4%');
    expect(outcome.url).toBe(`https://github.com/octo-org/inf2-bench/issues/${outcome.number}`);
  });

  it('comments on the open issue when the regression is still there', async () => {
    const first = await report({ regressed: true });
    const second = await report({ regressed: true, body: 'night two: −13.0%' });

    expect(second).toMatchObject({ action: 'commented', number: first.number });
    expect(github.api.state.issues.filter((i) => !i.isPullRequest)).toHaveLength(1);
    expect(github.api.state.commentsOn(first.number!).map((c) => c.body)).toEqual([
      'night two: −13.0%',
    ]);
  });

  it('comments with the run link and closes the issue when a later night passes', async () => {
    const opened = await report({ regressed: true });
    const closed = await report({
      regressed: false,
      runUrl: 'https://github.com/octo-org/inf2-bench/actions/runs/202',
    });

    expect(closed).toMatchObject({ action: 'closed', number: opened.number });
    const issue = github.api.state.issue(opened.number!);
    expect(issue).toMatchObject({ state: 'closed', stateReason: 'completed' });
    const [comment] = github.api.state.commentsOn(opened.number!);
    expect(comment?.body).toContain('passes again in');
    expect(comment?.body).toContain('https://github.com/octo-org/inf2-bench/actions/runs/202');

    // Closed stays closed: the next passing night finds nothing to do.
    expect(await report({ regressed: false })).toEqual({ action: 'none' });
  });

  it('writes nothing when the run passes and no issue is open', async () => {
    github.api.state.addIssue({ title: 'unrelated', labels: ['bug'], body: 'x' });

    expect(await report({ regressed: false })).toEqual({ action: 'none' });
    expect(writes()).toEqual([]);
    expect(github.api.requests.length).toBeGreaterThan(0);
  });

  it('keeps one issue per gate key', async () => {
    const a = await report({ regressed: true, key: 'llama3-8b-tp2' });
    const b = await report({ regressed: true, key: 'mistral-7b-tp8' });
    const a2 = await report({ regressed: true, key: 'llama3-8b-tp2' });

    expect(a.action).toBe('opened');
    expect(b.action).toBe('opened');
    expect(b.number).not.toBe(a.number);
    expect(a2).toMatchObject({ action: 'commented', number: a.number });
    expect(github.api.state.issue(b.number!)?.title).toBe('Performance regression: mistral-7b-tp8');

    await report({ regressed: false, key: 'mistral-7b-tp8' });
    expect(github.api.state.issue(a.number!)?.state).toBe('open');
    expect(github.api.state.issue(b.number!)?.state).toBe('closed');
  });

  it('finds the issue on a later page of the labelled issues', async () => {
    const ours = github.api.state.addIssue({
      title: 'Performance regression: llama3-8b-tp2',
      body: `${issueMarker('llama3-8b-tp2')}\nold report`,
      labels: [REGRESSION_LABEL],
      user: github.api.state.actor,
    });
    // Newer labelled issues of other gates push ours past the first page of 100.
    for (let i = 0; i < 130; i++) {
      github.api.state.addIssue({
        title: `Performance regression: gate-${i}`,
        body: `${issueMarker(`gate-${i}`)}\nreport`,
        labels: [REGRESSION_LABEL],
      });
    }

    expect(await report({ regressed: true })).toMatchObject({
      action: 'commented',
      number: ours.number,
    });
    const listings = github.api.requests.filter(
      (r) => r.method === 'GET' && r.path.endsWith('/issues'),
    );
    expect(listings.map((r) => r.query.get('page') ?? '1')).toEqual(['1', '2']);
    expect(listings[0]?.query.get('labels')).toBe(REGRESSION_LABEL);
    expect(listings[0]?.query.get('state')).toBe('open');
  });

  it('ignores a marker in an issue without the label, which anyone could open', async () => {
    const planted = github.api.state.addIssue({
      title: 'Performance regression: llama3-8b-tp2',
      body: `${issueMarker('llama3-8b-tp2')}\nplanted`,
      labels: [],
    });

    expect(await report({ regressed: false })).toEqual({ action: 'none' });
    const opened = await report({ regressed: true });
    expect(opened.action).toBe('opened');
    expect(opened.number).not.toBe(planted.number);
  });

  it('never comments on or closes an issue someone else opened with the marker and label', async () => {
    const planted = github.api.state.addIssue({
      title: 'Performance regression: llama3-8b-tp2',
      body: `${issueMarker('llama3-8b-tp2')}\nplanted by a contributor`,
      labels: [REGRESSION_LABEL],
      user: 'contributor',
    });

    expect(await report({ regressed: false })).toEqual({ action: 'none' });
    const opened = await report({ regressed: true });
    expect(opened.action).toBe('opened');
    expect(opened.number).not.toBe(planted.number);
    expect(github.api.state.issue(planted.number)?.state).toBe('open');
    expect(github.api.state.commentsOn(planted.number)).toEqual([]);
  });

  it('does not mistake a key for another that starts the same way', async () => {
    await report({ regressed: true, key: 'llama3-8b-tp2' });
    expect((await report({ regressed: true, key: 'llama3-8b' })).action).toBe('opened');
    expect((await report({ regressed: true, key: 'llama3' })).action).toBe('opened');
    expect(github.api.state.issues).toHaveLength(3);
  });

  it('cuts a body over GitHub’s limit, saying so', async () => {
    const outcome = await report({ regressed: true, body: 'x'.repeat(70_000) });
    const body = github.api.state.issue(outcome.number!)!.body!;
    expect(body.length).toBeLessThanOrEqual(MAX_BODY_CHARS);
    expect(body).toContain('(cut:');

    // The comment route refuses bodies over the limit, so this only passes when it is cut.
    const again = await report({ regressed: true, body: 'y'.repeat(70_000) });
    expect(again.action).toBe('commented');
  });

  it('says which permission a read-only token lacks', async () => {
    github.api.state.readOnly = true;
    await expect(report({ regressed: true })).rejects.toThrow(/permissions: issues: write/);
  });
});

describe('limitBody', () => {
  it('leaves a short body alone and never splits a surrogate pair', () => {
    expect(limitBody('short')).toBe('short');
    const body = `${'a'.repeat(99)}${'😀'.repeat(100)}`;
    for (let max = 100; max < 250; max++) {
      const cut = limitBody(body, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });
});

describe('issueMarker', () => {
  it('cannot end the HTML comment early or span lines', () => {
    const marker = issueMarker('evil --> <b>x</b>\nnext');
    expect(marker.indexOf('-->')).toBe(marker.length - 3);
    expect(marker).not.toContain('\n');
  });
});
