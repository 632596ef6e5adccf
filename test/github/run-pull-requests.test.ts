import { describe, expect, it } from 'vitest';
import type { WorkflowRunContext } from '../../src/github/event.js';
import { verifyRunPullRequests } from '../../src/github/run-pull-requests.js';
import { useGitHubApi } from '../support/github-test.js';

const HEAD = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const github = useGitHubApi({ owner: 'octo', repo: 'inference' });

function payloadOf(runId: number, fields: Partial<WorkflowRunContext> = {}): WorkflowRunContext {
  return { id: runId, headSha: HEAD, pullRequests: [], event: 'pull_request', ...fields };
}

/** A pull_request run of HEAD from the branch 'feature' of the fork stranger/inference. */
function forkRun() {
  return github.api.state.addWorkflowRun({
    event: 'pull_request',
    headSha: HEAD,
    headBranch: 'feature',
    headRepository: 'stranger/inference',
  });
}

/** The run's pull requests that octo/inference's gate may post to. */
function verify(workflowRun: WorkflowRunContext) {
  return verifyRunPullRequests(github.octokit, { owner: 'octo', repo: 'inference', workflowRun });
}

describe('verifyRunPullRequests', () => {
  it("keeps a listed pull request whose head is the run's commit in the run's repository", async () => {
    github.api.state.addPullRequest({
      number: 7,
      head: { ref: 'feature', sha: HEAD, repo: 'octo/inference' },
    });
    const run = github.api.state.addWorkflowRun({ event: 'pull_request', headSha: HEAD });
    const verified = await verify(payloadOf(run.id, { pullRequests: [7] }));
    expect(verified).toMatchObject({ prNumbers: [7], rejected: [], headRepo: 'octo/inference' });
  });

  it("drops the base repository's pull request that only shares a fork run's branch name", async () => {
    github.api.state.addPullRequest({
      number: 8,
      head: { ref: 'feature', sha: OTHER, repo: 'octo/inference' },
    });
    const run = forkRun();
    const verified = await verify(payloadOf(run.id, { pullRequests: [8] }));
    expect(verified.prNumbers).toEqual([]);
    expect(verified.rejected[0]).toMatch(/PR #8: its head is in octo\/inference/);
  });

  it("finds a fork's pull request by the fork's branch when the payload lists none", async () => {
    github.api.state.addPullRequest({
      number: 9,
      head: { ref: 'feature', sha: HEAD, repo: 'stranger/inference' },
    });
    github.api.state.addPullRequest({
      number: 10,
      head: { ref: 'feature', sha: HEAD, repo: 'octo/inference' },
    });
    const run = forkRun();
    const verified = await verify(payloadOf(run.id));
    expect(verified.prNumbers).toEqual([9]);
  });

  it("refuses a payload whose head commit is not the run's", async () => {
    const run = github.api.state.addWorkflowRun({ event: 'pull_request', headSha: OTHER });
    await expect(verify(payloadOf(run.id, { pullRequests: [7] }))).rejects.toThrow(
      /refusing to post/,
    );
  });
});
