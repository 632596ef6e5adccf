// The environment of the processes that run code from the pull request: the benchmark,
// the profiler, the environment probe and the tools it calls. They must get what a plain
// `run:` step would (the job's and step's `env:`, the runner's PATH, HOME, toolchains),
// never what the Actions runner gives the gate itself: its inputs (the token is
// INPUT_GITHUB-TOKEN), the ACTIONS_* runtime and OIDC tokens, or the step's command files
// (GITHUB_OUTPUT, GITHUB_ENV, ...), through which a benchmark could set the gate's outputs
// or the environment of later steps.
//
// The runner owns the INPUT_, ACTIONS_, GITHUB_, RUNNER_ and STATE_ namespaces. Inside
// them only the names below pass (an allow-list: a variable the runner adds tomorrow is
// dropped until it is listed here); outside them everything passes, as in a `run:` step.

import { existsSync } from 'node:fs';

type EnvInput = Readonly<Record<string, string | undefined>>;

const RUNNER_NAMESPACES = ['INPUT_', 'ACTIONS_', 'GITHUB_', 'RUNNER_', 'STATE_'];

/** GitHub tokens by the names the gh CLI reads, often set for a whole job. */
const TOKEN_VARIABLES: ReadonlySet<string> = new Set(['GH_TOKEN', 'GH_ENTERPRISE_TOKEN']);

/** Context variables of the runner namespaces a benchmark may read: no token, no file. */
export const ALLOWED_RUNNER_VARIABLES: ReadonlySet<string> = new Set([
  'GITHUB_ACTIONS',
  'GITHUB_ACTOR',
  'GITHUB_BASE_REF',
  'GITHUB_EVENT_NAME',
  'GITHUB_HEAD_REF',
  'GITHUB_JOB',
  'GITHUB_REF',
  'GITHUB_REF_NAME',
  'GITHUB_REF_TYPE',
  'GITHUB_REPOSITORY',
  'GITHUB_REPOSITORY_OWNER',
  'GITHUB_RUN_ATTEMPT',
  'GITHUB_RUN_ID',
  'GITHUB_RUN_NUMBER',
  'GITHUB_SERVER_URL',
  'GITHUB_SHA',
  'GITHUB_WORKFLOW',
  'GITHUB_WORKSPACE',
  'RUNNER_ARCH',
  'RUNNER_DEBUG',
  'RUNNER_ENVIRONMENT',
  'RUNNER_NAME',
  'RUNNER_OS',
  'RUNNER_TEMP',
  'RUNNER_TOOL_CACHE',
]);

/** Whether a variable of the gate's environment may reach a process running PR code. */
export function isPassedToChild(name: string): boolean {
  const upper = name.toUpperCase();
  if (TOKEN_VARIABLES.has(upper)) return false;
  if (!RUNNER_NAMESPACES.some((prefix) => upper.startsWith(prefix))) return true;
  return ALLOWED_RUNNER_VARIABLES.has(name);
}

/** `env` without unset entries and without what only the gate may see. */
export function childEnvironment(env: EnvInput): Record<string, string> {
  const child: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isPassedToChild(name)) child[name] = value;
  }
  return child;
}

/** /bin/bash where it exists, else bash from PATH. */
export function defaultShell(): string {
  return existsSync('/bin/bash') ? '/bin/bash' : 'bash';
}
