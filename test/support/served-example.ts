// The serving example through the bundled action, as the end-to-end tests of a served
// benchmark run it: examples/vllm-serve/perf-gate.yml in a workspace of its own on a free
// port, edited for the test, and a pull request's gate run with a file baseline store.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { pullRequestPayload, runActionProcess, type ActionRun } from './action-run.js';
import { ROOT } from './bundled.js';
import { tempDir } from './offline-result.js';
import { freePort } from './ports.js';

export const SERVING_EXAMPLE = join(ROOT, 'examples', 'vllm-serve', 'perf-gate.yml');

/**
 * A workspace with the example's config at .github/perf-gate.yml, its port a free one,
 * with `edit` applied to its text.
 */
export async function servedExampleWorkspace(
  prefix: string,
  edit: (config: string) => string = (config) => config,
): Promise<{ workspace: string; port: number }> {
  const workspace = await tempDir(prefix);
  const port = await freePort();
  const example = await readFile(SERVING_EXAMPLE, 'utf8');
  // The server's --port, the readiness URL and the client's --base-url: nothing else.
  expect(example.match(/8000/g)).toHaveLength(3);
  await mkdir(join(workspace, '.github'));
  await writeFile(
    join(workspace, '.github/perf-gate.yml'),
    edit(example.replaceAll('8000', `${port}`)),
  );
  return { workspace, port };
}

export interface PullRequestGate {
  workspace: string;
  /** Names the files this run leaves in the workspace. */
  label: string;
  /** The pull request's number. */
  pr: number;
  env: Record<string, string>;
  inputs?: Record<string, string>;
}

/** The bundled action on a pull request, its baselines in files of the workspace. */
export function pullRequestGate(options: PullRequestGate): Promise<ActionRun> {
  return runActionProcess({
    workspace: options.workspace,
    label: options.label,
    inputs: {
      config: '.github/perf-gate.yml',
      'baseline-store': 'file',
      'github-token': '',
      ...options.inputs,
    },
    event: {
      name: 'pull_request',
      payload: pullRequestPayload({ number: options.pr, headSha: 'c'.repeat(40) }),
      ref: `refs/pull/${options.pr}/merge`,
      sha: 'd'.repeat(40),
    },
    env: options.env,
  });
}
