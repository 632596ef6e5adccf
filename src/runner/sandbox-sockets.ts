// The unix sockets of daemons that run as the runner's user (or root), which the sandbox
// hides: a benchmark of the same user may connect to any socket it can see, and the daemon
// then acts for it outside the sandbox (ssh-agent signs with the runner's keys; dockerd,
// systemd --user or a tmux server run commands or write the hidden step files). Issue 51.
//
// Where they live is listed once, when the sandbox is made (`socketPlaces`); what is there is
// looked up at each run (`presentSockets`): an agent may start or stop between runs, and a
// mount over a path that is gone would fail the run or create the path on the host.
//
// Not hidden: abstract-namespace sockets (they belong to the network namespace, which the
// sandbox shares with the host), and a socket in a folder the benchmark is shown (see
// docs/security.md).

import { lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import { join } from 'node:path';

export interface SocketPlaces {
  /** Folders that hold daemons' sockets and nothing a benchmark needs: shown empty. */
  dirs: string[];
  /** Socket files: /dev/null is shown in their place. */
  files: string[];
  /** Folders whose `ssh-*` folders of the runner's uid are ssh-agent's: shown empty. */
  agentParents: string[];
  /** GnuPG homes, whose `S.*` sockets (gpg-agent, keyboxd, dirmngr) are covered. */
  gnupgHomes: string[];
  /** The runner's uid. */
  uid: number;
}

/** Sockets of system daemons a user may be allowed to reach (the docker group). */
const SYSTEM_SOCKETS = [
  '/run/docker.sock',
  '/var/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/run/containerd/containerd.sock.ttrpc',
  '/run/podman/podman.sock',
  '/run/buildkit/buildkitd.sock',
  '/run/crio/crio.sock',
];

type Env = Readonly<Record<string, string | undefined>>;

/** Where daemons keep their sockets, for the gate's environment (never the config's). */
export function socketPlaces(env: Env, uid: number): SocketPlaces {
  const home = env.HOME;
  const tmp = ['/tmp', ...(env.TMPDIR ? [env.TMPDIR] : [])];
  const dirs = [
    `/run/user/${uid}`, // systemd --user, the session bus, gpg, podman, rootless docker
    ...(env.XDG_RUNTIME_DIR ? [env.XDG_RUNTIME_DIR] : []),
    ...[...tmp, ...(env.TMUX_TMPDIR ? [env.TMUX_TMPDIR] : [])].map((d) => join(d, `tmux-${uid}`)),
    ...(home ? [join(home, '.ssh', 'agent')] : []), // OpenSSH 10.1's agent sockets
  ];
  return {
    dirs: absolute(dirs),
    files: absolute([...SYSTEM_SOCKETS, ...socketsNamedIn(env)]),
    agentParents: absolute(tmp),
    gnupgHomes: absolute([
      ...(env.GNUPGHOME ? [env.GNUPGHOME] : []),
      ...(home ? [join(home, '.gnupg')] : []),
    ]),
    uid,
  };
}

/** The socket paths the gate's own variables name (the child never gets these variables). */
export function socketsNamedIn(env: Env): string[] {
  const paths: string[] = [];
  const add = (value: string | undefined) => {
    if (value) paths.push(value);
  };
  add(env.SSH_AUTH_SOCK);
  add(env.GPG_AGENT_INFO?.split(':')[0]);
  add(env.TMUX?.split(',')[0]);
  add(env.NOTIFY_SOCKET);
  for (const url of [env.DOCKER_HOST, env.CONTAINER_HOST]) add(url?.match(/^unix:\/\/(.+)$/i)?.[1]);
  for (const match of (env.DBUS_SESSION_BUS_ADDRESS ?? '').matchAll(/unix:[^;]*?path=([^,;]+)/g)) {
    add(decodeURIComponent(match[1]!));
  }
  return paths;
}

function absolute(paths: readonly string[]): string[] {
  return [...new Set(paths.filter((path) => path.startsWith('/')))];
}

/** What of `places` is there now, by real path: folders to show empty, sockets to cover. */
export function presentSockets(places: SocketPlaces): { dirs: string[]; files: string[] } {
  const dirs = new Set<string>();
  for (const dir of places.dirs) {
    const real = realUnlessLink(dir, (stats) => stats.isDirectory());
    if (real !== undefined) dirs.add(real);
  }
  const files = new Set<string>();
  // ssh-agent's own folders (`/tmp/ssh-XXXXXX/agent.<pid>`) hold nothing else. Other
  // sockets in /tmp are not touched: a server the gate started may listen there.
  for (const parent of places.agentParents) {
    for (const name of entriesOf(parent).filter((entry) => entry.startsWith('ssh-'))) {
      const path = join(parent, name);
      const real = realUnlessLink(path, (stats) => stats.isDirectory() && stats.uid === places.uid);
      if (real !== undefined) dirs.add(real);
    }
  }
  const candidates = [...places.files];
  for (const home of places.gnupgHomes) {
    const names = entriesOf(home).filter((entry) => entry.startsWith('S.'));
    candidates.push(...names.map((name) => join(home, name)));
  }
  for (const file of candidates) {
    const real = realUnlessLink(file, (stats) => stats.isSocket());
    if (real !== undefined) files.add(real);
  }
  const inHidden = (file: string) => [...dirs].some((dir) => file.startsWith(`${dir}/`));
  return { dirs: [...dirs], files: [...files].filter((file) => !inHidden(file)) };
}

/**
 * The real path of `path` when it is no symbolic link itself (its folders may be: /var/run)
 * and what it leads to is of the kind wanted. A link planted in a socket's place would
 * otherwise hide whatever it points at.
 */
function realUnlessLink(path: string, wanted: (stats: Stats) => boolean): string | undefined {
  try {
    if (lstatSync(path).isSymbolicLink()) return undefined;
    const real = realpathSync(path);
    return wanted(lstatSync(real)) ? real : undefined;
  } catch {
    return undefined;
  }
}

function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
