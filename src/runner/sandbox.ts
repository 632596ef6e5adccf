// Where pull-request code runs: in its own PID and mount namespace, so that it cannot see
// the gate or the runner. A process of the runner's user could otherwise read
// /proc/<ancestor>/environ (the github-token input, ACTIONS_RUNTIME_TOKEN), the token
// actions/checkout persisted in .git/config, and write the step's command files under
// RUNNER_TEMP (GITHUB_ENV sets the environment of every later step). Inside the sandbox:
//
// - /proc shows only the sandbox's own processes: no ancestor, no other job;
// - RUNNER_TEMP (step files, event payload, checkout's credential file) and the runner's
//   own credential files and logs are empty; TMPDIR is a folder of the gate's own;
// - every git config of the workspace is a copy without credentials;
// - the sockets of the user's daemons and agents are hidden (sandbox-sockets.ts);
// - as root, /sys is read-only (kernel settings, the cgroups);
// - everything else (/dev with the Neuron devices, the workspace, the toolchains) is as it
//   is, and the process runs as the same user with no capabilities.
//
// bubblewrap where the runner has it, else util-linux's `unshare` and `setpriv` (on every
// Debian, Ubuntu and Amazon Linux). See docs/security.md.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, isAbsolute } from 'node:path';
import {
  gitConfigFiles,
  gitDirsOf,
  nestedRepositories,
  withoutCredentials,
} from './git-credentials.js';
import { presentSockets, socketPlaces, type SocketPlaces } from './sandbox-sockets.js';

export type IsolationKind = 'bubblewrap' | 'unshare' | 'none';

export interface Sandbox {
  kind: IsolationKind;
  /** One sentence for the log, the summary and the comment's footer. */
  description: string;
  /** `[file, args]` that run `argv` inside the sandbox, in `cwd`. */
  wrap(argv: readonly string[], cwd: string): [string, string[]];
  /** The child's environment inside the sandbox (its own TMPDIR). */
  environment(env: Record<string, string>): Record<string, string>;
  /** Removes the sandbox's own files. */
  dispose(): Promise<void>;
  /**
   * This sandbox with these folders (those that exist) shown empty as well: an A/B
   * comparison's base side, to the head side's processes. Disposed with this one.
   */
  hiding(dirs: readonly string[]): Sandbox;
}

type WrapArgs = (layout: SandboxLayout, argv: readonly string[], cwd: string) => string[];

/** No isolation: the command runs as it is (unit tests, and where none is chosen). */
export const NO_SANDBOX: Sandbox = {
  kind: 'none',
  description: 'none',
  wrap: (argv) => [argv[0]!, argv.slice(1)],
  environment: (env) => env,
  dispose: () => Promise.resolve(),
  hiding: () => NO_SANDBOX,
};

/** What the sandbox hides and keeps, decided once per gate run. */
export interface SandboxLayout {
  /**
   * Folders shown read-only: the runner's own folder, whose programs and cached actions
   * (bin/, _work/_actions/) are the runner user's, so that a benchmark of the same user
   * could otherwise change what the next step or job runs.
   */
  readOnlyDirs: string[];
  /** Folders shown empty (a tmpfs over each). */
  hiddenDirs: string[];
  /**
   * Folders bound onto themselves first, so that they are mount points inside, which no
   * process there can rename or remove: every folder on the path to a folder `hiding` hid.
   * A tmpfs over a folder hides it by path; renaming a parent would carry the hidden
   * folder off and let a folder of the same name take its place.
   */
  pinnedDirs: string[];
  /** Files shown empty (/dev/null over each). */
  hiddenFiles: string[];
  /** Files shown as another (a git config without credentials). */
  replacedFiles: { target: string; source: string }[];
  /** Folders shown as they are, writable, even inside a hidden or read-only one. */
  keptDirs: string[];
  /**
   * Real paths, taken when the sandbox is made, that a folder must lie in to be bound back:
   * between two runs the benchmark may swap a folder on a kept path for a symbolic link
   * into RUNNER_TEMP or the runner's folder, and a bind follows links.
   */
  allowedRoots: string[];
  /**
   * Git folders of the repositories: read-only inside (no hook or config the gate or a
   * later job would run), and as mount points they cannot be renamed away from their
   * config's replacement.
   */
  gitDirs: string[];
  /** Where daemons' sockets may be: those present are hidden at each run. */
  sockets: SocketPlaces;
  /** unshare's staging folder for mounts the tmpfs would cover (outside privateDir). */
  stageDir: string;
  /** The sandbox's own files (the git config copies, TMPDIR): hidden inside but tmp/. */
  privateDir: string;
}

