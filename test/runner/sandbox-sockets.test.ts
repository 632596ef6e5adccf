// Which daemons' sockets the sandbox hides, and how it hides them (issue 51): folders that
// hold only sockets are shown empty, socket files as /dev/null, and the folders above them
// become mount points. Real sockets on a made-up layout; the sandbox's arguments read back.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, rootRunnerWarning } from '../../src/runner/sandbox.js';
import { presentSockets, socketPlaces, socketsNamedIn } from '../../src/runner/sandbox-sockets.js';

let top: string;
const servers: Server[] = [];
const uid = process.getuid?.() ?? 0;

function listen(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  return new Promise((done) => server.listen(path, done));
}

interface Places {
  tmp: string;
  home: string;
  agentDir: string;
  agent: string;
  gpg: string;
  named: string;
  serverSocket: string;
}

let places: Places;

beforeAll(async () => {
  top = await mkdtemp(join(tmpdir(), 'perf-gate-sockets-'));
  const tmp = join(top, 'tmp');
  const home = join(top, 'home');
  const agentDir = join(tmp, 'ssh-Xa1b2c');
  for (const dir of [agentDir, join(home, '.gnupg'), join(top, 'named')]) {
    mkdirSync(dir, { recursive: true });
  }
  chmodSync(agentDir, 0o700);
  places = {
    tmp,
    home,
    agentDir,
    agent: join(agentDir, 'agent.77'),
    gpg: join(home, '.gnupg', 'S.gpg-agent'),
    named: join(top, 'named', 'agent.sock'),
    // A server the gate started may listen in /tmp: never hidden.
    serverSocket: join(tmp, 'vllm.sock'),
  };
  for (const path of [places.agent, places.gpg, places.named, places.serverSocket]) {
    await listen(path);
  }
  // A link in a socket's place and a plain file under a socket's name are left alone.
  symlinkSync(places.named, join(home, '.gnupg', 'S.dirmngr'));
});

afterAll(async () => {
  for (const server of servers) server.close();
  await rm(top, { recursive: true, force: true });
});

const env = () => ({
  HOME: places.home,
  TMPDIR: places.tmp,
  SSH_AUTH_SOCK: places.named,
  PATH: process.env.PATH,
});

describe('socketsNamedIn', () => {
  it('reads the socket paths out of the agent and daemon variables', () => {
    expect(
      socketsNamedIn({
        SSH_AUTH_SOCK: '/a/agent.1',
        GPG_AGENT_INFO: '/b/S.gpg-agent:42:1',
        TMUX: '/tmp/tmux-1000/default,123,0',
        NOTIFY_SOCKET: '/run/systemd/notify',
        DOCKER_HOST: 'unix:///c/docker.sock',
        CONTAINER_HOST: 'tcp://10.0.0.1:2375',
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus;unix:abstract=/tmp/dbus-x,guid=1',
      }).sort(),
    ).toEqual(
      [
        '/a/agent.1',
        '/b/S.gpg-agent',
        '/tmp/tmux-1000/default',
        '/run/systemd/notify',
        '/c/docker.sock',
        '/run/user/1000/bus',
      ].sort(),
    );
  });
});

describe('presentSockets', () => {
  it("hides the agent's folder, gpg's sockets and the named socket, not a server's or a link", () => {
    const found = presentSockets(socketPlaces(env(), uid));
    expect(found.dirs).toContain(places.agentDir);
    expect(found.files).toContain(places.gpg);
    expect(found.files).toContain(places.named);
    // Inside a folder shown empty already: not covered again.
    expect(found.files).not.toContain(places.agent);
    expect(found.files).not.toContain(places.serverSocket);
    expect(found.files).not.toContain(join(places.home, '.gnupg', 'S.dirmngr'));
  });

  it("leaves another user's ssh-* folder in /tmp and places that are gone", () => {
    const found = presentSockets(socketPlaces(env(), uid + 1));
    expect(found.dirs).not.toContain(places.agentDir);
    const gone = presentSockets({
      ...socketPlaces({}, uid),
      dirs: [join(top, 'no-such-dir')],
      files: [join(top, 'no-such.sock')],
    });
    expect(gone.dirs).not.toContain(join(top, 'no-such-dir'));
    expect(gone.files).not.toContain(join(top, 'no-such.sock'));
  });
});

