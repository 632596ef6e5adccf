// The bundled action on GitHub, end to end: the README's example workflows (their `with:`
// inputs, the rest at action.yml's defaults) run as node processes against a loopback
// GitHub REST API that checks every request against GitHub's OpenAPI description, with a
// real bare repository as origin for the baseline data branch.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GitBranchStore } from '../../src/baseline/git/git-branch-store.js';
import { makeRepos, type Repos } from '../baseline/git/support.js';
import { serverError } from '../support/github-api.js';
import {
  pullRequestPayload,
  pushPayload,
  runActionProcess,
  type ActionEvent,
  useActionGitHubApi,
  useResultsService,
} from '../support/action-run.js';
import { reportArtifactName } from '../../src/github/report-artifact.js';
import type { GateReport } from '../../src/model.js';
import { gateStepInputs, loadWorkflowExample } from '../support/workflow-example.js';
import { zipOf } from '../support/zip-writer.js';
import { earlierNights } from '../support/earlier-nights.js';

const TOKEN = 'ghs_e2e_token';
const CONFIG = `profile: false
upload-profiles: false
confirm-runs: 0
benchmarks:
  - name: qwen3-reranker
    command: offline-benchmark
    format: offline-benchmark
    runs: 3
`;
const MARKER = '<!-- neuron-perf-gate:comment:';

const github = useActionGitHubApi();
let repos: Repos;
let mainSha: string;
let runs = 0;

/** One run of the action as the example workflow's step, on this event. */
function run(
  example: string,
  event: ActionEvent,
  env: Record<string, string> = {},
  inputs: Record<string, string> = {},
  jobId?: string,
) {
  runs += 1;
  // The examples that gate pull requests run them in a job of their own, with a read-only
  // token for code; main's pushes in another; a comment job posts on the pull request.
  const file = join('examples', 'workflows', example);
  const jobs = Object.keys(loadWorkflowExample(file).jobs);
  const job =
    jobId ??
    (jobs.includes('pull-request')
      ? event.name === 'pull_request'
        ? 'pull-request'
        : 'main'
      : undefined);
  const stepInputs = gateStepInputs(file, job);
  // As the runner evaluates them: `${{ matrix.x }}` from this job's matrix, and
  // `${{ inputs.accept-current }}` is empty outside workflow_dispatch.
  const matrix = inputs.matrix ? (JSON.parse(inputs.matrix) as Record<string, string>) : {};
  for (const [name, value] of Object.entries(stepInputs)) {
    stepInputs[name] = value.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, path: string) =>
      path.startsWith('matrix.') ? (matrix[path.slice(7)] ?? '') : '',
    );
  }
  return runActionProcess({
    workspace: repos.checkout,
    label: `run-${runs}`,
    inputs: { ...stepInputs, ...inputs },
    defaultsWithToken: TOKEN,
    event,
    env: {
      GITHUB_API_URL: github.api.url,
      GITHUB_RUN_ID: String(5000 + runs),
      SIM_SEED: String(100 + runs),
      ...env,
    },
  });
}

function pullRequest(number: number, fork = false): ActionEvent {
  return {
    name: 'pull_request',
    payload: pullRequestPayload({ number, headSha: `${number}`.padStart(40, 'c'), fork }),
    ref: `refs/pull/${number}/merge`,
    sha: `${number}`.padStart(40, 'd'),
  };
}

function commentsOn(number: number) {
  return github.api.state.commentsOn(number);
}

beforeAll(async () => {
  repos = await makeRepos();
  await mkdir(join(repos.checkout, '.github'), { recursive: true });
  await writeFile(join(repos.checkout, '.github', 'perf-gate.yml'), CONFIG);
  mainSha = await repos.git.run(['rev-parse', 'HEAD']);
  // main stores the baseline the pull requests are compared with.
  const seed = await run('pull-request.yml', {
    name: 'push',
    payload: pushPayload('main', mainSha),
    ref: 'refs/heads/main',
    sha: mainSha,
  });
  expect(seed.code, seed.stdout).toBe(0);
  expect(seed.outputs.verdict).toBe('no-baseline');
}, 120_000);