export interface SandboxOptions {
  /**
   * The gate's own environment (RUNNER_TEMP, and PATH to find bwrap, unshare, setpriv and
   * mount): never the config's, which is the pull request's to set.
   */
  env: Readonly<Record<string, string | undefined>>;
  /** Folders whose repositories' git configs are shown without credentials. */
  repositories: readonly string[];
  /** Folders that stay visible and writable (the out-dir). */
  keep: readonly string[];
  /** Which isolation to try; `auto` takes the first that works. */
  prefer?: 'auto' | 'bubblewrap' | 'unshare' | 'none';
}

/**
 * The programs each kind needs, found on the gate's PATH (and the system folders) once:
 * run by absolute path, so that a PATH the pull request's config sets cannot put a fake
 * `bwrap` or `mount` in their place.
 */
const TOOLS_OF = {
  bubblewrap: ['bwrap'],
  unshare: ['unshare', 'setpriv', 'mount', 'mkdir'],
} as const;
const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

type Tools = Record<string, string>;

function findTools(
  names: readonly string[],
  path: string | undefined,
): Tools | { missing: string } {
  const dirs = [...(path ?? '').split(':').filter((dir) => isAbsolute(dir)), ...SYSTEM_DIRS];
  const tools: Tools = {};
  for (const name of names) {
    const found = dirs.map((dir) => join(dir, name)).find((file) => isExecutable(file));
    if (found === undefined) return { missing: name };
    tools[name] = found;
  }
  return tools;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The runner's own secrets next to its `_work` folder (the runner's registration). */
const RUNNER_SECRET_FILES = ['.credentials', '.credentials_rsaparams', '.runner', '.env'];

/**
 * The warning for a gate that runs as root, where a benchmark, root without capabilities,
 * still owns every root-owned file of the machine (docs/security.md); undefined otherwise.
 */
export function rootRunnerWarning(uid = process.getuid?.()): string | undefined {
  if (uid !== 0) return undefined;
  return (
    'the gate runs as root: pull-request code runs as root without capabilities, which still ' +
    "owns the machine's root-owned files (system programs, other jobs' files); the sandbox " +
    "makes /sys read-only but cannot promise that the job's cgroup holds it. Run the runner " +
    'as an ordinary user, or one job per machine (--ephemeral).'
  );
}