describe.each(['bubblewrap', 'unshare'] as const)('the %s arguments', (kind) => {
  it('hide each socket, pin the folders above them, and make /sys read-only as root', async () => {
    const sandbox = await createSandbox({ env: env(), repositories: [], keep: [], prefer: kind });
    try {
      expect(sandbox.kind).toBe(kind);
      const [file, args] = sandbox.wrap(['/bin/true'], top);
      const all = [file, ...args];
      if (kind === 'bubblewrap') {
        expect(pairAfter(all, '--tmpfs', places.agentDir)).toBe(true);
        expect(tripleOf(all, '--ro-bind', '/dev/null', places.named)).toBe(true);
        expect(tripleOf(all, '--ro-bind', '/dev/null', places.gpg)).toBe(true);
        expect(tripleOf(all, '--bind', places.home, places.home)).toBe(true);
        expect(tripleOf(all, '--ro-bind', '/sys', '/sys')).toBe(uid === 0);
      } else {
        // unshare takes counted lists: the pinned, hidden and /dev/null ones are there.
        for (const path of [places.agentDir, places.named, places.gpg, places.home]) {
          expect(all).toContain(path);
        }
        expect(all.join('\n')).toContain('remount,bind,ro "$point"');
        // The script's read-only /sys switch follows the sandbox's sources folder.
        const sources = all.findIndex((arg) => /perf-gate-sandbox-[^/]+\/sources$/.test(arg));
        expect(all[sources + 1]).toBe(uid === 0 ? '1' : '0');
      }
      expect(all).not.toContain(places.serverSocket);
    } finally {
      await sandbox.dispose();
    }
  });
});

describe.each(['bubblewrap', 'unshare'] as const)('an agent socket in RUNNER_TEMP (%s)', (kind) => {
  it('is hidden with the folder, and the sandbox still starts', async () => {
    const runnerTemp = join(top, `runner-${kind}`, '_work', '_temp');
    mkdirSync(runnerTemp, { recursive: true });
    const socket = join(runnerTemp, 'ssh-auth.sock');
    await listen(socket);
    const sandbox = await createSandbox({
      env: { ...env(), RUNNER_TEMP: runnerTemp, SSH_AUTH_SOCK: socket },
      repositories: [],
      keep: [],
      prefer: kind,
    });
    try {
      const [file, args] = sandbox.wrap(['/bin/sh', '-c', `test ! -e ${socket}`], top);
      expect(args).not.toContain(socket);
      expect(spawnSync(file, args, { encoding: 'utf8' })).toMatchObject({ status: 0 });
    } finally {
      await sandbox.dispose();
    }
  });
});

describe.each(['bubblewrap', 'unshare'] as const)('an abstract socket (%s)', (kind) => {
  it('is still reached: the sandbox shares the network namespace (docs/security.md)', async () => {
    const name = `perf-gate-abstract-${process.pid}-${kind}`;
    await listen(`\0${name}`);
    const sandbox = await createSandbox({ env: env(), repositories: [], keep: [], prefer: kind });
    try {
      const client = `require('net').connect('\\0' + process.argv[1]).on('connect', () => process.exit(0)).on('error', () => process.exit(3))`;
      const [file, args] = sandbox.wrap([process.execPath, '-e', client, name], top);
      expect(spawnSync(file, args, { encoding: 'utf8' })).toMatchObject({ status: 0 });
    } finally {
      await sandbox.dispose();
    }
  });
});

describe('rootRunnerWarning', () => {
  it('warns for uid 0 only', () => {
    expect(rootRunnerWarning(0)).toMatch(/runs as root/);
    expect(rootRunnerWarning(1000)).toBeUndefined();
  });
});

function pairAfter(args: readonly string[], flag: string, value: string): boolean {
  return args.some((arg, i) => arg === flag && args[i + 1] === value);
}

function tripleOf(args: readonly string[], flag: string, a: string, b: string): boolean {
  return args.some((arg, i) => arg === flag && args[i + 1] === a && args[i + 2] === b);
}
