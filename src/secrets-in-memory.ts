// The gate's secrets leave its environment block before anything else runs. A process of
// the runner's user can read /proc/<pid>/environ of the gate's process: the block the
// process was started with, which deleting from process.env does not change. So the gate
// starts itself again (execve: same PID, same stdio) with an environment without them, and
// takes them back from a file only it can read, deleted at once; from then on they live in
// process.env only (the heap), where @actions/core and the artifact client read them.
// Without execve (Node older than 22.15, not Linux) nothing changes.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HANDOFF = 'PERF_GATE_SECRETS_HANDOFF';

/** Variables that are credentials, or may hold one (`command` with `${{ secrets.X }}`). */
export function isGateSecret(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    /^(INPUT_|ACTIONS_|STATE_)/.test(upper) ||
    ['GITHUB_TOKEN', 'GH_TOKEN', 'GH_ENTERPRISE_TOKEN', 'PERF_GATE_POSTGRES_URL'].includes(upper) ||
    /(TOKEN(?!S)|SECRET|PASSWORD|PASSPHRASE|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY)/.test(
      upper,
    )
  );
}

/**
 * The secrets in a file only this user can read, under RUNNER_TEMP where there is one
 * (hidden from every sandbox of this job; created when missing), else the system's temp.
 */
function writeHandoff(secrets: Record<string, string>, runnerTemp: string | undefined) {
  for (const base of [runnerTemp, tmpdir()]) {
    if (!base) continue;
    try {
      mkdirSync(base, { recursive: true });
      const file = join(mkdtempSync(join(base, 'perf-gate-handoff-')), 'secrets.json');
      writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
      return file;
    } catch {
      // Try the next place.
    }
  }
  return undefined;
}

/** Restores the handed-off secrets, or re-executes without them (never returns then). */
export function keepSecretsInMemoryOnly(env: NodeJS.ProcessEnv = process.env): void {
  const handoff = env[HANDOFF];
  if (handoff !== undefined) {
    delete env[HANDOFF];
    const secrets = JSON.parse(readFileSync(handoff, 'utf8')) as Record<string, string>;
    rmSync(join(handoff, '..'), { recursive: true, force: true });
    Object.assign(env, secrets);
    return;
  }
  if (typeof process.execve !== 'function' || process.platform !== 'linux') return;
  const secrets = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && isGateSecret(entry[0]),
    ),
  );
  if (Object.keys(secrets).length === 0) return;
  const file = writeHandoff(secrets, env.RUNNER_TEMP);
  // Without a file to hand them over (a full or read-only disk) they stay where they are.
  if (file === undefined) return;
  const scrubbed: NodeJS.ProcessEnv = { [HANDOFF]: file };
  for (const [name, value] of Object.entries(env)) if (!(name in secrets)) scrubbed[name] = value;
  process.execve(
    process.execPath,
    [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    scrubbed,
  );
}
