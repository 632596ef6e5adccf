// Runs the bundled action (dist/index.js) as the Actions runner does: a node process with
// INPUT_* variables, GITHUB_* variables, an event payload file and the GITHUB_OUTPUT /
// GITHUB_STEP_SUMMARY files, and reads back what it left.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { parse } from 'yaml';
import { ACTION, ROOT, runNode, runShell, simulatorEnv, type ProcessOutcome } from './bundled.js';
import { startGitHubApi, type GitHubApi } from './github-api.js';
import { checkAndClose } from './github-test.js';
import { ResultsService } from './results-service.js';

export interface ActionEvent {
  /** GITHUB_EVENT_NAME. */
  name: string;
  payload: Record<string, unknown>;
  /** GITHUB_REF, e.g. refs/heads/main or refs/pull/7/merge. */
  ref: string;
  sha: string;
}

export interface ActionRunOptions {
  workspace: string;
  /** Names the files this run leaves in the workspace. */
  label: string;
  inputs: Record<string, string>;
  event: ActionEvent;
  /** Simulator knobs and anything else for the environment. */
  env?: Record<string, string>;
  /**
   * Set every input the step does not give to its action.yml default, as the runner does,
   * with `${{ github.token }}` as this token and the matrix as `null`.
   */
  defaultsWithToken?: string;
  /**
   * Shell lines run before node is exec'd in their place, as a runner might do (e.g.
   * `exec 23>>"$GITHUB_OUTPUT"` leaves the output file open in the action's process).
   */
  launchPrefix?: string;
  /**
   * The action's folder (its action.yml and dist/), as the runner downloaded it; default
   * ROOT, with its dist/ as the tests' snapshot (ACTION).
   */
  actionDir?: string;
}

export interface ActionRun extends ProcessOutcome {
  summary: string;
  outputs: Record<string, string>;
}

/** Reads the `name<<delimiter ... delimiter` blocks @actions/core writes to GITHUB_OUTPUT. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const pattern = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (const match of text.matchAll(pattern)) outputs[match[1]!] = match[3]!;
  return outputs;
}

/**
 * The inputs of a quick gate on the simulator's offline benchmark: 3 clean runs, no
 * profile. Tests add what they are about (runs, a store, a token, a comment mode).
 */
export function simulatorInputs(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    name: 'qwen3-reranker',
    command: 'offline-benchmark',
    format: 'offline-benchmark',
    runs: '3',
    profile: 'false',
    'upload-profiles': 'false',
    ...overrides,
  };
}

export interface ActionGitHubApi {
  /** The running API; only inside the tests of the block that asked for it. */
  readonly api: GitHubApi;
}

/**
 * The loopback GitHub API of the action runs of a describe block (or of a file, called at
 * its top): repository octo/inference, as `runActionProcess` tells the action. Started before
 * the block's tests; after them, checked that every request fitted GitHub's OpenAPI
 * description, and closed. Runs point at it with `GITHUB_API_URL: github.api.url`.
 */
export function useActionGitHubApi(): ActionGitHubApi {
  let api: GitHubApi | undefined;
  beforeAll(async () => {
    api = await startGitHubApi({ owner: 'octo', repo: 'inference' });
  });
  afterAll(async () => {
    const finished = api;
    api = undefined;
    if (finished) await checkAndClose(finished);
  });
  return {
    get api() {
      if (!api) throw new Error('the loopback GitHub API runs only inside its block of tests');
      return api;
    },
  };
}

export interface ActionResultsService {
  /** The running service; only inside the tests of the block that asked for it. */
  readonly service: ResultsService;
  /** What a runner gives the action to reach the service: its runtime token and URL. */
  env(): Record<string, string>;
}

/**
 * The loopback Actions results service (artifact uploads) of the action runs of a describe
 * block or file: started before the block's tests and closed after them.
 */
