// `compare-with: merge-base`: a pull request measured against the commit it would merge
// into, on this runner in the same job (A/B mode, src/ab/), instead of a stored baseline.
// actions/checkout checks out the merge commit; its first parent is the base branch as
// the pull request would merge into it.

import { Git } from '../baseline/git/git.js';
import { Worktrees } from '../bisect/worktrees.js';
import { AB_DEFAULTS, runAb } from '../ab/gate-ab.js';
import type { AbDependencies } from '../ab/run-ab.js';
import type { GateConfig } from '../config/types.js';
import { usageError } from '../errors.js';
import type { GateReport } from '../model.js';

export async function runAgainstMergeBase(
  config: GateConfig,
  workspace: string,
  deps: AbDependencies & { runUrl?: string },
): Promise<GateReport> {
  const git = new Git({ cwd: workspace });
  const top = await git.tryRun(['rev-parse', '--show-toplevel']);
  if (!top.ok)
    throw usageError(`compare-with: merge-base needs a git checkout; ${workspace} is none`);
  const root = top.stdout.trim();
  const parents = await git.in(root).tryRun(['rev-list', '--parents', '-n', '1', 'HEAD']);
  const [, base, , extra] = parents.ok ? parents.stdout.trim().split(' ') : [];
  if (base === undefined || extra !== undefined) {
    throw usageError(
      "compare-with: merge-base compares the pull request's merge commit with its first parent, which this checkout lacks: check out with actions/checkout's fetch-depth: 2 (or 0)",
    );
  }
  const worktrees = await Worktrees.create(git.in(root));
  try {
    return await runAb(
      config,
      {
        root,
        git: git.in(root),
        worktrees,
        base: { ref: base, env: {}, label: 'the base branch' },
        head: { env: {}, label: 'the pull request merged' },
        ...AB_DEFAULTS,
        ...(deps.runUrl ? { runUrl: deps.runUrl } : {}),
      },
      deps,
    );
  } finally {
    await worktrees.removeAll();
  }
}
