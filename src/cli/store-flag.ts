// `--store URL`: any record store by URL (baseline/store-url.ts), in place of --repo,
// --remote, --branch and --dir, which it does not go with.

import { parseStoreUrl } from '../baseline/store-url.js';
import { usageError } from '../errors.js';
import type { HistoryOptions } from './baseline-history.js';
import { single, type ParsedArgs } from './args.js';

const LOCATION_FLAGS = ['repo', 'remote', 'branch', 'dir'] as const;

/** The store --store names, or undefined when it is not given. */
export function storeFlag(args: ParsedArgs, cwd: string): HistoryOptions | undefined {
  const url = single(args, 'store');
  if (url === undefined) return undefined;
  const clash = LOCATION_FLAGS.filter((flag) => args.flags.has(flag)).map((flag) => `--${flag}`);
  if (clash.length > 0) {
    throw usageError(
      `--store names the store by itself; it does not go with ${clash.join(', ')} (a data branch is --store git+REMOTE#BRANCH, a folder --store dir:PATH)`,
    );
  }
  const parsed = parseStoreUrl(url, cwd);
  switch (parsed.kind) {
    case 'folder':
      return { kind: 'folder', dir: parsed.dir };
    case 'git-branch':
      // The path the data branch has always had: a shallow clone of the branch.
      return { kind: 'repo', repoDir: cwd, branch: parsed.branch, remote: parsed.remote };
    default:
      return { kind: 'store', spec: parsed };
  }
}
