// The action's A/B comparisons (src/ab/), in place of a stored baseline, on this runner in
// the same job. `compare-with: merge-base`: a pull request against the commit it would
// merge into (actions/checkout checks out the merge commit; its first parent is the base
// branch as the pull request would merge into it). `compare-with: environments`: the
// checkout under two sets of variables (an SDK upgrade: two virtualenvs' PATH).

import { Git } from '../baseline/git/git.js';
import { Worktrees } from '../bisect/worktrees.js';
import { AB_DEFAULTS, runAb, type SideRequest } from '../ab/gate-ab.js';
import type { AbDependencies } from '../ab/run-ab.js';
import type { ConfigLoader } from '../ab/side-configs.js';
import type { GateConfig } from '../config/types.js';
import { usageError } from '../errors.js';
import type { GateReport } from '../model.js';

/** What the A/B needs besides the runner; `loadConfig` reads the base commit's own config. */
type AbActionDependencies = AbDependencies & { runUrl?: string; loadConfig?: ConfigLoader };

export async function runAgainstMergeBase(
  config: GateConfig,
  workspace: string,
  deps: AbActionDependencies,
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
  return runSides(config, git.in(root), deps, {
    base: { ref: base, env: {}, label: 'the base branch' },
    head: { env: {}, label: 'the pull request merged' },
  });
}

/**
 * The checkout under the base variables (and config file) against the checkout under the
 * head's: two SDKs, or two serving stacks.
 */
export async function runEnvironments(
  config: GateConfig,
  workspace: string,
  sides: {
    env: { base: Record<string, string>; head: Record<string, string> };
    configs?: { base?: string | undefined; head?: string | undefined };
  },
  deps: AbActionDependencies,
): Promise<GateReport> {
  const { env, configs = {} } = sides;
  const variables = Object.keys(env.base).length + Object.keys(env.head).length;
  if (variables === 0 && configs.base === undefined && configs.head === undefined) {
    throw usageError(
      "compare-with: environments needs base-env or head-env: the variables that make the two sides differ (e.g. head-env: 'PATH=/opt/venv-2.27/bin:/usr/bin'), or base-config and head-config: two stacks' config files",
    );
  }
  const own = (file: string | undefined) => (file === undefined ? {} : { config: file });
  const git = new Git({ cwd: workspace });
  const top = await git.tryRun(['rev-parse', '--show-toplevel']);
  const root = top.ok ? top.stdout.trim() : workspace;
  return runSides(config, git.in(root), deps, {
    base: { env: env.base, label: 'the base environment', ...own(configs.base) },
    head: { env: env.head, label: 'the head environment', ...own(configs.head) },
  });
}

async function runSides(
  config: GateConfig,
  git: Git,
  deps: AbActionDependencies,
  sides: { base: SideRequest; head: SideRequest },
): Promise<GateReport> {
  const worktrees = await Worktrees.create(git);
  try {
    return await runAb(
      config,
      {
        root: git.cwd,
        git,
        worktrees,
        ...sides,
        ...AB_DEFAULTS,
        ...(deps.runUrl ? { runUrl: deps.runUrl } : {}),
        ...(deps.loadConfig ? { loadConfig: deps.loadConfig } : {}),
      },
      deps,
    );
  } finally {
    await worktrees.removeAll();
  }
}
