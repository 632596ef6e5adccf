// Where the gate runs pull-request code: in the sandbox the runner offers, or, where it
// offers none, nowhere at all on the events `require-isolation` names.

import type { GateConfig } from '../config/types.js';
import { usageError } from '../errors.js';
import type { GitHubContext } from '../github/event.js';
import type { Logger } from '../log.js';
import { createSandbox, rootRunnerWarning, type Sandbox } from '../runner/sandbox.js';
import type { IsolationSetting, RequireIsolation } from './settings.js';

export interface IsolationOptions {
  prefer: IsolationSetting;
  require: RequireIsolation;
  github: GitHubContext;
  config: GateConfig;
  workspace: string;
  log: Logger;
}

/** The sandbox for this run; a usage error when there is none and the event needs one. */
export async function isolatePullRequestCode(options: IsolationOptions): Promise<Sandbox> {
  const { config, log } = options;
  const sandbox = await createSandbox({
    env: process.env,
    repositories: [options.workspace, ...config.benchmarks.map((b) => b.workingDirectory)],
    keep: [config.outDir],
    prefer: options.prefer,
  });
  const asRoot = rootRunnerWarning();
  if (asRoot !== undefined) log.warning(asRoot);
  if (sandbox.kind !== 'none') {
    log.info(`pull-request code runs isolated: ${sandbox.description}`);
    return sandbox;
  }
  const refuse =
    options.require === 'always' ||
    (options.require === 'pull-requests' && options.github.carriesPullRequest);
  const why = sandbox.description.replace(/^none \(|\)$/g, '');
  const problem =
    `pull-request code would run without isolation (${why}), ` +
    "so the benchmark could read the gate's token from /proc and the checkout's credentials.";
  const remedy =
    options.prefer === 'none'
      ? 'Set isolation: auto, or accept the risk with `require-isolation: never`.'
      : 'Install bubblewrap (apt-get install bubblewrap) or allow user namespaces ' +
        '(sysctl kernel.unprivileged_userns_clone=1), or accept the risk with `require-isolation: never`.';
  if (refuse) {
    await sandbox.dispose();
    throw usageError(`neuron-perf-gate refuses to run: ${problem} ${remedy}`);
  }
  log.warning(`${problem} ${remedy}`);
  return sandbox;
}
