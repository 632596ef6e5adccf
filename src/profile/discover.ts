import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProfileSummary } from '../model.js';

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

/**
 * What the profiled run left behind. MFU is read from the profiler's summaries in a
 * later stage; until then the summary says what was captured and that MFU is not measured.
 */
export async function summarizeProfile(dir: string): Promise<ProfileSummary> {
  const files = await findProfileFiles(dir);
  const captured = files.ntffFiles.length - files.emptyNtffFiles.length;
  let note: string;
  if (files.ntffFiles.length === 0) {
    note =
      'not measured: the profiled run left no NTFF file (were the profiler variables set ' +
      'before the Neuron runtime started? did anything execute on the NeuronCores?)';
  } else if (captured === 0) {
    note =
      'not measured: every NTFF file is empty (device profiling off, device memory ' +
      'exhausted, or nothing executed)';
  } else {
    note = `not measured: ${captured} NTFF file(s) captured; reading MFU from them is not supported yet`;
  }
  return {
    status: 'not-measured',
    note,
    dir,
    ntffFiles: files.ntffFiles,
    neffFiles: files.neffFiles,
    totalBytes: files.totalBytes,
    metrics: {},
  };
}
