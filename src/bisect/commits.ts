// The commits a bisection walks: both ends resolved and checked, and the first-parent line
// between them. Every problem here is the user's to fix, so each message says how.

import type { Git } from '../baseline/git/git.js';
import { BisectError } from './search.js';

export interface Commit {
  sha: string;
  subject: string;
}

export interface CommitRange {
  /** The repository's top folder. */
  root: string;
  good: Commit;
  bad: Commit;
  /** After good up to and including bad, oldest first, along bad's first parents. */
  candidates: Commit[];
}

/**
 * Resolves `--good` and `--bad` in the repository `git` runs in and lists the commits
 * between them. Refuses: a folder that is no repository, names that are no commit, the
 * same commit twice, good not an ancestor of bad, and uncommitted changes to tracked
 * files (they would be in none of the measured checkouts, yet look like part of the
 * bad build).
 */
export async function resolveRange(git: Git, good: string, bad: string): Promise<CommitRange> {
  const top = await git.tryRun(['rev-parse', '--show-toplevel']);
  if (!top.ok) {
    throw new BisectError(
      `${git.cwd} is not inside a git repository; run bisect from a clone of the project (${firstLine(top.stderr)})`,
    );
  }
  const root = top.stdout.trim();
  const repo = git.in(root);
  const goodSha = await resolveCommit(repo, '--good', good, root);
  const badSha = await resolveCommit(repo, '--bad', bad, root);
  if (goodSha === badSha) {
    throw new BisectError(
      `--good ${good} and --bad ${bad} are the same commit ${short(goodSha)}; give the last commit known to be fast as --good and a slow one as --bad`,
    );
  }
  if (!(await isAncestor(repo, goodSha, badSha))) {
    const swapped = await isAncestor(repo, badSha, goodSha);
    throw new BisectError(
      swapped
        ? `--good ${good} (${short(goodSha)}) is newer than --bad ${bad} (${short(badSha)}): they look swapped. --good is the older, fast commit; --bad the newer, slow one`
        : `--good ${good} (${short(goodSha)}) is not an ancestor of --bad ${bad} (${short(badSha)}): they are on different branches. Give as --good a commit the bad one descends from, e.g. their merge base: git merge-base ${good} ${bad}`,
    );
  }
  const dirty = await repo.run(['status', '--porcelain', '--untracked-files=no']);
  if (dirty.trim() !== '') {
    const files = dirty
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3));
    throw new BisectError(
      `${root} has uncommitted changes to tracked files (${listed(files)}). bisect measures committed trees only, so these changes would be in none of the measured builds; commit or stash them first (git stash)`,
    );
  }
  const log = await repo.run([
    'log',
    '--first-parent',
    '--reverse',
    '--format=%H%x1f%s',
    `${goodSha}..${badSha}`,
  ]);
  const candidates = log
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha = '', subject = ''] = line.split('\x1f');
      return { sha, subject };
    });
  const subjectOf = async (sha: string) => repo.run(['log', '-1', '--format=%s', sha]);
  return {
    root,
    good: { sha: goodSha, subject: await subjectOf(goodSha) },
    bad: { sha: badSha, subject: await subjectOf(badSha) },
    candidates,
  };
}

/** The commit `name` (a SHA, tag or branch) names; `fail` makes the error that says why not. */
export async function resolveCommit(
  git: Git,
  flag: string,
  name: string,
  root: string,
  fail: (message: string) => Error = (message) => new BisectError(message),
): Promise<string> {
  if (name.startsWith('-') || name.trim() === '') {
    throw fail(`${flag} needs a commit (a SHA, a tag or a branch), got '${name}'`);
  }
  const result = await git.tryRun([
    'rev-parse',
    '--verify',
    '--quiet',
    '--end-of-options',
    `${name}^{commit}`,
  ]);
  if (!result.ok) {
    throw fail(
      `${flag} ${name}: no such commit in ${root}; check the SHA, or fetch it first (git fetch origin ${name})`,
    );
  }
  return result.stdout.trim();
}

async function isAncestor(git: Git, ancestor: string, descendant: string): Promise<boolean> {
  return (await git.tryRun(['merge-base', '--is-ancestor', ancestor, descendant])).ok;
}

export function short(sha: string): string {
  return sha.slice(0, 7);
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

function listed(files: string[]): string {
  const shown = files.slice(0, 5).join(', ');
  return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}
