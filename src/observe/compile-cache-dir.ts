// The Neuron compile cache on disk: where it is for a benchmark, and which compiled graphs
// it holds. Entries are `<cache>/neuronxcc-<compiler version>/MODULE_<hash>/` with the
// graph's `model.neff` inside (the layout of the Neuron persistent cache, as published
// caches show it: huggingface.co/aws-neuron/optimum-neuron-cache). An entry without its
// NEFF is a compile in progress or one that failed: not a compiled graph yet.

import { readdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { errorMessage } from '../errors.js';
import { exists } from '../fs/exists.js';

/** The cache's default folder when NEURON_COMPILE_CACHE_URL is unset (the Neuron docs'). */
export const DEFAULT_COMPILE_CACHE_DIR = '/var/tmp/neuron-compile-cache';

/** `shown`: the folder as the benchmark's settings name it (relative to its working directory). */
export type CacheLocation = { dir: string; shown?: string } | { remote: string };

/**
 * Where a benchmark's compile cache is: NEURON_COMPILE_CACHE_URL as the benchmark sees it
 * (a local path, `file://` allowed, relative to `cwd`), a remote URL (s3://) the gate
 * cannot list, or the default folder.
 */
export function compileCacheLocation(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): CacheLocation {
  const url = env.NEURON_COMPILE_CACHE_URL?.trim();
  if (!url) return { dir: DEFAULT_COMPILE_CACHE_DIR };
  const path = url.startsWith('file://') ? url.slice('file://'.length) : url;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return { remote: url };
  return isAbsolute(path) ? { dir: path } : { dir: resolve(cwd, path), shown: path };
}

/** The cache's complete entries, as `neuronxcc-<version>/MODULE_<hash>`, and what went wrong. */
export interface CacheListing {
  entries: Set<string>;
  warnings: string[];
}

/** Lists the complete entries; a missing folder is an empty cache, an unreadable one a warning. */
export async function listCompileCache(dir: string): Promise<CacheListing> {
  const entries = new Set<string>();
  const warnings: string[] = [];
  const versions = await subfolders(dir, warnings);
  for (const version of versions.filter((name) => name.startsWith('neuronxcc-'))) {
    for (const module of await subfolders(join(dir, version), warnings)) {
      if (!module.startsWith('MODULE_')) continue;
      if (await exists(join(dir, version, module, 'model.neff'))) {
        entries.add(`${version}/${module}`);
      }
    }
  }
  return { entries, warnings };
}

async function subfolders(dir: string, warnings: string[]): Promise<string[]> {
  try {
    const found = await readdir(dir, { withFileTypes: true });
    return found.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      warnings.push(`cannot read the compile cache folder ${dir}: ${errorMessage(error)}`);
    }
    return [];
  }
}