describe('pull requests (examples/workflows/pull-request.yml): the code runs with a read-only token, the comment job posts', () => {
  const results = useResultsService();

  /** A new workflow run of pull request `number`: what GitHub's API says about it. */
  function newPullRequestRun(number: number, fork = false) {
    const headSha = `${number}`.padStart(40, 'c');
    const repo = fork ? 'stranger/inference' : 'octo/inference';
    github.api.state.addPullRequest({ number, head: { ref: 'feature', sha: headSha, repo } });
    // The loopback results service keeps one run's artifacts: a new run starts empty.
    results.service.artifacts.clear();
    return github.api.state.addWorkflowRun({
      event: 'pull_request',
      headSha,
      headBranch: 'feature',
      headRepository: repo,
    });
  }

  /**
   * The gate's job of that run (attempt `attempt`), with the read-only token its
   * permissions give; the report artifact it uploads through the results service becomes
   * an artifact of the run in the REST API, as on GitHub.
   */
  async function gateJob(
    example: string,
    number: number,
    runId: number,
    options: {
      attempt?: number;
      env?: Record<string, string>;
      inputs?: Record<string, string>;
    } = {},
  ) {
    const before = github.api.requests.length;
    const uploaded = new Set(results.service.artifacts.keys());
    github.api.state.readOnly = true;
    try {
      const gate = await run(
        example,
        pullRequest(number),
        {
          ...results.env(),
          GITHUB_RUN_ID: String(runId),
          GITHUB_RUN_ATTEMPT: String(options.attempt ?? 1),
          ...options.env,
        },
        options.inputs,
      );
      // It asks GitHub for nothing it could write with.
      expect(github.api.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
      for (const [name, artifact] of results.service.artifacts) {
        if (uploaded.has(name) || !artifact.finalized) continue;
        github.api.state.addArtifact({ runId, name, zip: artifact.blob! });
      }
      return gate;
    } finally {
      github.api.state.readOnly = false;
    }
  }

  /** The comment job of that run: no checkout, `mode: comment`. */
  function commentJob(example: string, number: number, runId: number, attempt = 1, fork = false) {
    return run(
      example,
      pullRequest(number, fork),
      { GITHUB_RUN_ID: String(runId), GITHUB_RUN_ATTEMPT: String(attempt) },
      {},
      'comment',
    );
  }

  it('creates the comment from the pass the gate job uploaded, and updates it after a re-run that regresses', async () => {
    const workflowRun = newPullRequestRun(20);
    const pass = await gateJob('pull-request.yml', 20, workflowRun.id);
    expect(pass.code, pass.stdout).toBe(0);
    expect(pass.outputs.verdict).toBe('pass');
    expect(commentsOn(20)).toHaveLength(0);

    const posted = await commentJob('pull-request.yml', 20, workflowRun.id);
    expect(posted.code, posted.stdout).toBe(0);
    expect(posted.outputs.verdict).toBe('pass');
    const [created] = commentsOn(20);
    expect(commentsOn(20)).toHaveLength(1);
    expect(created!.body).toContain(MARKER);
    expect(created!.body).toContain('no performance regression');
    // The gate job is the pull request's check: no commit status besides it.
    expect(github.api.state.statuses.filter((s) => s.sha === workflowRun.headSha)).toEqual([]);

    // "Re-run all jobs": the same run, attempt 2, 15% slower. The run keeps attempt 1's
    // report; the comment must be attempt 2's.
    const rerun = await gateJob('pull-request.yml', 20, workflowRun.id, {
      attempt: 2,
      env: { SIM_SLOWDOWN: '1.15' },
    });
    expect(rerun.code).toBe(1);
    expect(rerun.outputs.verdict).toBe('regression');
    expect(rerun.stdout).not.toMatch(/^::warning::.*report/m);
    const updated = await commentJob('pull-request.yml', 20, workflowRun.id, 2);
    expect(updated.code, updated.stdout).toBe(0);
    expect(updated.outputs.verdict).toBe('regression');
    expect(commentsOn(20)).toHaveLength(1);
    expect(commentsOn(20)[0]!.id).toBe(created!.id);
    expect(commentsOn(20)[0]!.body).toContain('performance regression');
    expect(commentsOn(20)[0]!.body).not.toContain('no performance regression');
  }, 90_000);

  it("posts nothing for a fork's pull request, whose run gets a read-only token, and says where to look", async () => {
    const workflowRun = newPullRequestRun(21, true);
    const before = github.api.requests.length;
    const skipped = await commentJob('pull-request.yml', 21, workflowRun.id, 1, true);
    expect(skipped.code, skipped.stdout).toBe(0);
    expect(skipped.outputs.verdict).toBe('skipped');
    expect(skipped.stdout).toMatch(/fork gets a read-only token.*workflow_run.*docs\/forks\.md/);
    expect(github.api.requests.length).toBe(before);
    expect(commentsOn(21)).toHaveLength(0);
  }, 30_000);

  it('refuses to run the comment job on an event with no pull request run to post', async () => {
    const pushed = await run(
      'pull-request.yml',
      { name: 'push', payload: pushPayload('main', mainSha), ref: 'refs/heads/main', sha: mainSha },
      {},
      {},
      'comment',
    );
    expect(pushed.code).toBe(1);
    expect(pushed.stdout).toMatch(
      /::error::neuron-perf-gate: mode: comment runs in a job of the pull request's own run .*workflow_run.*triggered by push/,
    );
  }, 30_000);

  it('refuses a report whose pull request head moved on since the run', async () => {
    const workflowRun = newPullRequestRun(22);
    const gate = await gateJob('pull-request.yml', 22, workflowRun.id);
    expect(gate.code, gate.stdout).toBe(0);
    // A push to the pull request after the run: its head is no longer the run's commit.
    github.api.state.issue(22)!.head = {
      ref: 'feature',
      sha: 'e'.repeat(40),
      repo: 'octo/inference',
    };
    const posted = await commentJob('pull-request.yml', 22, workflowRun.id);
    expect(posted.stdout).toMatch(/not posting on PR #22: its head is eeeeeee/);
    expect(commentsOn(22)).toHaveLength(0);
  }, 60_000);
});

describe('a matrix across inf2 sizes (examples/workflows/matrix.yml)', () => {
  const results = useResultsService();

  it('keeps one comment per size on the same pull request, posted by one comment job', async () => {
    const headSha = '14'.padStart(40, 'c');
    github.api.state.addPullRequest({
      number: 14,
      head: { ref: 'feature', sha: headSha, repo: 'octo/inference' },
    });
    const workflowRun = github.api.state.addWorkflowRun({ event: 'pull_request', headSha });
    const sizes = [
      ['inf2-xlarge', 'inf2.xlarge'],
      ['inf2-8xlarge', 'inf2.8xlarge'],
    ] as const;
    async function gateJobs(attempt: number, only?: string) {
      for (const [runner, instance] of sizes) {
        if (only && runner !== only) continue;
        const uploaded = new Set(results.service.artifacts.keys());
        // The runner evaluates the input's default, ${{ toJSON(matrix) }}, per job.
        const result = await run(
          'matrix.yml',
          pullRequest(14),
          {
            ...results.env(),
            PERF_GATE_INSTANCE_TYPE: instance,
            GITHUB_RUN_ID: String(workflowRun.id),
            GITHUB_RUN_ATTEMPT: String(attempt),
          },
          { matrix: JSON.stringify({ runner }) },
        );
        expect(result.code, result.stdout).toBe(0);
        for (const [name, artifact] of results.service.artifacts) {
          if (uploaded.has(name)) continue;
          github.api.state.addArtifact({ runId: workflowRun.id, name, zip: artifact.blob! });
        }
      }
      const comment = await run(
        'matrix.yml',
        pullRequest(14),
        { GITHUB_RUN_ID: String(workflowRun.id), GITHUB_RUN_ATTEMPT: String(attempt) },
        {},
        'comment',
      );
      expect(comment.code, comment.stdout).toBe(0);
    }
    await gateJobs(1);
    const ours = commentsOn(14).filter((c) => c.body.includes(MARKER));
    expect(ours).toHaveLength(2);
    expect(ours[0]!.body).toContain('inf2.xlarge');
    expect(ours[1]!.body).toContain('inf2.8xlarge');
    // Re-running one size updates its own comment only.
    await gateJobs(2, 'inf2-8xlarge');
    const after = commentsOn(14).filter((c) => c.body.includes(MARKER));
    expect(after.map((c) => c.id)).toEqual(ours.map((c) => c.id));
  }, 120_000);
});

/** The gate's own job posting the comment: a token with pull-requests: write, comment: always. */
const commentFromGateJob = { comment: 'always' };

describe("comments from the gate's own job (comment: always, pull-requests: write)", () => {
  it('creates the comment on a pass, then updates the same one when a rerun regresses', async () => {
    github.api.state.addPullRequest({ number: 7 });
    const pass = await run('pull-request.yml', pullRequest(7), {}, commentFromGateJob);
    expect(pass.code, pass.stdout).toBe(0);
    expect(pass.outputs.verdict).toBe('pass');
    const [created] = commentsOn(7);
    expect(commentsOn(7)).toHaveLength(1);
    expect(created!.body).toContain(MARKER);
    expect(created!.body).toContain('no performance regression');
    expect(created!.body).toContain('perf-gate-data @');

    const rerun = await run(
      'pull-request.yml',
      pullRequest(7),
      { SIM_SLOWDOWN: '1.15', GITHUB_RUN_ATTEMPT: '2' },
      commentFromGateJob,
    );
    expect(rerun.code).toBe(1);
    expect(rerun.outputs.verdict).toBe('regression');
    expect(commentsOn(7)).toHaveLength(1);
    expect(commentsOn(7)[0]!.id).toBe(created!.id);
    expect(commentsOn(7)[0]!.body).toContain('performance regression');
    // One annotation per regressed metric: the change, its interval and the threshold (% is
    // written %25 in workflow commands).
    expect(rerun.stdout).toMatch(
      /^::error title=qwen3-reranker\/throughput::[\d.]+%25 lower \(95%25 CI [^)]+\), beyond the [\d.]+%25 threshold$/m,
    );
    expect(rerun.stdout).toMatch(/^::error::neuron-perf-gate: \d+ regression\(s\)/m);
  }, 60_000);

  it('finds its comment among 150 on the second page', async () => {
    github.api.state.addPullRequest({ number: 8 });
    for (let i = 0; i < 149; i += 1) {
      github.api.state.addComment({
        issueNumber: 8,
        body: `review comment ${i}`,
        user: 'reviewer',
      });
    }
    const first = await run('pull-request.yml', pullRequest(8), {}, commentFromGateJob);
    expect(first.code).toBe(0);
    expect(commentsOn(8)).toHaveLength(150);
    const ours = commentsOn(8).filter((c) => c.body.includes(MARKER));
    expect(ours).toHaveLength(1);

    const before = github.api.requests.length;
    const second = await run('pull-request.yml', pullRequest(8), {}, commentFromGateJob);
    expect(second.code).toBe(0);
    expect(commentsOn(8)).toHaveLength(150);
    const listed = github.api.requests
      .slice(before)
      .filter((r) => r.method === 'GET' && r.path.endsWith('/issues/8/comments'))
      .map((r) => r.query.get('page') ?? '1');
    expect(listed).toEqual(['1', '2']);
    const edits = github.api.requests
      .slice(before)
      .filter((r) => r.method === 'PATCH' && r.path.endsWith(`/issues/comments/${ours[0]!.id}`));
    expect(edits).toHaveLength(1);
  }, 60_000);

  it('retries a 502 and posts once', async () => {
    github.api.state.addPullRequest({ number: 9 });
    github.api.failNext('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', [
      serverError(502),
    ]);
    const result = await run('pull-request.yml', pullRequest(9), {}, commentFromGateJob);
    expect(result.code).toBe(0);
    const posts = github.api.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/issues/9/comments'),
    );
    expect(posts).toHaveLength(2);
    expect(commentsOn(9)).toHaveLength(1);
  }, 60_000);

  it('adds a notice for each improvement and keeps the check green', async () => {
    github.api.state.addPullRequest({ number: 16 });
    const faster = await run(
      'pull-request.yml',
      pullRequest(16),
      { SIM_SLOWDOWN: '0.85' },
      commentFromGateJob,
    );
    expect(faster.code, faster.stdout).toBe(0);
    expect(faster.outputs.verdict).toBe('pass');
    expect(faster.stdout).toMatch(
      /^::notice title=qwen3-reranker\/throughput::[\d.]+%25 higher \(95%25 CI [^)]+\), beyond the [\d.]+%25 threshold$/m,
    );
    expect(faster.stdout).not.toMatch(/^::error/m);
    expect(commentsOn(16)[0]!.body).toContain('improvement');
  }, 60_000);

  it('keeps the verdict with a read-only token and says in the summary why there is no comment', async () => {
    github.api.state.addPullRequest({ number: 10 });
    github.api.state.readOnly = true;
    try {
      const result = await run('pull-request.yml', pullRequest(10), {}, commentFromGateJob);
      expect(result.code).toBe(0);
      expect(result.outputs.verdict).toBe('pass');
      expect(commentsOn(10)).toHaveLength(0);
      expect(result.summary).toMatch(/no pull request comment: the token may not write/);
      expect(result.summary).toContain('pull-requests: write');
    } finally {
      github.api.state.readOnly = false;
    }
  }, 60_000);

  it('refuses a pull request from a fork before anything runs', async () => {
    const before = github.api.requests.length;
    const result = await run('pull-request.yml', pullRequest(11, true));
    expect(result.code).toBe(1);
    expect(result.outputs.verdict).toBe('error');
    expect(result.stdout).toMatch(/::error::neuron-perf-gate: .*fork/);
    expect(result.stdout).toContain('Pull requests from forks');
    expect(result.stdout).not.toContain('::group::');
    expect(github.api.requests.length).toBe(before);
  });
});

