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
// dropped until it is listed here); outside them everything passes, as in a `run:` step,
// except the variables that name a daemon's socket (SOCKET_VARIABLES).

import { existsSync } from 'node:fs';

type EnvInput = Readonly<Record<string, string | undefined>>;

const RUNNER_NAMESPACES = ['INPUT_', 'ACTIONS_', 'GITHUB_', 'RUNNER_', 'STATE_'];

/** GitHub tokens by the names the gh CLI reads, often set for a whole job. */
const TOKEN_VARIABLES: ReadonlySet<string> = new Set(['GH_TOKEN', 'GH_ENTERPRISE_TOKEN']);

/** The baseline store's credentials the gate reads from its environment (issue 52). */
export const STORE_SECRET_VARIABLES: ReadonlySet<string> = new Set(['PERF_GATE_POSTGRES_URL']);

/**
 * Variables that name a socket of a daemon running as the runner's user (or root), which
 * would act for the benchmark outside the sandbox: sign with the runner's keys, start a
 * systemd unit, write any file the user may. The sandbox hides the sockets themselves
 * (sandbox-sockets.ts); without the names a tool does not even look. Issue 51.
 */
const SOCKET_VARIABLES: ReadonlySet<string> = new Set([
  'SSH_AUTH_SOCK', // ssh-agent: lists and uses the runner's keys
  'SSH_AGENT_PID', // the agent's process, only meaningful with its socket
  'GPG_AGENT_INFO', // gpg-agent's socket (older GnuPG): signs and decrypts
  'GNOME_KEYRING_CONTROL', // the keyring daemon's socket folder: stored passwords
  'DBUS_SESSION_BUS_ADDRESS', // the user's bus: systemd --user starts units outside the sandbox
  'XDG_RUNTIME_DIR', // /run/user/<uid>, where the user's daemons keep their sockets
  'TMUX', // a tmux server's socket: runs commands in the server's shells
  'NOTIFY_SOCKET', // systemd's notification socket of the runner's service
]);

/** Variables that name a daemon by URL: dropped when it is a local (unix://) socket. */
const DAEMON_URL_VARIABLES: ReadonlySet<string> = new Set(['DOCKER_HOST', 'CONTAINER_HOST']);

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
export function isPassedToChild(name: string, value = ''): boolean {
  const upper = name.toUpperCase();
  if (TOKEN_VARIABLES.has(upper) || SOCKET_VARIABLES.has(upper)) return false;
  if (STORE_SECRET_VARIABLES.has(upper)) return false;
  if (DAEMON_URL_VARIABLES.has(upper) && namesLocalSocket(value)) return false;
  if (!RUNNER_NAMESPACES.some((prefix) => upper.startsWith(prefix))) return true;
  return ALLOWED_RUNNER_VARIABLES.has(name);
}

/**
 * A daemon URL that is not `scheme://host...` of a remote one: `unix:///run/docker.sock`, a
 * bare path. A TCP daemon is the network's to reach, which the sandbox does not cut.
 */
function namesLocalSocket(url: string): boolean {
  const value = url.trim();
  return /^unix:/i.test(value) || !/^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(value);
}

/** `env` without unset entries and without what only the gate may see. */
export function childEnvironment(env: EnvInput): Record<string, string> {
  const child: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isPassedToChild(name, value)) child[name] = value;
  }
  return child;
}

/** /bin/bash where it exists, else bash from PATH. */
export function defaultShell(): string {
  return existsSync('/bin/bash') ? '/bin/bash' : 'bash';
}
