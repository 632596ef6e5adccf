// The dashboard on a branch for GitHub Pages (`gh-pages`): the page's files as one new
// commit on top of the branch's tip (an orphan the first time), pushed without force and
// retried on top of a new tip when another job got there first. The work happens in a
// scratch bare repository (see ../baseline/git/scratch.ts); the user's checkout is only read.
//
// It writes only a branch it owns: never the repository's default branch (asked of the
// remote), never a branch the caller names as off limits (the data branch, the run's own
// branch), and never an existing branch without the marker file it writes, so a branch of
// code or hand-made pages is never replaced.

import { join } from 'node:path';
import { isUsableBranchName } from '../config/branch-name.js';
import { lastLines, type Git } from '../baseline/git/git.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  isContention,
  pauseBeforeRetry,
  type RetryPacing,
} from '../baseline/git/push-retry.js';
import { fetchBranchTip, openScratchRepository, type HttpToken } from '../baseline/git/scratch.js';

/** The file that says a branch is the dashboard's: it is replaced only when this is there. */
export const PAGES_MARKER_FILE = '.neuron-perf-gate';
const MARKER_TEXT =
  'This branch is written by neuron-perf-gate (input dashboard: pages). Each run that stores\nresults replaces its files with a new commit; do not keep other files here.\n';

/** Where the scratch repository keeps the fetched tip of the branch. */
const TIP_REF = 'refs/perf-gate/pages-tip';

export interface PageFile {
  /** A file name at the branch's root: no folders. */
  name: string;
  content: string;
}

export interface PagesBranchOptions extends RetryPacing {
  /** The checked-out workspace; its `origin` gets the branch. */
  repoDir: string;
  /** The remote URL or path; `origin` of repoDir unless given. */
  remote?: string;
  /** Authenticates git when the checkout persisted no credentials (see scratch.ts). */
  token?: HttpToken;
  branch: string;
  /** A scratch folder of this process (created). */
  workDir: string;
  files: readonly PageFile[];
  /** The commit message's first line. */
  message: string;
  /** Branches never to write, each with why (the data branch, the run's own branch, ...). */
  offLimits: readonly { branch: string; why: string }[];
  maxAttempts?: number;
}

export interface PagesBranchResult {
  /** The branch's commit that holds the files. */
  commit: string;
  /** False when the branch held these files already: nothing was pushed. */
  changed: boolean;
  attempts: number;
}

/** Commits `files` as the whole content of `branch` and pushes it; throws on any refusal. */
export async function publishToPagesBranch(
  options: PagesBranchOptions,
): Promise<PagesBranchResult> {
  const { branch } = options;
  if (!isUsableBranchName(branch)) {
    throw new Error(
      `dashboard branch '${branch}' is not a usable branch name; use letters, digits, '.', '_', '-' and '/'`,
    );
  }
  for (const refused of options.offLimits) {
    if (refused.branch === branch) {
      throw new Error(
        `the dashboard is not published to '${branch}': it is ${refused.why}. Name a branch of its own in dashboard-branch, such as gh-pages`,
      );
    }
  }
  const git = await openScratchRepository({
    repoDir: options.repoDir,
    ...(options.remote !== undefined ? { remote: options.remote } : {}),
    dir: join(options.workDir, 'pages.git'),
    ...(options.token ? { token: options.token } : {}),
    partial: false,
    noOriginAdvice:
      "the dashboard is published to a branch of the repository's origin: check the repository out with actions/checkout, or use dashboard: artifact.",
  });
  const head = await remoteDefaultBranch(git);
  if (head === branch) {
    throw new Error(
      `the dashboard is not published to '${branch}': it is the repository's default branch. Name a branch of its own in dashboard-branch, such as gh-pages`,
    );
  }

  const tree = await git.run(['mktree'], {
    input: `${(await blobLines(git, [...options.files, { name: PAGES_MARKER_FILE, content: MARKER_TEXT }])).join('\n')}\n`,
  });
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let tip = await fetchTip(git, branch);
  for (let attempt = 1; ; attempt += 1) {
    if (tip) {
      await checkOwned(git, branch, tip);
      if ((await git.run(['rev-parse', `${tip}^{tree}`])) === tree) {
        return { commit: tip, changed: false, attempts: attempt };
      }
    }
    const commit = await git.run(['commit-tree', tree, ...(tip ? ['-p', tip] : []), '-F', '-'], {
      input: `${options.message} [skip ci]\n`,
    });
    // Not --no-thin: the page sent as a delta against the tip's page is a few kilobytes.
    const push = await git.tryRun([
      'push',
      '--porcelain',
      '--no-verify',
      'origin',
      `${commit}:refs/heads/${branch}`,
    ]);
    if (push.timedOut) {
      throw new Error(
        `could not push the dashboard to '${branch}': ${lastLines(push.stderr)}. Check that the runner reaches the repository's remote`,
      );
    }
    if (push.ok) return { commit, changed: true, attempts: attempt };
    const output = `${push.stdout}\n${push.stderr}`;
    const before = tip;
    tip = await fetchTip(git, branch);
    if (tip === before && !isContention(output)) {
      throw new Error(
        `could not push the dashboard to '${branch}': ${lastLines(output)}. Check that the job may push (permissions: contents: write) and that the branch is not protected against it.`,
      );
    }
    if (attempt >= maxAttempts) {
      throw new Error(
        `could not push the dashboard to '${branch}' after ${attempt} attempts: other jobs kept getting there first (${lastLines(output)})`,
      );
    }
    await pauseBeforeRetry(attempt, options);
  }
}

/** `100644 blob <oid>\t<name>` lines of `git mktree` for the files, written as blobs. */
async function blobLines(git: Git, files: readonly PageFile[]): Promise<string[]> {
  const lines: string[] = [];
  for (const file of files) {
    if (!/^[A-Za-z0-9._-]+$/.test(file.name) || /^\.\.?$/.test(file.name)) {
      throw new Error(`page file name '${file.name}' is not a plain file name`);
    }
    const oid = await git.run(['hash-object', '-w', '--no-filters', '--stdin'], {
      input: file.content,
    });
    lines.push(`100644 blob ${oid}\t${file.name}`);
  }
  return lines;
}

/** The branch the remote's HEAD names: the repository's default branch. */
async function remoteDefaultBranch(git: Git): Promise<string | undefined> {
  const listed = await git.tryRun(['ls-remote', '--symref', 'origin', 'HEAD']);
  if (!listed.ok) {
    throw new Error(`could not reach the repository's origin: ${lastLines(listed.stderr)}`);
  }
  return /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(listed.stdout)?.[1];
}

/** The branch's tip, fetched one commit deep with its files; undefined when there is none. */
function fetchTip(git: Git, branch: string): Promise<string | undefined> {
  return fetchBranchTip(git, { branch, ref: TIP_REF, flags: [], what: 'the dashboard branch' });
}

/** Throws unless the tip holds the marker file: the branch is someone else's. */
async function checkOwned(git: Git, branch: string, tip: string): Promise<void> {
  const marker = await git.tryRun(['cat-file', '-e', `${tip}:${PAGES_MARKER_FILE}`]);
  if (!marker.ok) {
    throw new Error(
      `the dashboard is not published to '${branch}': the branch exists and was not written by neuron-perf-gate (it has no ${PAGES_MARKER_FILE} file), so its files are left as they are. Name a new branch in dashboard-branch, or delete this one if it holds nothing of value`,
    );
  }
}
