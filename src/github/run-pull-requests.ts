// Which pull requests a `workflow_run` was for, checked against the API. The payload's
// `pull_requests` is not proof: GitHub lists the open pull requests whose head branch has
// the run's branch name, so a fork's run on `feature` is listed with this repository's
// pull request from its own `feature`. Each pull request is kept only when the API says
// its head is the run's commit in the run's head repository.

import type { GitHubClient } from './client.js';
import type { WorkflowRunContext } from './event.js';

export interface VerifiedRun {
  /** The run's head commit, as the API gives it. */
  headSha: string;
  /** `owner/name` of the repository the run's code came from, as the API gives it. */
  headRepo: string;
  /** Open pull requests into this repository whose head is that commit of that repository. */
  prNumbers: number[];
  /** Pull requests the payload named that did not match, with why, for the log. */
  rejected: string[];
}

export class RunVerificationError extends Error {
  override name = 'RunVerificationError';
}

export async function verifyRunPullRequests(
  octokit: GitHubClient,
  options: { owner: string; repo: string; workflowRun: WorkflowRunContext },
): Promise<VerifiedRun> {
  const { owner, repo, workflowRun } = options;
  const { data: run } = await octokit.rest.actions.getWorkflowRun({
    owner,
    repo,
    run_id: workflowRun.id,
  });
  const headSha = run.head_sha.toLowerCase();
  const headRepo = run.head_repository?.full_name;
  if (!headRepo) {
    throw new RunVerificationError(
      `the API gives no head repository for run ${workflowRun.id}; refusing to post`,
    );
  }
  if (headSha !== workflowRun.headSha.toLowerCase()) {
    throw new RunVerificationError(
      `the workflow_run payload says run ${workflowRun.id} is at ${workflowRun.headSha.slice(0, 7)}, the API says ${headSha.slice(0, 7)}; refusing to post`,
    );
  }

  const candidates =
    workflowRun.pullRequests.length > 0
      ? workflowRun.pullRequests
      : await openPullsFromBranch(octokit, owner, repo, headRepo, run.head_branch);
  const prNumbers: number[] = [];
  const rejected: string[] = [];
  for (const number of new Set(candidates)) {
    const { data: pull } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
    const problem =
      pull.state !== 'open'
        ? 'it is not open'
        : pull.base.repo.full_name.toLowerCase() !== `${owner}/${repo}`.toLowerCase()
          ? `it goes into ${pull.base.repo.full_name}`
          : pull.head.repo?.full_name.toLowerCase() !== headRepo.toLowerCase()
            ? `its head is in ${pull.head.repo?.full_name ?? 'a deleted repository'}, the run's code in ${headRepo}`
            : pull.head.sha.toLowerCase() !== headSha
              ? `its head is ${pull.head.sha.slice(0, 7)}, the run's ${headSha.slice(0, 7)}`
              : undefined;
    if (problem) rejected.push(`PR #${number}: ${problem}`);
    else prNumbers.push(number);
  }
  return { headSha, headRepo, prNumbers, rejected };
}

/** GitHub leaves `pull_requests` empty for a fork's run: ask for that fork's branch. */
async function openPullsFromBranch(
  octokit: GitHubClient,
  owner: string,
  repo: string,
  headRepo: string,
  branch: string | null,
): Promise<number[]> {
  if (!branch) return [];
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    owner,
    repo,
    state: 'open',
    per_page: 100,
    head: `${headRepo.split('/')[0]}:${branch}`,
  });
  return pulls.map((pull) => pull.number);
}
