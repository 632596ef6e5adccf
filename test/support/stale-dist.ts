// Whether dist/ may be older than the source it is built from, judged by modification times.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the bundles are built from, relative to the repository: src/ and the build's own inputs. */
export const BUNDLE_INPUTS = ['src', 'rollup.config.js', 'rollup.raw-text.js', 'package.json'];

/** Every file under `path` (or `path` itself when it is a file); nothing when it is missing. */
function filesUnder(path: string): string[] {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return [path];
    if (code === 'ENOENT') return [];
    throw error;
  }
  return entries.flatMap((entry) => filesUnder(join(path, entry.name)));
}

/**
 * The first bundle input under `root` modified after `root`/dist/index.js, or undefined when
 * none is (or when dist/index.js is missing: then there is nothing to compare with).
 */
export function inputNewerThanDist(root: string): string | undefined {
  let built: number;
  try {
    built = statSync(join(root, 'dist', 'index.js')).mtimeMs;
  } catch {
    return undefined;
  }
  for (const input of BUNDLE_INPUTS) {
    const newer = filesUnder(join(root, input)).find((file) => statSync(file).mtimeMs > built);
    if (newer !== undefined) return newer;
  }
  return undefined;
}
