// The git credentials a checkout leaves in the workspace, which pull-request code must not
// read: actions/checkout persists its token as an `http.<url>.extraheader` in .git/config
// (up to v5) or in a file under RUNNER_TEMP that .git/config includes (v6), and a clone
// URL can carry `user:token@`. The sandbox binds a copy without them over each config.

import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** Sections whose every key can lead to a credential (a helper, an included file). */
const CREDENTIAL_SECTIONS = /^\s*\[\s*(credential|include|includeif)\b/i;
/** `http.<url>.extraheader` and `http.extraheader` (an Authorization header). */
const EXTRA_HEADER = /^\s*extraheader\s*(=|$)/i;
const SECTION = /^\s*\[/;
const URL_USER_INFO = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s"]*@/gi;

/**
 * `text` (a git config file) without credential helpers, includes, extra headers and the
 * user:password part of URLs; every other line as it was, so git still works with it.
 */
export function withoutCredentials(text: string): string {
  const kept: string[] = [];
  let skipSection = false;
  let inHttp = false;
  for (const line of logicalLines(text)) {
    if (SECTION.test(line)) {
      skipSection = CREDENTIAL_SECTIONS.test(line);
      inHttp = /^\s*\[\s*http\b/i.test(line);
      if (skipSection) continue;
      // `[http "url"] extraheader = ...` may sit on the header's own line, and a header may
      // name a URL with a token (`[url "https://x:TOKEN@host/"] insteadOf = ...`).
      const header = inHttp ? line.replace(/\]\s*extraheader\b.*$/i, ']') : line;
      kept.push(header.replace(URL_USER_INFO, '$1'));
      continue;
    }
    if (skipSection) continue;
    if (inHttp && EXTRA_HEADER.test(line)) continue;
    kept.push(line.replace(URL_USER_INFO, '$1'));
  }
  return kept.join('\n');
}

/** Lines with git's backslash continuations joined: a value may go on over several. */
function logicalLines(text: string): string[] {
  return text.replace(/\\\r?\n/g, '').split('\n');
}

/**
 * The config files of the git repository holding `dir` (its own, and its submodules'),
 * found by walking up to the first `.git`; none when `dir` is in no repository.
 */
export async function gitConfigFiles(dir: string): Promise<string[]> {
  const gitDir = await findGitDir(resolve(dir));
  if (gitDir === undefined) return [];
  const found = [join(gitDir, 'config')];
  found.push(...(await moduleConfigs(join(gitDir, 'modules'))));
  const exists = await Promise.all(found.map((file) => isFile(file)));
  return found.filter((_, index) => exists[index]);
}

/** Folders a search for nested checkouts never enters: big, and never a checkout. */
const NOT_SEARCHED = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv']);

/**
 * Checkouts inside `root` (a second actions/checkout with `path:`, a submodule checked out
 * by hand), down to `depth` levels and at most `limit` folders looked at, links not
 * followed: each has a config with its own persisted token.
 */
export async function nestedRepositories(
  root: string,
  depth = 3,
  limit = 5_000,
): Promise<string[]> {
  const found: string[] = [];
  let looked = 0;
  const visit = async (dir: string, level: number): Promise<void> => {
    if (level > depth || looked >= limit) return;
    looked += 1;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    if (level > 0 && entries.some((e) => e.name === '.git')) found.push(dir);
    for (const entry of entries) {
      if (entry.isDirectory() && !NOT_SEARCHED.has(entry.name)) {
        await visit(join(dir, entry.name), level + 1);
      }
    }
  };
  await visit(resolve(root), 0);
  return found;
}

/** The git folders (common dirs) of the repositories holding `dirs`, once each. */
export async function gitDirsOf(dirs: readonly string[]): Promise<string[]> {
  const found = await Promise.all(dirs.map((dir) => findGitDir(resolve(dir))));
  return [...new Set(found.filter((dir) => dir !== undefined))];
}

async function findGitDir(start: string): Promise<string | undefined> {
  for (let dir = start; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const info = await stat(dotGit).catch(() => undefined);
    if (info?.isDirectory()) return dotGit;
    // A worktree or submodule checkout: `.git` is a file naming the real git dir, whose
    // config lives in the common dir.
    if (info?.isFile()) return commonDirOf(dotGit);
    if (dirname(dir) === dir) return undefined;
  }
}

async function commonDirOf(dotGitFile: string): Promise<string | undefined> {
  const text = await readFile(dotGitFile, 'utf8').catch(() => '');
  const match = /^gitdir:\s*(.+)$/m.exec(text);
  if (!match) return undefined;
  const gitDir = resolve(dirname(dotGitFile), match[1]!.trim());
  const common = await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => undefined);
  return common === undefined ? gitDir : resolve(gitDir, common.trim());
}

/** `modules/<name>/config`, at any depth (a submodule's own submodules). */
async function moduleConfigs(modules: string, depth = 0): Promise<string[]> {
  if (depth > 4) return [];
  const entries = await readdir(modules, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = join(modules, entry.name);
    found.push(join(dir, 'config'));
    found.push(...(await moduleConfigs(join(dir, 'modules'), depth + 1)));
  }
  return found;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}
