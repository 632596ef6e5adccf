// The real sandboxes (bubblewrap and util-linux unshare + setpriv) around real processes,
// on a runner laid out as the Actions runner lays it out: what a pull request's benchmark
// can reach from inside, what it leaves running, and what still works.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessRunner } from '../../src/runner/process.js';
import { createSandbox, type Sandbox } from '../../src/runner/sandbox.js';
import type { ProcessRequest } from '../../src/runner/types.js';
import { isAlive } from '../support/processes.js';

const SPY = resolve(import.meta.dirname, '..', 'fixtures', 'security', 'spy.sh');
const TOKEN = 'ghs_sandboxTokenThatMustNotLeak0123456789';
const AUTH_HEADER = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
/** A character device with a Neuron-like name (a null device), made when we are root. */
const DEVICE = '/dev/neuron-perf-gate-test0';
const isRoot = process.getuid?.() === 0;

interface RunnerLayout {
  root: string;
  runnerRoot: string;
  runnerTemp: string;
  workspace: string;
  home: string;
  stepFile: string;
  outDir: string;
}

/** The Actions runner's folders, with a token everywhere one is on a real runner. */
async function layRunner(): Promise<RunnerLayout> {
  const root = await mkdtemp(join(tmpdir(), 'sandbox-runner-'));
  const runnerRoot = join(root, 'actions-runner');
  const runnerTemp = join(runnerRoot, '_work', '_temp');
  const workspace = join(runnerRoot, '_work', 'inference', 'inference');
  const home = join(root, 'home');
  const stepFile = join(runnerTemp, '_runner_file_commands', 'set_env_0b7f');
  await mkdir(join(runnerTemp, '_runner_file_commands'), { recursive: true });
  await mkdir(join(runnerRoot, '_diag'), { recursive: true });
  await mkdir(join(runnerRoot, 'bin'), { recursive: true });
  await mkdir(join(runnerRoot, '_work', '_actions'), { recursive: true });
  await writeFile(join(runnerRoot, 'bin', 'Runner.Worker'), 'the runner\n');
  await mkdir(workspace, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(stepFile, '');
  await writeFile(join(runnerRoot, '.credentials'), JSON.stringify({ token: TOKEN }));
  await writeFile(join(runnerRoot, '_diag', 'Worker_1.log'), `job message token ${TOKEN}\n`);
  // actions/checkout v6 keeps its header in a file under RUNNER_TEMP that the config includes.
  const credentials = join(runnerTemp, 'git-credentials-42.config');
  await writeFile(credentials, `[http "https://github.com/"]\n\textraheader = ${AUTH_HEADER}\n`);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace });
  git('init', '--quiet', '-b', 'main');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--allow-empty', '-qm', 'first');
  git('remote', 'add', 'origin', `https://x-access-token:${TOKEN}@github.com/octo/inference`);
  git('config', 'http.https://github.com/.extraheader', AUTH_HEADER);
  git('config', `includeIf.gitdir:${workspace}/.git.path`, credentials);
  // A second actions/checkout (`path: tools`) inside the workspace keeps a token of its own.
  const tools = join(workspace, 'tools');
  await mkdir(tools);
  execFileSync('git', ['init', '--quiet', '-b', 'main'], { cwd: tools });
  execFileSync('git', ['config', 'http.https://github.com/.extraheader', AUTH_HEADER], {
    cwd: tools,
  });
  const outDir = join(runnerTemp, 'perf-gate-output');
  await mkdir(outDir, { recursive: true });
  return { root, runnerRoot, runnerTemp, workspace, home, stepFile, outDir };
}

let layout: RunnerLayout;

beforeAll(async () => {
  layout = await layRunner();
  if (isRoot && !existsSync(DEVICE)) execFileSync('mknod', ['-m', '666', DEVICE, 'c', '1', '3']);
});

afterAll(async () => {
  if (isRoot) await rm(DEVICE, { force: true });
  await rm(layout.root, { recursive: true, force: true });
});

function sandboxOf(kind: 'bubblewrap' | 'unshare'): Promise<Sandbox> {
  return createSandbox({
    env: {
      RUNNER_TEMP: layout.runnerTemp,
      GITHUB_WORKSPACE: layout.workspace,
      PATH: process.env.PATH,
    },
    repositories: [layout.workspace],
    keep: [layout.outDir],
    prefer: kind,
  });
}

function request(command: string, env: Record<string, string> = {}): ProcessRequest {
  return {
    command,
    cwd: layout.workspace,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: layout.home,
      RUNNER_TEMP: layout.runnerTemp,
      ...env,
    },
    timeoutMs: 60_000,
    logPath: join(layout.root, 'logs', `${Math.random()}.log`),
    onOutput: () => {},
    tailLines: 20,
  };
}

