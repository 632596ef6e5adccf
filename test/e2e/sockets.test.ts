// Sockets do not reach out of the sandbox (issue 51). The bundled CLI runs a benchmark that
// asks the runner user's daemons to append to the hidden set_env step file and lists the
// runner's ssh-agent keys, as root and as uid 1000, under bubblewrap and unshare. The
// daemons: a stand-in unix-socket server at the default places (/run/user/<uid>/bus,
// /run/docker.sock, an ssh-agent folder in /tmp) and at a socket DOCKER_HOST names, and a
// real ssh-agent holding a key at the socket SSH_AUTH_SOCK names. The same benchmark
// without the sandbox reaches every one of them: the test can tell.

import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync } from 'node:fs';
import { appendFile, cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST, simulatorEnv } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';

const isRoot = process.getuid?.() === 0;
const RUN = randomBytes(4).toString('hex');
const LEAK = `SOCKET_LEAK_${RUN}=1`;
const hasSsh = ['ssh-agent', 'ssh-add', 'ssh-keygen'].every((tool) => {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});

/** What the benchmark runs: one line per socket, reached (with the answer) or refused. */
const PROBE = `
import { connect } from 'node:net';
const [stepFile, ...paths] = process.argv.slice(2);
for (const path of paths) {
  const line = await new Promise((done) => {
    const socket = connect(path);
    socket.on('connect', () => socket.write('append ' + stepFile + ' ${LEAK}\\n'));
    socket.on('data', (data) => { done('reached ' + path + ': ' + String(data).trim()); socket.destroy(); });
    socket.on('error', (error) => done('refused ' + path + ': ' + error.code));
  });
  console.log(line);
}
`;

/** As root: a write of /sys that changes nothing (the current value, the own cgroup). */
const SYS_WRITES = `
err="\${TMPDIR:-/tmp}/sys-write.err"
thp=/sys/kernel/mm/transparent_hugepage/enabled
if [ -e "$thp" ]; then
  v=$(sed 's/.*\\[\\(.*\\)\\].*/\\1/' "$thp")
  (echo "$v" > "$thp") 2>"$err" && echo "sys thp: written" || echo "sys thp: $(cat "$err")"
fi
m=$(awk '$3=="cgroup2"{print $2; exit}' /proc/mounts)
p=$(awk -F: '$1=="0"{print $3}' /proc/self/cgroup)
if [ -n "$m" ]; then
  (echo 0 > "$m$p/cgroup.procs") 2>"$err" && echo "sys cgroup: written" || echo "sys cgroup: $(cat "$err")"
fi
`;

/** A daemon of the runner's user: appends what it is asked to a file, as the runner could. */
class StandInDaemon {
  requests = 0;
  private servers: Server[] = [];

  async listen(path: string): Promise<void> {
    const server = createServer((socket) => {
      socket.on('data', async (data) => {
        const [verb, file, ...text] = String(data).trim().split(' ');
        if (verb !== 'append' || file === undefined) return;
        this.requests += 1;
        await appendFile(file, `${text.join(' ')}\n`);
        socket.end('done\n');
      });
    });
    this.servers.push(server);
    await new Promise<void>((done) => server.listen(path, done));
    chmodSync(path, 0o666);
  }

  close(): void {
    for (const server of this.servers) server.close();
  }
}

interface Scene {
  root: string;
  work: string;
  cli: string;
  stepFile: string;
  runnerTemp: string;
  sockets: string[];
  agentSocket: string;
  fingerprint: string | undefined;
  env: Record<string, string>;
}

const as = (uid: number) =>
  uid === 0 ? [] : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--'];

