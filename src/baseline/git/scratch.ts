// A scratch bare repository of this process that talks to the workspace's `origin`: what
// the data branch store and the dashboard's Pages branch work in, so that the user's
// checkout (its HEAD, index, branches and config) is only ever read, for the remote URL
// and the credentials actions/checkout left there.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exists } from '../../fs/exists.js';
import { DEFAULT_NETWORK_TIMEOUT_MS } from '../../net/deadline.js';
import { Git, lastLines, type GitIdentity } from './git.js';
import { resolveRemote } from './remote.js';

export interface ScratchRepositoryOptions {
  /** The checked-out workspace whose `origin` is used. */
  repoDir: string;
  /** The remote URL or path; `origin` of repoDir unless given (then no credentials are read). */
  remote?: string;
  /** The bare repository's folder (created). */
  dir: string;
  identity?: GitIdentity;
  /** Fetch without blobs (a partial clone): for readers that want only some files. */
  partial: boolean;
  /** Said when the workspace has no `origin`: what needs it and what to do instead. */
  noOriginAdvice: string;
  /** The time limit of each git call in the scratch repository (see GitOptions); 30 s. */
  timeLimitMs?: () => number;
  /**
   * The github-token input, for when the checkout persisted no credentials
   * (`persist-credentials: false`, which keeps the token out of pull-request code's reach).
   */
  token?: HttpToken;
}

/** A token for git over HTTPS to one server, as actions/checkout sends it. */
export interface HttpToken {
  value: string;
  /** `https://github.com`, or a GitHub Enterprise server. */
  serverUrl: string;
}

export async function openScratchRepository(options: ScratchRepositoryOptions): Promise<Git> {
  const workspace = new Git({ cwd: options.repoDir });
  const remote = options.remote ?? (await originUrl(workspace, 'fetch', options.noOriginAdvice));
  const pushUrl = options.remote ?? (await originUrl(workspace, 'push', options.noOriginAdvice));
  const persisted = options.remote ? [] : await credentialConfig(workspace);
  const config = persisted.length > 0 || !options.token ? persisted : tokenConfig(options.token);
  await mkdir(options.dir, { recursive: true });
  const git = new Git({
    cwd: options.dir,
    config,
    ...(options.identity ? { identity: options.identity } : {}),
    // A remote that never answers must not hang the gate: every call has a time limit.
    timeLimitMs: options.timeLimitMs ?? (() => DEFAULT_NETWORK_TIMEOUT_MS),
  });
  const fresh = !(await exists(join(options.dir, 'HEAD')));
  if (fresh) await git.run(['init', '--quiet', '--bare', '.']);
  const settings: [string, string][] = [
    ...(options.partial
      ? ([
          ['core.repositoryformatversion', '1'],
          ['extensions.partialClone', 'origin'],
        ] as [string, string][])
      : []),
    ['remote.origin.url', remote],
    ['remote.origin.pushurl', pushUrl],
    ...(options.partial
      ? ([
          ['remote.origin.promisor', 'true'],
          ['remote.origin.partialclonefilter', 'blob:none'],
        ] as [string, string][])
      : []),
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['fetch.writeCommitGraph', 'false'],
    ['advice.detachedHead', 'false'],
  ];
  // A repository just made: its settings written in one go rather than one git process
  // each (a dozen processes are a good part of a small read's time).
  if (fresh && (await appendSettings(join(options.dir, 'config'), settings))) return git;
  for (const [key, value] of settings) await git.run(['config', key, value]);
  return git;
}

/**
 * Adds `settings` to the config file `git init` just wrote, as `git config` would; false
 * (nothing written) when that file is not what `git init` writes, or a setting is there.
 */
