// One pull-request comment per gate, kept up to date: the comment carries a hidden marker,
// later runs find it by that marker and edit it in place instead of adding another.
import type { GitHubClient, GitHubLog } from './client.js';
import { GitHubPermissionError, isPermissionError } from './request-error.js';

export { isPermissionError } from './request-error.js';

/** When to write the comment: every run, only when the figures changed, or never. */
export type CommentPolicy = 'always' | 'on-change' | 'never';

export interface StickyCommentOptions {
  owner: string;
  repo: string;
  /** The pull request (or issue) number. */
  issueNumber: number;
  /** Tells this gate's comment apart from other gates' on the same PR: the gate key. */
  key: string;
  /** The markdown; the marker is appended here. */
  body: string;
  policy: CommentPolicy;
  /** Whether the figures differ from what the last comment could have said. */
  changed: boolean;
  log: GitHubLog;
  /**
   * The login the token writes as; only its comments are ever edited. Found with
   * `tokenLogin` when not given.
   */
  author?: string;
}

export interface StickyCommentOutcome {
  action: 'created' | 'updated' | 'skipped';
  id?: number;
  url?: string;
  reason?: string;
}

/** GitHub refuses comment bodies longer than this many characters. */
export const MAX_COMMENT_LENGTH = 65_536;
const DEFAULT_AUTHOR = 'github-actions[bot]';
const MARKER_PREFIX = 'neuron-perf-gate:comment:';

/**
 * The hidden HTML comment that marks a gate's comment. The key keeps letters, digits and
 * `._:@+=-`; anything else (spaces, `>`) becomes `-`, so the marker cannot end early.
 */
export function commentMarker(key: string): string {
  const safe =
    key
      .normalize('NFKC')
      .replace(/[^\p{L}\p{N}._:@+=-]+/gu, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 100) || 'default';
  return `<!-- ${MARKER_PREFIX}${safe} -->`;
}

/** Creates, updates or leaves alone the gate's comment on a pull request, as `policy` says. */
export async function upsertStickyComment(
  octokit: GitHubClient,
  options: StickyCommentOptions,
): Promise<StickyCommentOutcome> {
  if (options.policy === 'never') {
    return { action: 'skipped', reason: 'the comment policy is "never"' };
  }
  const marker = commentMarker(options.key);
  const body = `${options.body.trimEnd()}\n\n${marker}\n`;
  if (body.length > MAX_COMMENT_LENGTH) {
    throw new Error(
      `The PR comment is ${body.length} characters long with its marker; GitHub takes at most ` +
        `${MAX_COMMENT_LENGTH}. The report should have been shortened before it got here.`,
    );
  }
  const { owner, repo, issueNumber, log } = options;

  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100,
  });
  const author = options.author ?? (await tokenLogin(octokit));
  const existing = newestMarked(comments, marker, author);

  if (existing) {
    if (existing.body === body) {
      return { ...found(existing), action: 'skipped', reason: 'the comment already says this' };
    }
    // Updated even when nothing changed in the figures: the old text may be stale otherwise.
    try {
      const { data } = await octokit.rest.issues.updateComment({
        owner,
        repo,
        comment_id: existing.id,
        body,
      });
      log.info(`Updated the PR comment: ${data.html_url}`);
      return { action: 'updated', ...found(data) };
    } catch (error) {
      // A comment we may not edit (locked, or not ours after all) must not keep the report
      // off the pull request, nor read as a missing permission: post a new one instead.
      if (!isPermissionError(error) && statusOf(error) !== 404) throw error;
      log.info(`Could not edit comment ${existing.id} (${statusOf(error)}); posting a new one`);
    }
  }

  if (options.policy === 'on-change' && !options.changed) {
    return { action: 'skipped', reason: 'nothing changed and there is no comment to update' };
  }
  const { data } = await write('Posting the PR comment', () =>
    octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body }),
  );
  log.info(`Posted the PR comment: ${data.html_url}`);
  return { action: 'created', ...found(data) };
}

interface ListedComment {
  id: number;
  body?: string;
  html_url: string;
  created_at: string;
  user: { login: string } | null;
}

/**
 * The comment to edit: the newest one the token's own identity wrote that ends with the
 * marker. The marker is visible in every gate comment, so anyone can copy it: another
 * author's comment is never edited, whatever it holds.
 */
function newestMarked(
  comments: ListedComment[],
  marker: string,
  author: string,
): ListedComment | undefined {
  const pool = comments.filter(
    (c) =>
      c.user?.login.toLowerCase() === author.toLowerCase() &&
      c.body !== undefined &&
      endsWithMarker(c.body, marker),
  );
  return pool.reduce<ListedComment | undefined>((newest, c) => {
    if (!newest) return c;
    const order = Date.parse(c.created_at) - Date.parse(newest.created_at) || c.id - newest.id;
    return order > 0 ? c : newest;
  }, undefined);
}

function endsWithMarker(body: string, marker: string): boolean {
  return body.trimEnd().split('\n').at(-1) === marker;
}

/**
 * The login the token writes comments as. A personal access token can ask `GET /user`;
 * an installation token (GITHUB_TOKEN, a GitHub App's) is refused there (403), but
 * GraphQL's `viewer` names it: `github-actions[bot]` for GITHUB_TOKEN, `<app>[bot]` for
 * an app's. When neither answers, github-actions[bot], which GITHUB_TOKEN writes as: with
 * another identity the gate then posts a new comment each run, and still never edits
 * anyone else's.
 */
export async function tokenLogin(octokit: GitHubClient): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch {
    // An installation token: ask GraphQL below.
  }
  try {
    const answer = await octokit.graphql<{ viewer?: { login?: unknown } }>(
      'query { viewer { login } }',
    );
    const login = answer.viewer?.login;
    if (typeof login === 'string' && login !== '') return login;
  } catch {
    // Neither API says who the token is.
  }
  return DEFAULT_AUTHOR;
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function found(comment: ListedComment): { id: number; url: string } {
  return { id: comment.id, url: comment.html_url };
}

/** Runs a write, turning a refusal for lack of permission into an error that says what to do. */
async function write<T>(action: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (isPermissionError(error)) {
      throw new GitHubPermissionError(action, 'pull-requests: write', error);
    }
    throw error;
  }
}