/** Builds the layout, then takes the first isolation that runs a command in it. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const layout = await planLayout(options);
  const prefer = options.prefer ?? 'auto';
  const reasons: string[] = [];
  const candidates: (keyof typeof TOOLS_OF)[] =
    prefer === 'auto' ? ['bubblewrap', 'unshare'] : prefer === 'none' ? [] : [prefer];
  for (const kind of candidates) {
    const tools = findTools(TOOLS_OF[kind], options.env.PATH);
    if ('missing' in tools) {
      reasons.push(`${kind}: ${tools.missing} is not installed`);
      continue;
    }
    const wrap: WrapArgs = (plan, argv, cwd) =>
      kind === 'bubblewrap'
        ? bubblewrapArgs(tools, withSockets(plan), argv, cwd)
        : unshareArgs(tools, withSockets(plan), argv, cwd);
    const problem = tryIsolation(wrap, layout);
    if (problem === undefined) return isolated(kind, wrap, layout);
    reasons.push(`${kind}: ${problem}`);
  }
  const why = prefer === 'none' ? 'isolation is off' : reasons.join('; ');
  return unisolated(layout, `none (${why})`);
}

async function planLayout(options: SandboxOptions): Promise<SandboxLayout> {
  const privateDir = await mkdtemp(join(tmpdir(), 'perf-gate-sandbox-'));
  const stageDir = await mkdtemp(join(tmpdir(), 'perf-gate-stage-'));
  // A cancelled gate leaves through process.exit (signals.ts): its own folders go too.
  process.once('exit', removeOnExit(privateDir, stageDir));
  const tmp = join(privateDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  await mkdir(join(privateDir, 'sources'), { recursive: true });
  const hiddenDirs = [privateDir];
  const hiddenFiles: string[] = [];
  const runnerTemp = options.env.RUNNER_TEMP;
  if (runnerTemp && existsSync(runnerTemp)) hiddenDirs.push(runnerTemp);
  const runnerRoot = runnerRootOf(runnerTemp);
  if (runnerRoot !== undefined) {
    for (const name of RUNNER_SECRET_FILES) {
      if (existsSync(join(runnerRoot, name))) hiddenFiles.push(join(runnerRoot, name));
    }
    if (existsSync(join(runnerRoot, '_diag'))) hiddenDirs.push(join(runnerRoot, '_diag'));
  }
  const workspace = options.env.GITHUB_WORKSPACE;
  const keptDirs = [...options.keep, ...(workspace ? [workspace] : []), tmp].map((d) => resolve(d));
  const roots = [...keptDirs, ...options.repositories];
  const repositories = [...options.repositories];
  for (const top of [...(workspace ? [workspace] : []), ...options.repositories]) {
    repositories.push(...(await nestedRepositories(top)));
  }
  return {
    readOnlyDirs: realPaths(runnerRoot !== undefined ? [runnerRoot] : []),
    hiddenDirs: realPaths(hiddenDirs),
    pinnedDirs: [],
    hiddenFiles,
    replacedFiles: await scrubbedGitConfigs(repositories, join(privateDir, 'sources')),
    keptDirs,
    allowedRoots: realPaths(roots),
    gitDirs: realPaths(await gitDirsOf(repositories)),
    sockets: socketPlaces(options.env, process.getuid?.() ?? -1),
    privateDir,
    stageDir,
  };
}

/**
 * The layout with the daemons' sockets there now hidden: their folders empty, each socket
 * file /dev/null, and every folder above them a mount point, so that no run can rename a
 * socket's folder to a path the next run does not hide.
 */
export function withSockets(layout: SandboxLayout): SandboxLayout {
  const present = presentSockets(layout.sockets);
  // What lies in a folder shown empty is hidden already (and no mount could reach it there).
  const outside = (path: string) => !layout.hiddenDirs.some((dir) => isInside(path, dir));
  const dirs = present.dirs.filter(outside);
  const files = present.files.filter(outside);
  const above = [...dirs, ...files].flatMap(ancestorsOf);
  return {
    ...layout,
    pinnedDirs: [...new Set([...layout.pinnedDirs, ...above])],
    hiddenDirs: [...new Set([...layout.hiddenDirs, ...dirs])],
    hiddenFiles: [...new Set([...layout.hiddenFiles, ...files])],
  };
}

/** The real paths of those that exist. */
function realPaths(paths: readonly string[]): string[] {
  return [...new Set(paths.map((path) => realPathOf(path)).filter((p) => p !== undefined))];
}

function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** `<root>/_work/_temp` is where the Actions runner keeps RUNNER_TEMP. */
function runnerRootOf(runnerTemp: string | undefined): string | undefined {
  if (!runnerTemp) return undefined;
  const work = dirname(resolve(runnerTemp));
  return basename(work) === '_work' ? dirname(work) : undefined;
}

async function scrubbedGitConfigs(
  repositories: readonly string[],
  sources: string,
): Promise<{ target: string; source: string }[]> {
  const targets = new Set<string>();
  for (const dir of repositories) for (const file of await gitConfigFiles(dir)) targets.add(file);
  const replaced: { target: string; source: string }[] = [];
  let index = 0;
  for (const target of targets) {
    const source = join(sources, `gitconfig-${index++}`);
    await writeFile(source, withoutCredentials(await readFile(target, 'utf8')));
    replaced.push({ target, source });
  }
  return replaced;
}

