import { access } from 'node:fs/promises';

/** Whether anything (a file or a folder) is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