describe('the comment policy', () => {
  it('on-change: no comment while nothing changed, one on a regression, kept current after', async () => {
    github.api.state.addPullRequest({ number: 17 });
    const onChange = { comment: 'on-change' };
    const quiet = await run('pull-request.yml', pullRequest(17), {}, onChange);
    expect(quiet.code, quiet.stdout).toBe(0);
    expect(quiet.outputs.verdict).toBe('pass');
    expect(commentsOn(17).map((c) => c.body)).toEqual([]);
    expect(quiet.stdout).toContain('nothing changed and there is no comment to update');

    const regressed = await run(
      'pull-request.yml',
      pullRequest(17),
      { SIM_SLOWDOWN: '1.15' },
      onChange,
    );
    expect(regressed.code).toBe(1);
    expect(commentsOn(17)).toHaveLength(1);
    expect(commentsOn(17)[0]!.body).toContain('performance regression');

    // Fixed again: nothing changed against the baseline, but the comment must not stay stale.
    const fixed = await run('pull-request.yml', pullRequest(17), {}, onChange);
    expect(fixed.code).toBe(0);
    expect(commentsOn(17)).toHaveLength(1);
    expect(commentsOn(17)[0]!.body).toContain('no performance regression');
  }, 90_000);

  it('never: no comment, and not a single request for one', async () => {
    github.api.state.addPullRequest({ number: 18 });
    const before = github.api.requests.length;
    const result = await run('pull-request.yml', pullRequest(18), {}, { comment: 'never' });
    expect(result.code).toBe(0);
    expect(commentsOn(18)).toHaveLength(0);
    expect(github.api.requests.slice(before).filter((r) => r.path.includes('/issues/18/'))).toEqual(
      [],
    );
  }, 60_000);
});