function isolated(kind: IsolationKind, wrap: WrapArgs, layout: SandboxLayout): Sandbox {
  const hidden = [
    'its own PID namespace (no ancestor in /proc)',
    layout.readOnlyDirs.length > 0 ? `${layout.readOnlyDirs.join(', ')} read-only` : undefined,
    layout.hiddenDirs.length > 0 ? `${layout.hiddenDirs.join(', ')} empty` : undefined,
    layout.replacedFiles.length > 0 ? 'git configs without credentials' : undefined,
    "the user's daemon and agent sockets hidden",
    process.getuid?.() === 0 ? '/sys read-only' : undefined,
    'no capabilities',
  ].filter((part) => part !== undefined);
  return {
    kind,
    description: `${kind}: ${hidden.join('; ')}`,
    wrap: (argv, cwd) => {
      const args = wrap(layout, argv, cwd);
      return [args[0]!, args.slice(1)];
    },
    environment: (env) => withPrivateTmp(env, layout),
    dispose: () => removeOwnFolders(layout),
    hiding: (dirs) => {
      const more = realPaths(dirs.filter((dir) => existsSync(dir)));
      const hiddenDirs = [...layout.hiddenDirs, ...more];
      const pinnedDirs = [...new Set([...layout.pinnedDirs, ...more.flatMap(ancestorsOf)])];
      return {
        ...isolated(kind, wrap, { ...layout, hiddenDirs, pinnedDirs }),
        dispose: () => Promise.resolve(),
      };
    },
  };
}

async function removeOwnFolders(layout: SandboxLayout): Promise<void> {
  await rm(layout.privateDir, { recursive: true, force: true });
  await rm(layout.stageDir, { recursive: true, force: true });
  const onExit = exitCleanups.get(layout.privateDir);
  if (onExit) process.removeListener('exit', onExit);
  exitCleanups.delete(layout.privateDir);
}

/** Each layout's exit-time clean-up, by its private folder, to forget once disposed. */
const exitCleanups = new Map<string, () => void>();

function removeOnExit(privateDir: string, stageDir: string): () => void {
  const onExit = () => {
    for (const dir of [privateDir, stageDir]) rmSync(dir, { recursive: true, force: true });
  };
  exitCleanups.set(privateDir, onExit);
  return onExit;
}

function unisolated(layout: SandboxLayout, description: string): Sandbox {
  const sandbox: Sandbox = {
    kind: 'none',
    description,
    wrap: (argv) => [argv[0]!, argv.slice(1)],
    environment: (env) => env,
    dispose: () => removeOwnFolders(layout),
    // Without isolation nothing can be hidden (the report says none).
    hiding: () => sandbox,
  };
  return sandbox;
}

/** TMPDIR (and RUNNER_TEMP, which is hidden) point at the sandbox's own folder. */
function withPrivateTmp(
  env: Record<string, string>,
  layout: SandboxLayout,
): Record<string, string> {
  const tmp = join(layout.privateDir, 'tmp');
  return {
    ...env,
    TMPDIR: tmp,
    ...(env.RUNNER_TEMP !== undefined ? { RUNNER_TEMP: tmp } : {}),
  };
}

/**
 * Kept folders and the working directory, by real path, that lie inside a hidden or
 * read-only folder: bound back, writable. Only real paths inside the allowed roots: a path
 * the benchmark turned into a link to RUNNER_TEMP is not bound, and is then as empty or
 * read-only inside as what it points into.
 */
function boundBack(layout: SandboxLayout, cwd: string): string[] {
  const covered = [...layout.hiddenDirs, ...layout.readOnlyDirs];
  const bound = new Set<string>();
  for (const dir of [...layout.keptDirs, cwd]) {
    const real = realPathOf(dir);
    if (real === undefined || !layout.allowedRoots.some((root) => isInside(real, root))) continue;
    if (covered.some((cover) => isInside(real, cover) && real !== cover)) bound.add(real);
  }
  return [...bound];
}

/**
 * Pinned and hidden folders inside a folder bound back: a bind is made from the host's
 * view, so it covers what was mounted below it before (the workspace bound back over a
 * hidden `<out>/base`). These are mounted again after the binds back.
 */
function coveredByBindsBack(
  layout: SandboxLayout,
  bound: readonly string[],
): { pinned: string[]; hidden: string[] } {
  const below = (dir: string) => bound.some((b) => isInside(dir, b) && dir !== b);
  return {
    pinned: layout.pinnedDirs.filter(below),
    hidden: layout.hiddenDirs.filter(below),
  };
}