describe.skipIf(!isRoot)('a benchmark and the sockets of the runner user', () => {
  // Laying the default places (/run/user/<uid>, /run/docker.sock) and switching users needs
  // root; CI runs as root.
  const daemon = new StandInDaemon();
  const made: string[] = [];
  const agents: number[] = [];
  let dockerSocket: string | undefined;

  afterAll(async () => {
    daemon.close();
    for (const pid of agents) process.kill(pid);
    for (const path of made.reverse()) await rm(path, { recursive: true, force: true });
  });

  async function scene(uid: number): Promise<Scene> {
    const root = await tempDir(`perf-gate-sockets-${uid}-`);
    made.push(root);
    chmodSync(root, 0o755);
    const own = (path: string) => chownSync(path, uid, uid);
    // A copy of the bundles the user may read (the test's own snapshot is private).
    await cp(DIST, join(root, 'dist'), { recursive: true });
    execFileSync('chmod', ['-R', 'a+rX', join(root, 'dist')]);
    const work = join(root, 'work');
    const runnerTemp = join(root, 'actions-runner', '_work', '_temp');
    const commands = join(runnerTemp, '_runner_file_commands');
    await mkdir(work);
    await mkdir(commands, { recursive: true });
    const stepFile = join(commands, `set_env_${RUN}`);
    await writeFile(stepFile, '');
    for (const path of [work, runnerTemp, commands, stepFile]) own(path);
    await writeFile(join(work, 'probe.mjs'), PROBE);

    const runtime = `/run/user/${uid}`;
    if (!existsSync(runtime)) {
      mkdirSync(runtime, { recursive: true, mode: 0o700 });
      own(runtime);
      made.push(runtime);
    }
    const agentFolder = join('/tmp', `ssh-perfgate${RUN}${uid}`);
    mkdirSync(agentFolder, { mode: 0o700 });
    own(agentFolder);
    made.push(agentFolder);
    const dockerHost = join(root, 'docker-host');
    await mkdir(dockerHost);
    const sockets = [
      join(runtime, `bus-${RUN}`),
      join(agentFolder, 'agent.1'),
      join(dockerHost, 'docker.sock'),
    ];
    for (const socket of sockets) {
      await daemon.listen(socket);
      made.push(socket);
    }
    // Docker's own place, made once for both users, never over a real Docker's.
    if (dockerSocket === undefined && !existsSync('/run/docker.sock')) {
      dockerSocket = '/run/docker.sock';
      await daemon.listen(dockerSocket);
      made.push(dockerSocket);
    }
    if (dockerSocket !== undefined) sockets.push(dockerSocket);
    const agent = await startAgent(root, uid);
    return {
      root,
      work,
      cli: join(root, 'dist', 'cli.js'),
      stepFile,
      runnerTemp,
      sockets,
      ...agent,
      env: simulatorEnv({
        HOME: work,
        RUNNER_TEMP: runnerTemp,
        NEURON_COMPILE_CACHE_URL: join(work, 'compile-cache'),
        SSH_AUTH_SOCK: agent.agentSocket,
        XDG_RUNTIME_DIR: runtime,
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${sockets[0]}`,
        DOCKER_HOST: `unix://${sockets[2]}`,
      }),
    };
  }

  /** A real ssh-agent of the user, holding a fresh key, at a socket only SSH_AUTH_SOCK names. */
  async function startAgent(root: string, uid: number) {
    const folder = join(root, 'agent');
    await mkdir(folder, { mode: 0o700 });
    chownSync(folder, uid, uid);
    const agentSocket = join(folder, 'agent.sock');
    if (!hasSsh) return { agentSocket, fingerprint: undefined };
    const key = join(folder, 'id_ed25519');
    const run = (args: string[], env: Record<string, string> = {}) => {
      const [file, ...rest] = [...as(uid), ...args];
      return execFileSync(file!, rest, {
        env: { PATH: process.env.PATH ?? '', ...env },
      }).toString();
    };
    run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', `perf-gate-${RUN}`, '-f', key]);
    const started = run(['ssh-agent', '-s', '-a', agentSocket]);
    agents.push(Number(/SSH_AGENT_PID=(\d+)/.exec(started)?.[1]));
    run(['ssh-add', '-q', key], { SSH_AUTH_SOCK: agentSocket });
    const fingerprint = /SHA256:\S+/.exec(run(['ssh-keygen', '-lf', `${key}.pub`]))?.[0];
    return { agentSocket, fingerprint };
  }

  /** The CLI as `uid`, the benchmark probing every socket; what the probe wrote. */
  async function gateRun(s: Scene, uid: number, isolation: string) {
    const out = join(s.work, `probe-${isolation}.txt`);
    const script = [
      'echo "env SSH_AUTH_SOCK=${SSH_AUTH_SOCK-unset} XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR-unset} DOCKER_HOST=${DOCKER_HOST-unset} DBUS=${DBUS_SESSION_BUS_ADDRESS-unset}"',
      `SSH_AUTH_SOCK=${s.agentSocket} ssh-add -l 2>&1 | sed 's/^/ssh-add: /'`,
      `"${process.execPath}" probe.mjs ${s.stepFile} ${s.sockets.join(' ')}`,
      ...(uid === 0 ? [SYS_WRITES] : []),
    ].join('\n');
    await writeFile(join(s.work, 'bench.sh'), `{\n${script}\n} > ${out} 2>&1\n`);
    const args = [
      ...[process.execPath, s.cli, 'run', '--command', 'bash bench.sh; offline-benchmark'],
      ...['--runs', '1', '--profile', 'false', '--confirm-runs', '0', '--isolation', isolation],
    ];
    const [file, ...rest] = [...as(uid), ...args];
    const result = await new Promise<{ code: number; output: string }>((done) => {
      execFile(file!, rest, { cwd: s.work, env: s.env, timeout: 90_000 }, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    const probe = existsSync(out) ? await readFile(out, 'utf8') : '';
    return { ...result, probe };
  }

  describe.each([0, 1000])('the runner as uid %i', (uid) => {
    let s: Scene;
    beforeAll(async () => {
      s = await scene(uid);
    }, 60_000);

    it('without a sandbox, the same benchmark reaches every daemon and lists the key', async () => {
      const before = daemon.requests;
      const run = await gateRun(s, uid, 'none');
      expect(run.code, run.output).toBe(0);
      for (const socket of s.sockets) expect(run.probe).toContain(`reached ${socket}: done`);
      expect(daemon.requests - before).toBe(s.sockets.length);
      expect(await readFile(s.stepFile, 'utf8')).toContain(LEAK);
      if (s.fingerprint) expect(run.probe).toContain(s.fingerprint);
      // As root the sandbox's /sys is the only thing in the way of these writes.
      if (uid === 0) expect(run.probe).not.toMatch(/^sys \w+: (?!written$)/m);
      await writeFile(s.stepFile, '');
    }, 120_000);

    it.each(['bubblewrap', 'unshare'])(
      'under %s it reaches none, lists no key and writes no /sys',
      async (kind) => {
        await writeFile(s.stepFile, '');
        const before = daemon.requests;
        const run = await gateRun(s, uid, kind);
        expect(run.code, run.output).toBe(0);
        expect(run.output).toContain(`isolation: ${kind}`);
        expect(run.probe).toMatch(
          /^env SSH_AUTH_SOCK=unset XDG_RUNTIME_DIR=unset DOCKER_HOST=unset DBUS=unset$/m,
        );
        for (const socket of s.sockets) expect(run.probe).toContain(`refused ${socket}`);
        expect(run.probe).not.toContain('reached');
        expect(daemon.requests - before).toBe(0);
        expect(await readFile(s.stepFile, 'utf8')).toBe('');
        if (s.fingerprint) {
          expect(run.probe).toMatch(/^ssh-add: /m);
          expect(run.probe).not.toContain(s.fingerprint);
        } else {
          console.warn('ssh-agent, ssh-add or ssh-keygen missing: the agent part is not tested');
        }
        if (uid === 0) {
          expect(run.output).toMatch(/the gate runs as root/);
          expect(run.probe).toMatch(/^sys (thp|cgroup): /m);
          expect(run.probe).not.toMatch(/^sys \w+: (?!.*Read-only file system$)/m);
        } else {
          expect(run.output).not.toMatch(/the gate runs as root/);
        }
      },
      120_000,
    );
  });
});
