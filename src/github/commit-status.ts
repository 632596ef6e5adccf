// The gate's verdict as a commit status, the small line with a dot next to the commit.
import type { GitHubClient } from './client.js';

export type CommitState = 'success' | 'failure' | 'error' | 'pending';

export interface CommitStatusOptions {
  owner: string;
  repo: string;
  sha: string;
  state: CommitState;
  /** Shortened to GitHub's 140 characters, on one line. */
  description: string;
  /** Names the status; a later status with the same context replaces the earlier one. */
  context: string;
  /** Where the status links to, e.g. the workflow run. */
  targetUrl?: string;
}

/** GitHub refuses a longer status description (422 "description is too long"). */
export const MAX_STATUS_DESCRIPTION = 140;

export async function setCommitStatus(
  octokit: GitHubClient,
  options: CommitStatusOptions,
): Promise<{ id: number; url: string }> {
  const { data } = await octokit.rest.repos.createCommitStatus({
    owner: options.owner,
    repo: options.repo,
    sha: options.sha,
    state: options.state,
    description: statusDescription(options.description),
    context: options.context,
    ...(options.targetUrl ? { target_url: options.targetUrl } : {}),
  });
  return { id: data.id, url: data.url };
}

/**
 * The description on one line, cut to 140 characters with an ellipsis. GitHub counts
 * characters, not UTF-16 units, so an emoji counts once and is never cut in half.
 */
export function statusDescription(text: string): string {
  const characters = [...text.replace(/\s+/g, ' ').trim()];
  if (characters.length <= MAX_STATUS_DESCRIPTION) return characters.join('');
  const kept = characters
    .slice(0, MAX_STATUS_DESCRIPTION - 1)
    .join('')
    .trimEnd();
  return `${kept}…`;
}
