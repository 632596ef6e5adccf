// Working directories must exist before anything runs: a typo there would otherwise
// surface as a confusing spawn error in the middle of the gate.

import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';

export const WORKING_DIRECTORY_ALLOWED =
  'allowed: an existing directory, relative to the workspace';

/** Why `value` (relative to the workspace) is not a usable directory, or undefined. */
export async function directoryProblem(
  workspace: string,
  value: string,
): Promise<string | undefined> {
  const path = resolve(workspace, value);
  try {
    const info = await stat(path);
    return info.isDirectory() ? undefined : `${path} is not a directory`;
  } catch {
    return `${path} does not exist`;
  }
}
