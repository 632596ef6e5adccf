// The subjects of the commits a history measured, from a local clone, so the page can say
// "abc1234 Batch prefill by default" and not only the sha. Records keep no subject; a
// clone knows those of the commits it has (a shallow checkout: only its own), and a
// commit it lacks is left out. Nothing here fails the page: no git, no subject. The same
// clone counts the commits of each open regression's range, so the page can say "the
// culprit is somewhere in these 3 commits"; a range it cannot count is left uncounted.

import type { Git } from '../baseline/git/git.js';
import { printable } from '../text/printable.js';
import { rangeKey, regressionRanges, type DashboardInput } from './page-data.js';

/** Longer subjects are cut: the page shows them in a tooltip and a table cell. */
const MAX_SUBJECT = 120;

/** Subject by full sha, for those of `shas` the repository of `git` holds. */
export async function commitSubjects(
  git: Git,
  shas: Iterable<string>,
): Promise<Map<string, string>> {
  try {
    return await subjectsOf(git, shas);
  } catch {
    // No git at all (not installed, not a folder): the page goes without subjects.
    return new Map();
  }
}

async function subjectsOf(git: Git, shas: Iterable<string>): Promise<Map<string, string>> {
  const wanted = [...new Set(shas)].filter((sha) => /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(sha));
  const subjects = new Map<string, string>();
  if (wanted.length === 0) return subjects;
  // `git log` stops at the first sha it does not know: ask which are there first.
  const check = await git.tryRun(['cat-file', '--batch-check'], {
    input: `${wanted.join('\n')}\n`,
  });
  if (!check.ok) return subjects;
  const present = check.stdout
    .split('\n')
    .filter((line) => / commit \d+$/.test(line))
    .map((line) => line.slice(0, line.indexOf(' ')));
  if (present.length === 0) return subjects;
  const log = await git.tryRun(['log', '--no-walk=unsorted', '--format=%H%x1f%s', '--stdin'], {
    input: `${present.join('\n')}\n`,
  });
  if (!log.ok) return subjects;
  for (const line of log.stdout.split('\n')) {
    const [sha = '', subject = ''] = line.split('\x1f');
    const shown = printable(subject).trim();
    if (sha && shown) {
      subjects.set(sha, shown.length > MAX_SUBJECT ? `${shown.slice(0, MAX_SUBJECT - 1)}…` : shown);
    }
  }
  return subjects;
}

/** The page's input with the commits of each open regression's range, where `git` can count them. */
export async function withRangeCommits(git: Git, input: DashboardInput): Promise<DashboardInput> {
  const counts = await rangeCommitCounts(git, regressionRanges(input));
  return counts.size > 0 ? { ...input, rangeCommits: counts } : input;
}

/**
 * Commits after `good` up to and including `bad` (`git rev-list --count good..bad`), by
 * `rangeKey`, for the ranges whose ends the clone holds and where `good` is an ancestor
 * of `bad`: a count over a range that is no line of history would mislead.
 */
export async function rangeCommitCounts(
  git: Git,
  ranges: Iterable<{ good: string; bad: string }>,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  try {
    for (const range of ranges) {
      const key = rangeKey(range);
      if (counts.has(key) || !isFullSha(range.good) || !isFullSha(range.bad)) continue;
      const count = await countRange(git, range.good, range.bad);
      if (count !== undefined) counts.set(key, count);
    }
  } catch {
    // No git at all: the page says "the commits between them".
  }
  return counts;
}

async function countRange(git: Git, good: string, bad: string): Promise<number | undefined> {
  const present = await git.tryRun(['cat-file', '--batch-check'], { input: `${good}\n${bad}\n` });
  if (!present.ok || present.stdout.split('\n').filter((l) => / commit \d+$/.test(l)).length < 2) {
    return undefined;
  }
  const ancestor = await git.tryRun(['merge-base', '--is-ancestor', good, bad]);
  if (!ancestor.ok) return undefined;
  const counted = await git.tryRun(['rev-list', '--count', `${good}..${bad}`]);
  const count = counted.ok ? Number(counted.stdout.trim()) : NaN;
  return Number.isSafeInteger(count) && count > 0 ? count : undefined;
}

function isFullSha(commit: string): boolean {
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(commit);
}