export function useResultsService(): ActionResultsService {
  let service: ResultsService | undefined;
  beforeAll(async () => {
    service = await ResultsService.start();
  });
  afterAll(async () => {
    const finished = service;
    service = undefined;
    await finished?.close();
  });
  const current = (): ResultsService => {
    if (!service)
      throw new Error('the loopback results service runs only inside its block of tests');
    return service;
  };
  return {
    get service() {
      return current();
    },
    env: () => ({
      ACTIONS_RUNTIME_TOKEN: current().runtimeToken,
      ACTIONS_RESULTS_URL: `${current().url}/`,
    }),
  };
}

export async function runActionProcess(options: ActionRunOptions): Promise<ActionRun> {
  const { workspace, label, event } = options;
  const summary = join(workspace, `${label}-summary.md`);
  const output = join(workspace, `${label}-output.txt`);
  const eventPath = join(workspace, `${label}-event.json`);
  await writeFile(summary, '');
  await writeFile(output, '');
  await writeFile(eventPath, JSON.stringify(event.payload));
  const refName = event.ref.replace(/^refs\/(heads|tags)\//, '');
  const env: Record<string, string> = {
    ...simulatorEnv(),
    PERF_GATE_INSTANCE_TYPE: 'inf2.xlarge',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_OUTPUT: output,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REF: event.ref,
    GITHUB_REF_NAME: refName,
    GITHUB_SHA: event.sha,
    GITHUB_REPOSITORY: 'octo/inference',
    GITHUB_REPOSITORY_OWNER: 'octo',
    GITHUB_RUN_ID: '1000',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKFLOW: 'perf',
    GITHUB_JOB: 'gate',
    GITHUB_ACTOR: 'octocat',
    RUNNER_NAME: 'inf2-runner-1',
    RUNNER_TEMP: join(workspace, '.runner-temp'),
    ...options.env,
  };
  const inputs =
    options.defaultsWithToken === undefined
      ? options.inputs
      : {
          ...(await actionDefaults(options.defaultsWithToken, options.actionDir)),
          ...options.inputs,
        };
  for (const [name, value] of Object.entries(inputs)) {
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  }
  const result =
    options.launchPrefix === undefined
      ? await runNode(options.actionDir ? join(options.actionDir, 'dist/index.js') : ACTION, [], {
          cwd: workspace,
          env,
        })
      : await runShell(`${options.launchPrefix}\nexec "$0" "$1"`, [process.execPath, ACTION], {
          cwd: workspace,
          env,
        });
  return {
    ...result,
    summary: await readFile(summary, 'utf8'),
    outputs: parseOutputs(await readFile(output, 'utf8')),
  };
}

/** A push event payload as GitHub sends it, trimmed to what the gate reads. */
export function pushPayload(branch: string, sha: string, defaultBranch = 'main') {
  return {
    ref: `refs/heads/${branch}`,
    after: sha,
    repository: { full_name: 'octo/inference', default_branch: defaultBranch },
  };
}

/** A push of `sha` to the default branch, main, as its event. */
export function pushToMain(sha: string): ActionEvent {
  return { name: 'push', payload: pushPayload('main', sha), ref: 'refs/heads/main', sha };
}

/** A pull_request payload; `fork` makes the head another repository. */
export function pullRequestPayload(options: {
  number: number;
  headSha: string;
  baseRef?: string;
  fork?: boolean;
}) {
  const base = { full_name: 'octo/inference', default_branch: 'main' };
  return {
    action: 'synchronize',
    number: options.number,
    pull_request: {
      number: options.number,
      head: {
        sha: options.headSha,
        ref: 'feature',
        repo: {
          full_name: options.fork ? 'stranger/inference' : 'octo/inference',
          fork: !!options.fork,
        },
      },
      base: { ref: options.baseRef ?? 'main', repo: base },
    },
    repository: base,
  };
}

/** The defaults of action.yml's inputs, with the expressions the runner would evaluate. */
export async function actionDefaults(
  token: string,
  actionDir: string = ROOT,
): Promise<Record<string, string>> {
  const action = parse(await readFile(join(actionDir, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
  };
  const defaults: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) {
    defaults[name] = String(input.default ?? '')
      .replace('${{ github.token }}', token)
      .replace('${{ toJSON(matrix) }}', 'null');
  }
  return defaults;
}
