// The subjects of the commits a history measured, from a local clone, so the page can say
// "abc1234 Batch prefill by default" and not only the sha. Records keep no subject; a
// clone knows those of the commits it has (a shallow checkout: only its own), and a
// commit it lacks is left out. Nothing here fails the page: no git, no subject.

import type { Git } from '../baseline/git/git.js';
import { printable } from '../text/printable.js';

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