async function appendSettings(file: string, settings: [string, string][]): Promise<boolean> {
  const text = await readFile(file, 'utf8');
  const version = /^\s*repositoryformatversion = 0$/m;
  if (!version.test(text)) return false;
  const sections = new Map<string, string[]>();
  let updated = text;
  for (const [key, value] of settings) {
    if (key === 'core.repositoryformatversion') {
      updated = updated.replace(version, `\trepositoryformatversion = ${value}`);
      continue;
    }
    const dot = key.lastIndexOf('.');
    const name = key.slice(dot + 1);
    if (new RegExp(`^\\s*${name}\\s*=`, 'im').test(text)) return false;
    const first = key.indexOf('.');
    const header =
      first === dot
        ? `[${key.slice(0, dot)}]`
        : `[${key.slice(0, first)} "${key.slice(first + 1, dot)}"]`;
    sections.set(header, [...(sections.get(header) ?? []), `\t${name} = ${quoteValue(value)}`]);
  }
  const added = [...sections].map(([header, lines]) => `${header}\n${lines.join('\n')}\n`);
  await writeFile(file, `${updated.endsWith('\n') ? updated : `${updated}\n`}${added.join('')}`);
  return true;
}

/** A git config value, quoted so that it reads back as it is (spaces, #, ;, quotes). */
function quoteValue(value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t');
  return `"${escaped}"`;
}

async function originUrl(workspace: Git, kind: 'fetch' | 'push', advice: string): Promise<string> {
  const result = await workspace.tryRun([
    'remote',
    'get-url',
    ...(kind === 'push' ? ['--push'] : []),
    'origin',
  ]);
  if (!result.ok) {
    throw new Error(
      `${workspace.cwd} has no 'origin' remote (${lastLines(result.stderr)}); ${advice}`,
    );
  }
  // A clone made from a relative path names its origin relative to the workspace.
  return resolveRemote(result.stdout.trim(), workspace.cwd);
}

/**
 * The HTTP auth headers actions/checkout configured in the workspace (local config and
 * what it includes), handed to the scratch repository through the environment only.
 */
async function credentialConfig(workspace: Git): Promise<[string, string][]> {
  const result = await workspace.tryRun([
    'config',
    '--local',
    '--includes',
    '--get-regexp',
    '^http\\..*extraheader$',
  ]);
  if (!result.ok) return [];
  return result.stdout
    .split('\n')
    .filter((line) => line.includes(' '))
    .map((line): [string, string] => {
      const space = line.indexOf(' ');
      return [line.slice(0, space), line.slice(space + 1)];
    });
}

/** The header actions/checkout would have persisted for `token`, for this process only. */
function tokenConfig(token: HttpToken): [string, string][] {
  const basic = Buffer.from(`x-access-token:${token.value}`).toString('base64');
  return [
    [`http.${token.serverUrl.replace(/\/+$/, '')}/.extraheader`, `AUTHORIZATION: basic ${basic}`],
  ];
}

/**
 * Fetches the tip of `branch` one commit deep into `ref`, with extra fetch `flags` (such
 * as `--filter=blob:none`); undefined when the remote has no such branch. `what` names it
 * in an error.
 */
export async function fetchBranchTip(
  git: Git,
  options: { branch: string; ref: string; flags: readonly string[]; what: string },
): Promise<string | undefined> {
  const { branch, ref } = options;
  const fetched = await git.tryRun([
    'fetch',
    '--quiet',
    '--no-tags',
    '--no-write-fetch-head',
    '--recurse-submodules=no',
    '--depth=1',
    ...options.flags,
    'origin',
    `+refs/heads/${branch}:${ref}`,
  ]);
  if (!fetched.ok) {
    if (/couldn't find remote ref/i.test(fetched.stderr)) {
      await git.tryRun(['update-ref', '-d', ref]);
      return undefined;
    }
    throw new Error(
      `could not fetch ${options.what} '${branch}': ${lastLines(fetched.stderr)}${fetched.timedOut ? ". Check that the runner reaches the repository's remote" : ''}`,
    );
  }
  return git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
}