/** The repositories' git folders that still are where they were, inside an allowed root. */
function gitDirsInPlace(layout: SandboxLayout): string[] {
  return layout.gitDirs.filter((dir) => realPathOf(dir) === dir);
}

/** Every folder above `path` but the root, outermost first: `/a/b/c` gives `/a`, `/a/b`. */
export function ancestorsOf(path: string): string[] {
  const ancestors: string[] = [];
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) ancestors.unshift(dir);
  return ancestors;
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function bubblewrapArgs(
  tools: Tools,
  layout: SandboxLayout,
  argv: readonly string[],
  cwd: string,
): string[] {
  const args = [tools.bwrap!, '--die-with-parent', '--unshare-pid'];
  args.push('--dev-bind', '/', '/', '--proc', '/proc');
  // As root bwrap keeps every capability unless told: a root benchmark could unmount what
  // hides the runner's files. Unprivileged, bwrap's user namespace leaves it none anyway.
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL');
  // Kernel settings (core_pattern runs a program as full root on a crash) stay read-only.
  args.push('--ro-bind', '/proc/sys', '/proc/sys');
  // Root's /sys is writable (transparent huge pages, a cgroup's cgroup.procs): read-only.
  if (process.getuid?.() === 0) args.push('--ro-bind', '/sys', '/sys');
  for (const dir of layout.pinnedDirs) args.push('--bind', dir, dir);
  for (const dir of layout.readOnlyDirs) args.push('--ro-bind', dir, dir);
  for (const dir of layout.hiddenDirs) args.push('--tmpfs', dir);
  const bound = boundBack(layout, cwd);
  for (const dir of bound) args.push('--bind', dir, dir);
  const again = coveredByBindsBack(layout, bound);
  for (const dir of again.pinned) args.push('--bind', dir, dir);
  for (const dir of again.hidden) args.push('--tmpfs', dir);
  for (const dir of gitDirsInPlace(layout)) args.push('--ro-bind', dir, dir);
  for (const file of layout.hiddenFiles) args.push('--ro-bind', '/dev/null', file);
  // Sources are host paths (bwrap resolves them outside), in the hidden privateDir.
  for (const { target, source } of layout.replacedFiles) args.push('--ro-bind', source, target);
  args.push('--chdir', cwd, '--', ...argv);
  return args;
}

/**
 * unshare makes the namespaces; a shell inside (namespace root, capabilities still held)
 * mounts the layout, then setpriv drops every capability for good (securebits: uid 0 gets
 * none back on exec) before the command runs.
 */
