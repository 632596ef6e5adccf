import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface ProfileFiles {
  ntffFiles: string[];
  neffFiles: string[];
  /** NTFF files of 0 bytes: the device captured nothing. */
  emptyNtffFiles: string[];
  totalBytes: number;
}

/** Every NTFF and NEFF file below `dir`, in any of the documented layouts. */
export async function findProfileFiles(dir: string): Promise<ProfileFiles> {
  const found: ProfileFiles = { ntffFiles: [], neffFiles: [], emptyNtffFiles: [], totalBytes: 0 };
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const lower = entry.name.toLowerCase();
    if (!lower.endsWith('.ntff') && !lower.endsWith('.neff')) continue;
    const { size } = await stat(path);
    found.totalBytes += size;
    if (lower.endsWith('.neff')) {
      found.neffFiles.push(path);
    } else {
      found.ntffFiles.push(path);
      if (size === 0) found.emptyNtffFiles.push(path);
    }
  }
  found.ntffFiles.sort();
  found.neffFiles.sort();
  found.emptyNtffFiles.sort();
  return found;
}
