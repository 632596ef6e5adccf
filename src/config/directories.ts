// Working directories must exist before anything runs: a typo there would otherwise
// surface as a confusing spawn error in the middle of the gate.

import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

export const WORKING_DIRECTORY_ALLOWED =
  'allowed: an existing directory inside the workspace, relative to it';

/**
 * Why `value` (relative to the workspace) is not a usable directory, or undefined. It must
 * lie inside the workspace (symbolic links followed): the sandbox shows the workspace, and
 * a benchmark started in the runner's own folders could reach what the workspace keeps out.
 */
export async function directoryProblem(
  workspace: string,
  value: string,
): Promise<string | undefined> {
  const path = resolve(workspace, value);
  try {
    const info = await stat(path);
    if (!info.isDirectory()) return `${path} is not a directory`;
  } catch {
    return `${path} does not exist`;
  }
  const real = await realpath(path);
  const root = await realpath(workspace).catch(() => resolve(workspace));
  const inside = relative(root, real);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    return `${path} is outside the workspace ${workspace}`;
  }
  return undefined;
}

/** Kernel file systems: a folder there cannot hold files, and writing may hang. */
const SYSTEM_FOLDERS = ['/proc', '/sys', '/dev'];

export const OUT_DIR_ALLOWED =
  'allowed: a folder path relative to the workspace, created when missing, with no file on the way to it';

/**
 * Why a folder the gate creates (`out-dir`) cannot be made at `value`: it, or a folder on
 * the way to it, is a file. Undefined when it exists as a folder or can be created.
 */
export async function creatableDirectoryProblem(
  workspace: string,
  value: string,
): Promise<string | undefined> {
  const path = resolve(workspace, value);
  const system = SYSTEM_FOLDERS.find((dir) => path === dir || path.startsWith(`${dir}/`));
  if (system !== undefined) return `${path} is under ${system}, a kernel file system`;
  for (let at = path; ; at = dirname(at)) {
    try {
      const info = await stat(at);
      if (info.isDirectory()) return undefined;
      return at === path ? `${path} is a file` : `${at} is a file, so no folder can be made in it`;
    } catch {
      // Not there yet: created along with the ones below it; look further up.
    }
    if (dirname(at) === at) return undefined;
  }
}