const UNSHARE_SETUP = [
  'set -e',
  'mount=$1; mkdir=$2; setpriv=$3; cwd=$4; stage=$5; sources=$6; rosys=$7; shift 7',
  'n=$1; shift; pinned=("${@:1:n}"); shift "$n"',
  'n=$1; shift; ro=("${@:1:n}"); shift "$n"',
  'n=$1; shift; hidden=("${@:1:n}"); shift "$n"',
  'n=$1; shift; kept=("${@:1:n}"); shift "$n"',
  'n=$1; shift; repinned=("${@:1:n}"); shift "$n"',
  'n=$1; shift; rehidden=("${@:1:n}"); shift "$n"',
  'n=$1; shift; gitdirs=("${@:1:n}"); shift "$n"',
  'n=$1; shift; files=("${@:1:n}"); shift "$n"',
  'n=$1; shift; replaced=("${@:1:n}"); shift "$n"',
  // Folders on the path to a hidden one become mount points first: none can be renamed.
  'for d in "${pinned[@]}"; do "$mount" --rbind "$d" "$d"; done',
  // What the tmpfs mounts would cover is bound aside first: kept folders, the config copies.
  'i=0; for d in "${kept[@]}"; do "$mkdir" -p "$stage/k$i"; "$mount" --rbind "$d" "$stage/k$i"; i=$((i+1)); done',
  '"$mkdir" -p "$stage/src"; "$mount" --bind "$sources" "$stage/src"',
  '"$mount" --bind /proc/sys /proc/sys; "$mount" -o remount,bind,ro /proc/sys',
  // As root: /sys and every mount below it (the cgroup folders) read-only, one by one.
  'if [ "$rosys" = 1 ]; then',
  '  "$mount" --rbind /sys /sys',
  '  while read -r _ _ _ _ point _; do case "$point" in /sys|/sys/*)',
  '    "$mount" -o remount,bind,ro "$point";; esac; done < /proc/self/mountinfo',
  'fi',
  'for d in "${ro[@]}"; do "$mount" --bind "$d" "$d"; "$mount" -o remount,bind,ro "$d"; done',
  'for d in "${hidden[@]}"; do "$mount" -t tmpfs -o mode=0755 tmpfs "$d"; done',
  // Bound from the staging (not moved: an unprivileged user namespace may not move it).
  'i=0; for d in "${kept[@]}"; do "$mkdir" -p "$d"; "$mount" --rbind "$stage/k$i" "$d"; i=$((i+1)); done',
  // The binds back cover what was pinned or hidden below them: mounted again.
  'for d in "${repinned[@]}"; do "$mount" --rbind "$d" "$d"; done',
  'for d in "${rehidden[@]}"; do "$mount" -t tmpfs -o mode=0755 tmpfs "$d"; done',
  'for d in "${gitdirs[@]}"; do "$mount" --rbind "$d" "$d"; "$mount" -o remount,bind,ro "$d"; done',
  'for f in "${files[@]}"; do "$mount" --bind /dev/null "$f"; done',
  'j=0; while [ "$j" -lt "${#replaced[@]}" ]; do',
  '  "$mount" --bind "$stage/src/${replaced[$j]}" "${replaced[$((j+1))]}"; j=$((j+2))',
  'done',
  // Nothing of the staging is left to see.
  '"$mount" -t tmpfs -o mode=0755 tmpfs "$stage"',
  'cd "$cwd"',
  'exec "$setpriv" --no-new-privs --bounding-set=-all --inh-caps=-all \\',
  '  --securebits=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked \\',
  '  -- "$@"',
].join('\n');

function unshareArgs(
  tools: Tools,
  layout: SandboxLayout,
  argv: readonly string[],
  cwd: string,
): string[] {
  const kept = boundBack(layout, cwd);
  const again = coveredByBindsBack(layout, kept);
  const pairs = layout.replacedFiles.flatMap(({ target, source }) => [basename(source), target]);
  const user = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user'];
  return [
    // The sandbox dies with the gate, even a gate killed with SIGKILL: unshare gets
    // SIGKILL when its parent dies, and --kill-child passes it on.
    tools.setpriv!,
    '--pdeathsig',
    'KILL',
    '--',
    tools.unshare!,
    '--pid',
    '--fork',
    '--kill-child',
    '--mount',
    '--mount-proc',
    '--propagation',
    'private',
    ...user,
    '/bin/bash',
    '-c',
    UNSHARE_SETUP,
    'neuron-perf-gate-sandbox',
    tools.mount!,
    tools.mkdir!,
    tools.setpriv!,
    cwd,
    layout.stageDir,
    join(layout.privateDir, 'sources'),
    process.getuid?.() === 0 ? '1' : '0',
    ...counted(layout.pinnedDirs),
    ...counted(layout.readOnlyDirs),
    ...counted(layout.hiddenDirs),
    ...counted(kept),
    ...counted(again.pinned),
    ...counted(again.hidden),
    ...counted(gitDirsInPlace(layout)),
    ...counted(layout.hiddenFiles),
    ...counted(pairs),
    ...argv,
  ];
}

function counted(items: readonly string[]): string[] {
  return [String(items.length), ...items];
}

/** Undefined when `wrap` runs `true` in the layout; else what went wrong, in short. */
function tryIsolation(wrap: WrapArgs, layout: SandboxLayout): string | undefined {
  const [file, ...args] = wrap(layout, ['/bin/sh', '-c', 'exit 0'], layout.privateDir);
  const result = spawnSync(file!, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${file} is not installed` : result.error.message;
  }
  if (result.status === 0) return undefined;
  const stderr = String(result.stderr ?? '')
    .trim()
    .split('\n')
    .slice(-2)
    .join(' ');
  return `${file} failed (exit ${result.status ?? result.signal})${stderr ? `: ${stderr}` : ''}`;
}
