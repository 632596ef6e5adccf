// The run and judge phases: the benchmarks run in the sandbox and are judged, against the
// stored baseline or, with compare-with, against a second side measured here (A/B).

import { resolveGateConfig } from '../config/load.js';
import { readActionInputs } from '../inputs.js';
import { decideBaselineUpdate, type RunEvent } from '../baseline/update.js';
import type { GateReport } from '../model.js';
import { runGate } from '../pipeline.js';
import { createProcessRunner } from '../runner/process.js';
import { runAgainstMergeBase, runEnvironments } from './ab-comparison.js';
import type { GateSetup } from './gate-setup.js';
import { isolatePullRequestCode } from './isolation.js';

/** The event as the store's policy sees it. */
export function runEventOf(setup: GateSetup): RunEvent {
  const { github, defaultBranch } = setup;
  return {
    name: github.eventName,
    carriesPullRequest: github.carriesPullRequest,
    ...(github.refName ? { branch: github.refName } : {}),
    ...(defaultBranch ? { defaultBranch } : {}),
  };
}

/** Runs and judges the benchmarks; the sandbox is gone when this returns. */
export async function measureAndJudge(setup: GateSetup): Promise<GateReport> {
  const { settings, github, config, workspace, log } = setup;
  const sandbox = await isolatePullRequestCode({
    prefer: settings.isolation,
    require: settings.requireIsolation,
    github,
    config,
    workspace,
    log,
  });
  try {
    const runner = createProcessRunner({ sandbox });
    const url = setup.runUrl;
    const abDeps = { runner, log, env: process.env, ...(url ? { runUrl: url } : {}) };
    // compare-with: A/B on this runner instead of the stored baseline (ab-comparison.ts).
    if (settings.compareWith === 'merge-base' && github.pullRequest) {
      // The base side runs by the base commit's config, read as the gate read the head's.
      const loadConfig = (worktree: string) =>
        resolveGateConfig(readActionInputs(), { workspace: worktree });
      return await runAgainstMergeBase(config, workspace, { ...abDeps, loadConfig });
    }
    if (settings.compareWith === 'environments') {
      const env = { base: settings.baseEnv, head: settings.headEnv };
      const configs = { base: settings.baseConfig, head: settings.headConfig };
      // Two stacks: each side's config file, read as the gate read its own.
      const loadConfig = (worktree: string, file?: string) =>
        resolveGateConfig(
          file === undefined ? readActionInputs() : { ...readActionInputs(), config: file },
          { workspace: worktree },
        );
      return await runEnvironments(config, workspace, { env, configs }, { ...abDeps, loadConfig });
    }
    const baseline = setup.baseline;
    return await runGate(config, {
      runner,
      log,
      baselineStore: { load: () => Promise.resolve(baseline) },
      env: process.env,
      ...(url ? { runUrl: url } : {}),
      // Whether a passing run would be stored (profile: on-change always profiles those).
      storesBaseline: decideBaselineUpdate(config.updateBaseline, runEventOf(setup), {
        verdict: 'pass',
      }).write,
      pullRequest: runEventOf(setup).carriesPullRequest === true,
    });
  } finally {
    await sandbox.dispose();
  }
}
