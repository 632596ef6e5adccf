// The gate reads and writes files in folders pull-request code can write too (the run and
// profile folders of the out-dir). It does so outside the sandbox, so a symbolic link the
// benchmark left there would carry the gate's write into the runner's programs, or its read
// (and the error quoting it) into the checkout's credentials. These checks run between
// runs, when nothing of the benchmark is left running to change the folders again.

import { lstat, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

/**
 * The first symbolic link on the way from `root` down to `path` (both included but
 * `root` itself), as a path; undefined when there is none. Parts not there yet are fine.
 */
export async function firstLinkBelow(root: string, path: string): Promise<string | undefined> {
  const rel = relative(root, path);
  if (rel.startsWith('..') || isAbsolute(rel)) return path;
  let at = root;
  for (const part of rel.split(sep).filter((p) => p !== '')) {
    at = join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (info === undefined) return undefined;
    if (info.isSymbolicLink()) return at;
  }
  return undefined;
}

/** Throws when a symbolic link lies on the way from `root` down to `path`. */
export async function refuseLinksBelow(root: string, path: string, what: string): Promise<void> {
  const link = await firstLinkBelow(root, path);
  if (link !== undefined) {
    throw new Error(
      `${what}: ${link} is a symbolic link, which the benchmark may have made; the gate neither reads nor writes through it. Remove it (or the out-dir) and run again.`,
    );
  }
}

/**
 * The out-dir before the gate writes its report there: no link from the workspace down to
 * it (or, for an out-dir outside the workspace, the folder itself no link). The benchmark
 * could have swapped it for a link to a folder of the runner's during its last run.
 */
export async function refuseLinkedOutDir(workspace: string, outDir: string): Promise<void> {
  const rel = relative(workspace, outDir);
  if (!rel.startsWith('..') && !isAbsolute(rel)) {
    return refuseLinksBelow(workspace, outDir, 'the out-dir');
  }
  const info = await lstat(outDir).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    throw new Error(
      `the out-dir: ${outDir} is a symbolic link, which the benchmark may have made; the gate does not write its report through it. Remove it and run again.`,
    );
  }
}

/**
 * Before the gate writes `file` (a baseline file): no link on the way down from `root`
 * (the workspace) to its folder, or, outside `root`, its folder itself no link.
 */
export async function refuseLinkedFolderOf(root: string, file: string): Promise<void> {
  const folder = dirname(file);
  const rel = relative(root, folder);
  if (!rel.startsWith('..') && !isAbsolute(rel)) {
    return refuseLinksBelow(root, folder, `the folder of ${file}`);
  }
  if ((await lstat(folder).catch(() => undefined))?.isSymbolicLink()) {
    throw new Error(
      `the folder of ${file}: ${folder} is a symbolic link, which the benchmark may have made; the gate does not write through it. Remove it and run again.`,
    );
  }
}

/**
 * Why the gate must not read `path`, a file named by the pull request's config (the config
 * file, a sweep file): it really is outside `workspace` or inside a `.git` folder (its
 * lines would reach an error message), or it is no regular file (a FIFO would hang the
 * gate). Undefined when it may be read, or is not there (the reader says so).
 */
export async function unreadableConfigFile(
  path: string,
  workspace: string,
): Promise<string | undefined> {
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) return undefined;
  const root = await realpath(workspace).catch(() => workspace);
  const inside = relative(root, real);
  if (inside.startsWith('..') || isAbsolute(inside) || inside.split(sep).includes('.git')) {
    return `it is ${real}, outside the workspace or inside a .git folder; the gate reads config files only from the checked-out tree`;
  }
  const info = await stat(real).catch(() => undefined);
  if (info !== undefined && !info.isFile()) return `${real} is not a regular file`;
  return undefined;
}
