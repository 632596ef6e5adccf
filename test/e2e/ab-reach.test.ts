// The head side of `ab` cannot steer the base side (issue 50), through the bundled CLI as a
// runner runs it: as root and as an ordinary user (uid 1000, switched to with setpriv when
// the tests run as root), under bubblewrap and unshare. The head, 25% slower, renames the
// base worktree's parent or the out-dir and puts folders of its own in their place, or
// rewrites the base's results between runs; the verdict must stay the control's.
import { execFile, execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/model.js';
import {
  ATTACK_CASES,
  commitBaseAndSlowerHead,
  configOf,
  type Attack,
} from '../support/ab-attacks.js';
import { DIST, simulatorEnv } from '../support/bundled.js';

const ORDINARY_UID = 1000;
const asRoot = process.getuid?.() === 0;

/** Who runs the gate: root and uid 1000 when the tests run as root, else the tests' user. */
const USERS = asRoot ? (['root', 'uid 1000'] as const) : (['this user'] as const);
type User = 'root' | 'uid 1000' | 'this user';

let top: string;
let dist: string;
const repos = {} as Record<User, string>;

beforeAll(async () => {
  top = await mkdtemp(join(tmpdir(), 'perf-gate-ab-reach-'));
  await chmod(top, 0o755);
  // A copy of the bundles every user may read (the tests' snapshot is private).
  dist = join(top, 'dist');
  await cp(DIST, dist, { recursive: true });
  execFileSync('chmod', ['-R', 'a+rX', dist]);
  for (const user of USERS) {
    const home = join(top, user.replace(' ', '-'));
    const repo = join(home, 'repo');
    await mkdir(join(home, 'tmp'), { recursive: true });
    await mkdir(repo);
    await commitBaseAndSlowerHead(repo);
    // The user owns its folder, as a runner's user owns its work folder.
    if (user === 'uid 1000') execFileSync('chown', ['-R', `${ORDINARY_UID}:${ORDINARY_UID}`, home]);
    repos[user] = repo;
  }
}, 60_000);

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  output: string;
  report: GateReport | null;
}

/** `ab --base HEAD~1` from the bundled CLI, as `user`, with the head's config attacking. */
async function abAs(user: User, attacks: readonly Attack[], isolation: string): Promise<Outcome> {
  const repo = repos[user];
  for (const name of await readdir(repo)) {
    if (name.startsWith('perf-gate-ab')) await rm(join(repo, name), { recursive: true });
  }
  await writeFile(join(repo, 'perf-gate.yml'), configOf(attacks));
  const home = join(repo, '..');
  if (user === 'uid 1000')
    execFileSync('chown', [`${ORDINARY_UID}:${ORDINARY_UID}`, join(repo, 'perf-gate.yml')]);
  const id = String(ORDINARY_UID);
  const switchUser =
    user === 'uid 1000'
      ? ['setpriv', `--reuid=${id}`, `--regid=${id}`, '--clear-groups', '--']
      : [];
  const [file, ...prefix] = [...switchUser, process.execPath];
  const args = [
    ...prefix,
    ...[join(dist, 'cli.js'), 'ab', '--config', 'perf-gate.yml', '--base', 'HEAD~1'],
    ...['--blocks', '3', '--confirm-blocks', '0', '--quiet', '--isolation', isolation],
  ];
  const env = simulatorEnv({
    HOME: home,
    TMPDIR: join(home, 'tmp'),
    NEURON_COMPILE_CACHE_URL: join(home, 'tmp', 'compile-cache'),
  });
  const { code, output } = await new Promise<{ code: number; output: string }>((done) => {
    execFile(file!, args, { cwd: repo, env }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? -1) : 0, output: stdout + stderr }),
    );
  });
  const text = await readFile(join(repo, 'perf-gate-ab', 'report.json'), 'utf8').catch(() => '');
  return { code, output, report: text ? (JSON.parse(text) as GateReport) : null };
}

describe.each(USERS.flatMap((user) => (['bubblewrap', 'unshare'] as const).map((i) => [user, i])))(
  'ab from the bundle: the head cannot reach the base side (%s, %s)',
  (user, isolation) => {
    it.each(ATTACK_CASES)(
      '%s: a head a quarter slower still fails, the slowdown named',
      async (_name, attacks) => {
        const { code, output, report } = await abAs(user as User, attacks, isolation!);
        expect(code, output).toBe(1);
        expect(output).toContain(`isolation: ${isolation}`);
        expect(report?.verdict, output).toBe('regression');
        const p50 = report?.benchmarks[0]?.metrics.find((m) => m.id === 'latency_p50');
        expect(p50?.verdict).toBe('regression');
        expect(p50!.change!).toBeGreaterThan(0.2);
        expect(p50!.change!).toBeLessThan(0.3);
      },
      180_000,
    );
  },
);