describe('events that carry a pull request never store, whatever update-baseline says', () => {
  const dataTip = () => repos.git.in(repos.origin).run(['rev-parse', 'perf-gate-data']);
  it.each([
    ['pull_request_review', { review: { id: 1 } }],
    ['pull_request_review_comment', { comment: { id: 1 } }],
    ['issue_comment', { issue: { number: 7, pull_request: { url: 'x' } }, comment: { id: 1 } }],
  ])(
    '%s with update-baseline: always leaves the data branch as it was',
    async (name, extra) => {
      github.api.state.addPullRequest({ number: 70 });
      const before = await dataTip();
      const pr = pullRequestPayload({ number: 70, headSha: '70'.padStart(40, 'c') });
      const result = await run(
        'pull-request.yml',
        {
          name,
          // issue_comment runs on the default branch: it would be stored as a record of main.
          payload: { ...(name === 'issue_comment' ? {} : pr), ...extra, repository: pr.repository },
          ref: 'refs/heads/main',
          sha: mainSha,
        },
        {},
        { 'update-baseline': 'always' },
      );
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).toMatch(
        /baseline not updated: (a pull request never updates|only push)/,
      );
      expect(await dataTip()).toBe(before);
    },
    60_000,
  );
});

describe("a fork's pull request with the fork-safe pair (examples/workflows/fork-safe-pr.yml)", () => {
  it('runs when allow-fork-prs is true, leaves the report for stage 2 and writes nothing on GitHub', async () => {
    github.api.state.addPullRequest({ number: 19 });
    const before = github.api.requests.length;
    const result = await run('fork-safe-pr.yml', pullRequest(19, true));
    expect(result.code, result.stdout).toBe(0);
    // Its key (inf2-perf) is pull-request.yml's and nightly.yml's: it compares with what the
    // push to main stored in beforeAll.
    expect(result.outputs.verdict).toBe('pass');
    const folder = join(repos.checkout, 'perf-gate-output', 'report-artifact');
    const pr = JSON.parse(await readFile(join(folder, 'pr.json'), 'utf8'));
    expect(pr).toMatchObject({ number: 19, gateKey: 'inf2-perf', headSha: '19'.padStart(40, 'c') });
    expect(github.api.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
  }, 60_000);
});

describe('nightly runs (examples/workflows/nightly.yml)', () => {
  const schedule: ActionEvent = {
    name: 'schedule',
    payload: { schedule: '0 3 * * *' },
    ref: 'refs/heads/main',
    sha: 'a'.repeat(40),
  };
  const openIssues = () =>
    github.api.state.issues.filter(
      (i) => !i.isPullRequest && i.labels.includes('performance-regression'),
    );

  it('opens one issue per regression the history finds, and closes it when the level comes back', async () => {
    // One history with pull-request.yml (comment-key inf2-perf): the first night already
    // compares with what the push to main stored.
    const first = await run('nightly.yml', schedule);
    expect(first.outputs.verdict).toBe('pass');
    expect(openIssues()).toHaveLength(0);
    await seedEarlierNights('inf2-perf', 7);

    // The first slower night is one odd night; the second makes it a change point.
    // (The gate's own verdict on these nights is the compare stage's business, not this test's.)
    const regressed = await run('nightly.yml', schedule, { SIM_SLOWDOWN: '1.15' });
    expect(regressed.stdout).toContain('history: 0 open regression(s)');
    expect(openIssues()).toHaveLength(0);
    const firstBadRun = `${5000 + runs}-1`;
    // The second makes it a change point, but an issue waits for two nights in a row.
    const again = await run('nightly.yml', schedule, { SIM_SLOWDOWN: '1.15' });
    expect(again.stdout).toContain('history: 1 open regression(s)');
    expect(again.stdout).toContain('no issue until two nights in a row show it');
    expect(openIssues()).toHaveLength(0);
    const third = await run('nightly.yml', schedule, { SIM_SLOWDOWN: '1.15' });
    expect(third.stdout).toContain('history: 1 open regression(s)');
    const [issue] = openIssues();
    expect(openIssues()).toHaveLength(1);
    expect(issue?.body).toContain(`<!-- neuron-perf-gate:regression:inf2-perf@${firstBadRun} -->`);
    expect(issue?.body).toContain('qwen3-reranker');
    expect(issue?.title).toMatch(/^Performance regression in inf2-perf since /);
    // The night's job summary names the open regression and links its issue, whatever
    // the night's own verdict.
    expect(third.summary).toContain('`main` has 1 open performance regression');
    expect(third.summary).toContain(`/issues/${issue!.number})`);

    // A night on other hardware is another series: the issue is neither closed nor doubled.
    const elsewhere = await run('nightly.yml', schedule, {
      PERF_GATE_INSTANCE_TYPE: 'inf2.24xlarge',
    });
    expect(elsewhere.outputs.verdict).toBe('no-baseline');
    expect(github.api.state.issue(issue!.number)?.state).toBe('open');
    expect(openIssues()).toHaveLength(1);

    await run('nightly.yml', schedule);
    const passed = await run('nightly.yml', schedule);
    expect(passed.stdout).toContain('history: 0 open regression(s)');
    expect(github.api.state.issue(issue!.number)?.state).toBe('closed');
    // Three bad nights between good ones: a short regression, closed by the change point
    // that brought the level back.
    expect(commentsOn(issue!.number).map((c) => c.body)).toEqual([
      expect.stringMatching(/a later change point brought the level back/),
    ]);
    expect(
      github.api.state.issues.filter((i) => i.labels.includes('performance-regression')),
    ).toHaveLength(1);
  }, 240_000);

  it('names a benchmark that stopped reporting in the summary, with one issue for the gate', async () => {
    // A gate of its own: the other tests' nights never see this history.
    const inputs = { 'comment-key': 'fleet-night' };
    const first = await run('nightly.yml', schedule, {}, inputs);
    expect(first.code, first.stdout).toBe(0);
    // qwen3-reranker ran the 6 nights before today; llama-retired last ran 4 nights ago.
    await seedEarlierNights('fleet-night', 6);
    await seedEarlierNights('fleet-night', 8, { benchmark: 'llama-retired', skip: 3 });
    const night = await run('nightly.yml', schedule, {}, inputs);
    expect(night.code, night.stdout).toBe(0);
    const issues = github.api.state.issues.filter((i) =>
      (i.body ?? '').startsWith('<!-- neuron-perf-gate:missing:fleet-night@'),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]!.title).toMatch(/^\d+ series stopped reporting in fleet-night$/);
    expect(issues[0]!.body).toContain('`llama-retired` on');
    expect(issues[0]!.body).not.toContain('`qwen3-reranker`');
    expect(night.summary).toMatch(/> 📭 \*\*\d+ series of `main` stopped reporting\*\*/);
    expect(night.summary).toContain(`/issues/${issues[0]!.number})`);
    expect(night.summary).toMatch(/`llama-retired` on [^\n]*4 nights missed/);
    expect(night.stdout).toContain('missing-series issue opened');
  }, 240_000);
});

