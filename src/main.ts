// The action: read inputs, then either run the gate on this runner (`mode: gate`) or
// post the report of a triggering pull request run (`mode: comment`).

import * as core from '@actions/core';
import { runCommentMode } from './action/comment-mode.js';
import { runGateMode } from './action/gate.js';
import { readGitHubSettings } from './action/settings.js';
import { errorMessage } from './errors.js';
import { readGitHubContext } from './github/event.js';
import { eventFileProblem } from './github/event-file-guard.js';

export async function main(): Promise<void> {
  try {
    const eventProblem = eventFileProblem();
    if (eventProblem) throw eventProblem;
    const settings = readGitHubSettings();
    const github = readGitHubContext(process.env);
    if (settings.mode === 'comment') {
      await runCommentMode(github, settings);
      return;
    }
    const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
    const outcome = await runGateMode(github, settings, workspace);
    // An upload given up on at the publish deadline may hold a socket open for minutes:
    // the verdict is out, so end here rather than wait for it.
    if (outcome.abandonedWork) process.exit();
  } catch (error) {
    core.setOutput('verdict', 'error');
    core.setFailed(`neuron-perf-gate: ${errorMessage(error)}`);
  }
}
