// Git remotes are named by URL (`https://…`, `git@host:path`) or by a local path; git
// resolves a relative path from the folder it runs in, which is rarely the one the path
// was written for.

import { isAbsolute, resolve } from 'node:path';

/** `https://…`, `file://…`, or scp-like `host:path` (no slash before the colon). */
function isUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location) || /^[^/]+:/.test(location);
}

/** A URL or absolute path as given; a relative path made absolute against `cwd`. */
export function resolveRemote(location: string, cwd: string): string {
  return isUrl(location) || isAbsolute(location) ? location : resolve(cwd, location);
}