describe.each(['bubblewrap', 'unshare'] as const)('the %s sandbox', (kind) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await sandboxOf(kind);
  });
  afterAll(() => sandbox.dispose());

  it('is there on this machine (CI installs bubblewrap; unshare comes with util-linux)', () => {
    expect(sandbox.kind, sandbox.description).toBe(kind);
  });

  it('hands a benchmark that looks everywhere no token, and lets it change nothing', async () => {
    const spyOut = join(layout.outDir, `spy-${kind}`);
    // The config's PATH is the pull request's: fakes of the sandbox's own tools there that
    // would run the command bare change nothing.
    const fakes = join(layout.root, `fakes-${kind}`);
    await mkdir(fakes, { recursive: true });
    for (const tool of ['bwrap', 'unshare', 'setpriv', 'mount']) {
      await writeFile(join(fakes, tool), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    }
    const result = await createProcessRunner({ sandbox }).run(
      request(`bash ${SPY}`, {
        PATH: `${fakes}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        SPY_OUT: spyOut,
        SPY_STEP_FILE: layout.stepFile,
        SPY_RUNNER_ROOT: layout.runnerRoot,
        SPY_DEVICE: isRoot ? DEVICE : '/dev/null',
      }),
    );
    expect(result.exitCode, result.tail.join('\n')).toBe(0);
    // Written into the out-dir, which lies inside the hidden RUNNER_TEMP: kept visible.
    const dump = await readFile(join(spyOut, 'dump.txt'), 'utf8');
    expect(dump.length).toBeGreaterThan(1000);
    expect(dump).not.toContain(TOKEN);
    expect(dump).not.toContain(AUTH_HEADER.split(' ').at(-1));
    expect(await readFile(layout.stepFile, 'utf8')).toBe('');
    expect(dump).not.toMatch(/^wrote /m);
    // The runner's own programs are read-only; the workspace is not.
    expect(await readFile(join(layout.runnerRoot, 'bin', 'Runner.Worker'), 'utf8')).toBe(
      'the runner\n',
    );
    expect(existsSync(join(layout.runnerRoot, '_work', '_actions', 'planted'))).toBe(false);
    expect(dump).toMatch(/^workspace writable$/m);
    // No capability, so nothing it can unmount; no ancestor in /proc.
    expect(dump).toMatch(/^CapEff:\s+0+$/m);
    const pids = [...dump.matchAll(/^--- (\d+): (.*)$/gm)].map((m) => m[2]);
    expect(pids.length).toBeLessThan(12);
    expect(pids.join('\n')).not.toMatch(/vitest|node /);
    // Still a working checkout and machine: git reads its config, the device opens.
    expect(dump).toMatch(/remote\.origin\.url=https:\/\/github\.com\/octo\/inference/);
    expect(dump).toMatch(/^[0-9a-f]{7} first$/m);
    expect(dump).toContain(`opened ${isRoot ? DEVICE : '/dev/null'}`);
    // The real files are as they were.
    const config = await readFile(join(layout.workspace, '.git', 'config'), 'utf8');
    expect(config).toContain(AUTH_HEADER);
  }, 60_000);

  it('gives the benchmark a TMPDIR of its own instead of RUNNER_TEMP', async () => {
    const file = join(layout.outDir, `tmp-${kind}.txt`);
    await createProcessRunner({ sandbox }).run(
      request(`echo "$TMPDIR $RUNNER_TEMP" > ${file}; touch "$TMPDIR/x" "$RUNNER_TEMP/y"`),
    );
    const [tmp, runnerTemp] = (await readFile(file, 'utf8')).trim().split(' ');
    expect(tmp).not.toBe(layout.runnerTemp);
    expect(runnerTemp).toBe(tmp);
    expect(existsSync(join(tmp!, 'x'))).toBe(true);
    expect(existsSync(join(layout.runnerTemp, 'y'))).toBe(false);
  });

  it('stops and names what the benchmark left, even a daemon that cleared its environment', async () => {
    const tag = `${kind === 'bubblewrap' ? 7001 : 7002}.${Date.now() % 1000}`;
    const result = await createProcessRunner({ sandbox, killGraceMs: 500 }).run(
      request(
        [
          `sleep ${tag}1 &`,
          // Out of the group and without the marker: before the sandbox, only a cgroup
          // caught this one.
          `setsid env -i /bin/sleep ${tag}2 &`,
          // Ignores SIGTERM and keeps forking while it is asked to stop.
          `setsid bash -c 'trap "" TERM; while :; do sleep ${tag}3 & sleep 0.05; done' &`,
          'sleep 0.3; echo main done',
        ].join('\n'),
      ),
    );
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, tail: ['main done'] });
    const named = (result.leftovers ?? []).map((p) => p.command).join('\n');
    expect(named).toContain(`sleep ${tag}1`);
    expect(named).toContain(`/bin/sleep ${tag}2`);
    expect(named).toContain('trap "" TERM');
    expect((result.leftovers ?? []).every((p) => p.survived !== true)).toBe(true);
    // Nothing of them runs on the host any more.
    expect(processesMatching(tag)).toEqual([]);
  }, 30_000);

  it('holds across runs against a benchmark that rearranges its folders between them', async () => {
    // Run 1 prepares; run 2 tries to use it. Each of these broke an earlier sandbox.
    const sub = join(layout.workspace, `sub-${kind}`);
    const cwd = join(sub, '_runner_file_commands');
    await mkdir(cwd, { recursive: true });
    const runner = createProcessRunner({ sandbox });
    const first = await runner.run({
      ...request(
        [
          // A link in place of the working directory's parent, into RUNNER_TEMP: a bind
          // that follows it would show the real step files, writable.
          `cd ${layout.workspace} && mv sub-${kind} sub-${kind}.old && ln -s ../../_temp sub-${kind}`,
          // The git folder renamed away from its config's replacement.
          `mv .git .git-${kind}.old 2>/dev/null && mkdir .git && touch .git/config || true`,
          // A hook for the gate's next git command, a kernel setting.
          `echo 'echo hooked' > .git/hooks/post-checkout 2>/dev/null || true`,
          'cat /proc/sys/kernel/domainname > /proc/sys/kernel/domainname 2>/dev/null && echo sysctl-written || true',
          // The config copies the sandbox binds are files of the gate's: a link in their place
          // would bind the real config.
          `for f in "$(dirname "$TMPDIR")"/sources/gitconfig-*; do [ -e "$f" ] && rm -f "$f" && ln -s ${layout.workspace}/.git/config "$f"; done 2>/dev/null || true`,
        ].join('\n'),
      ),
      cwd,
    });
    expect(first.tail.join('\n')).not.toContain('sysctl-written');
    const second = await runner.run({
      ...request(
        `ls; cat set_env_* 2>&1; echo 'EVIL=1' >> set_env_0b7f 2>/dev/null; cat ${layout.workspace}/.git-${kind}.old/config ${layout.workspace}/.git/config 2>/dev/null`,
      ),
      cwd,
    });
    // Started in the workspace, run 3 reads the git configs: no token either.
    const third = await runner.run(
      request(`cat .git/config .git-${kind}.old/config 2>/dev/null; echo; echo read`),
    );
    expect(third.tail.at(-1)).toBe('read');
    expect(third.tail.join('\n')).toContain('[remote "origin"]');
    expect(third.tail.join('\n')).not.toContain(TOKEN.slice(4));
    expect(third.tail.join('\n')).not.toContain(AUTH_HEADER.split(' ').at(-1));
    // Run 2 gets neither the step files nor the token.
    expect(second.tail.join('\n')).not.toContain(TOKEN.slice(4));
    expect(second.tail.join('\n')).not.toContain(AUTH_HEADER.split(' ').at(-1));
    expect(await readFile(layout.stepFile, 'utf8')).toBe('');
    // The repository's git folder is where it was, with no hook planted.
    expect(existsSync(join(layout.workspace, '.git', 'HEAD'))).toBe(true);
    expect(existsSync(join(layout.workspace, '.git', 'hooks', 'post-checkout'))).toBe(false);
    await rm(join(layout.workspace, `sub-${kind}`), { force: true });
    await rm(join(layout.workspace, `sub-${kind}.old`), { recursive: true, force: true });
  });

  it('runs the benchmark as the runner user and reports its exit status and signal', async () => {
    const runner = createProcessRunner({ sandbox });
    expect(await runner.run(request('exit 7'))).toMatchObject({ exitCode: 7 });
    const killed = await runner.run(request('kill -KILL $$'));
    expect(killed).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    const file = join(layout.outDir, `id-${kind}.txt`);
    await runner.run(request(`id -u > ${file}`));
    const uid = Number((await readFile(file, 'utf8')).trim());
    expect(uid).toBe(isRoot ? 0 : process.getuid?.());
  });
});

describe('no sandbox to be had', () => {
  it('says why, and runs the command as it is', async () => {
    const sandbox = await createSandbox({
      env: { RUNNER_TEMP: layout.runnerTemp },
      repositories: [],
      keep: [],
      prefer: 'none',
    });
    expect(sandbox).toMatchObject({ kind: 'none', description: 'none (isolation is off)' });
    const result = await createProcessRunner({ sandbox }).run(
      request(`test -e ${layout.stepFile} && echo visible`),
    );
    expect(result.tail).toEqual(['visible']);
    await sandbox.dispose();
  });
});

/** Host PIDs of live processes whose command line holds `text`. */
function processesMatching(text: string): number[] {
  const found: number[] = [];
  for (const line of execFileSync('ps', ['-eo', 'pid=,stat=,args=']).toString().split('\n')) {
    const [pid, stat, ...args] = line.trim().split(/\s+/);
    if (args.join(' ').includes(text) && !stat?.startsWith('Z') && isAlive(Number(pid))) {
      found.push(Number(pid));
    }
  }
  return found;
}