/**
 * Copies of the gate's newest stored night, dated the nights before it (the newest `skip`
 * left out), as `benchmark` when given: a history to compare with.
 */
async function seedEarlierNights(
  gateKey: string,
  nights: number,
  as: { benchmark?: string; skip?: number } = {},
): Promise<void> {
  const store = new GitBranchStore({
    repoDir: repos.checkout,
    workDir: await mkdtemp(join(repos.root, 'seed-')),
  });
  const { records } = await store.readStoredRecords(gateKey);
  const copies = earlierNights(records[records.length - 1]!.record, nights, as);
  await store.appendRecords(copies);
}

describe('two-stage comments (examples/workflows/fork-safe-comment.yml)', () => {
  async function reportArtifactOf(prNumber: number, edit?: (report: GateReport) => void) {
    const folder = join(repos.checkout, 'perf-gate-output', 'report-artifact');
    const report = JSON.parse(await readFile(join(folder, 'report.json'), 'utf8'));
    edit?.(report);
    const pr = JSON.parse(await readFile(join(folder, 'pr.json'), 'utf8'));
    expect(pr.number).toBe(prNumber);
    return {
      pr,
      files: {
        'report.json': JSON.stringify(report),
        'comment.md': await readFile(join(folder, 'comment.md'), 'utf8'),
        'pr.json': JSON.stringify(pr),
      },
    };
  }

  function workflowRunEvent(runId: number, headSha: string, prNumber: number): ActionEvent {
    const repo = { id: 1, name: 'inference', url: `${github.api.url}/repos/octo/inference` };
    return {
      name: 'workflow_run',
      payload: {
        action: 'completed',
        workflow_run: {
          id: runId,
          head_sha: headSha,
          head_branch: 'feature',
          event: 'pull_request',
          conclusion: 'success',
          head_repository: { full_name: 'octo/inference' },
          pull_requests: [
            {
              number: prNumber,
              head: { ref: 'feature', sha: headSha, repo },
              base: { ref: 'main', sha: mainSha, repo },
            },
          ],
        },
        repository: { full_name: 'octo/inference', default_branch: 'main' },
      },
      ref: 'refs/heads/main',
      sha: mainSha,
    };
  }

  /** Stage 1 on pull request `number`, and its report artifact stored on the run it made. */
  async function stageOne(number: number, edit?: (report: GateReport) => void) {
    // Its head, which stage 2 checks against the run through the API.
    const head = { ref: 'feature', sha: `${number}`.padStart(40, 'c'), repo: 'octo/inference' };
    github.api.state.addPullRequest({ number, head });
    const gate = await run('fork-safe-pr.yml', pullRequest(number));
    expect(gate.code).toBe(0);
    const { pr, files } = await reportArtifactOf(number, edit);
    const stage1 = github.api.state.addWorkflowRun({ event: 'pull_request', headSha: pr.headSha });
    github.api.state.addArtifact({
      runId: stage1.id,
      name: reportArtifactName(pr.gateKey),
      zip: zipOf(files),
    });
    return { pr, files, runId: stage1.id };
  }

  it('refuses a report whose head SHA is not the workflow_run one, and posts a matching one', async () => {
    const { pr, runId } = await stageOne(12);

    const refused = await run('fork-safe-comment.yml', workflowRunEvent(runId, 'f'.repeat(40), 12));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/::error::neuron-perf-gate: .*refusing to post/);
    expect(refused.outputs.verdict).toBe('error');
    expect(github.api.state.statuses.filter((s) => s.sha === pr.headSha)).toHaveLength(0);
    expect(commentsOn(12)).toHaveLength(0);

    const posted = await run('fork-safe-comment.yml', workflowRunEvent(runId, pr.headSha, 12));
    expect(posted.code, posted.stdout).toBe(0);
    expect(commentsOn(12)).toHaveLength(1);
    expect(commentsOn(12)[0]!.body).toContain(MARKER);
    // The resolved config travels in report.json; variable values never do.
    expect(commentsOn(12)[0]!.body).toContain('<summary>Configuration</summary>');
    const statuses = github.api.state.statuses.filter((s) => s.sha === pr.headSha);
    expect(statuses).toHaveLength(1);
    expect(statuses[0]!.context).toBe(`neuron-perf-gate/${pr.gateKey}`);
    expect(statuses[0]!.targetUrl).toMatch(new RegExp(`/actions/runs/${runId}$`));
  }, 60_000);

  it('sets the commit status and keeps the verdict when the comment is refused', async () => {
    const { pr, runId } = await stageOne(15);
    github.api.failNext('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', [
      { status: 422, body: { message: 'Validation Failed' } },
    ]);
    const posted = await run('fork-safe-comment.yml', workflowRunEvent(runId, pr.headSha, 15));
    expect(posted.code, posted.stdout).toBe(0);
    expect(posted.outputs.verdict).toBe('pass');
    expect(commentsOn(15)).toHaveLength(0);
    expect(github.api.state.statuses.filter((s) => s.sha === pr.headSha)).toHaveLength(1);
    expect(posted.stdout).toMatch(/^::warning::the comment on pull request #15 failed/m);
    // Escaped for markdown: a zero-width space keeps #15 from linking.
    expect(posted.summary).toMatch(/the comment on pull request #\u200b?15 failed/);
  }, 60_000);

  it('keeps a report of 400 benchmarks within the comment limit, saying what it left out', async () => {
    const { pr, files, runId } = await stageOne(13, (report) => {
      const only = report.benchmarks[0]!;
      report.benchmarks = Array.from({ length: 400 }, (_, i) => ({
        ...only,
        name: `qwen3-reranker/variant-${i}`,
      }));
    });
    expect(files['report.json'].length).toBeGreaterThan(65_536);
    const posted = await run('fork-safe-comment.yml', workflowRunEvent(runId, pr.headSha, 13));
    expect(posted.code, posted.stdout).toBe(0);
    const [comment] = commentsOn(13);
    expect(comment!.body.length).toBeLessThanOrEqual(65_536);
    expect(comment!.body).toMatch(/left out|dropped|omitted/i);
    expect(comment!.body).toContain(`/actions/runs/${runId}`);
  }, 60_000);
});

describe("the shortest setup (examples/workflows/minimal.yml): baselines kept as artifacts of main's pushes", () => {
  const results = useResultsService();

  /**
   * The example's one job on a new run of the workflow: what it uploads through the results
   * service becomes an artifact of that run in the REST API, as on GitHub.
   */
  async function gateJob(event: ActionEvent, env: Record<string, string> = {}) {
    const workflowRun = github.api.state.addWorkflowRun({
      event: event.name,
      headBranch: event.name === 'push' ? 'main' : 'feature',
      headSha: event.sha,
      status: 'in_progress',
    });
    results.service.artifacts.clear();
    const before = github.api.requests.length;
    const gate = await run('minimal.yml', event, {
      ...results.env(),
      GITHUB_RUN_ID: String(workflowRun.id),
      ...env,
    });
    for (const [name, artifact] of results.service.artifacts) {
      if (artifact.finalized) {
        github.api.state.addArtifact({ runId: workflowRun.id, name, zip: artifact.blob! });
      }
    }
    workflowRun.status = 'completed';
    workflowRun.conclusion = gate.code === 0 ? 'success' : 'failure';
    // Its token may only read: the example asks GitHub for nothing it would write with.
    const writes = github.api.requests.slice(before).filter((r) => r.method !== 'GET');
    return { gate, workflowRun, writes };
  }

  it('stores the push as an artifact, then fails a slower pull request against it and passes an unchanged one', async () => {
    const pushed = await gateJob({
      name: 'push',
      payload: pushPayload('main', mainSha),
      ref: 'refs/heads/main',
      sha: mainSha,
    });
    expect(pushed.gate.code, pushed.gate.stdout).toBe(0);
    expect(pushed.gate.outputs.verdict).toBe('no-baseline');
    const stored = github.api.state.artifacts.filter((a) => a.runId === pushed.workflowRun.id);
    expect(stored.map((a) => a.name)).toContainEqual(expect.stringMatching(/^perf-gate-baseline/));

    const slower = await gateJob(pullRequest(40), { SIM_SLOWDOWN: '1.15' });
    expect(slower.gate.code, slower.gate.stdout).toBe(1);
    expect(slower.gate.outputs.verdict).toBe('regression');
    expect(slower.gate.summary).toMatch(/performance regression/);
    expect(slower.writes).toEqual([]);
    expect(commentsOn(40)).toHaveLength(0);

    const unchanged = await gateJob(pullRequest(41));
    expect(unchanged.gate.code, unchanged.gate.stdout).toBe(0);
    expect(unchanged.gate.outputs.verdict).toBe('pass');
    expect(unchanged.writes).toEqual([]);
  }, 120_000);
});
