// The only links the page makes: a workflow run, a commit and an issue, each below a
// repository URL checked by repositoryBase (history/commit-range.ts) and named by a number
// or a hex sha. Nothing a record holds becomes a link; a URL with credentials, a query or
// odd characters gives no links at all.

import { repositoryBase } from '../history/commit-range.js';

export interface RepositoryLinks {
  /** `https://host/owner/repo/actions/runs/` */
  runs: string;
  /** `https://host/owner/repo/commit/` */
  commits: string;
  /** `https://host/owner/repo/issues/` */
  issues: string;
}

/**
 * The link bases below an https repository URL of plain path segments; undefined for
 * anything else (http, credentials, a query, a fragment, odd characters).
 */
export function repositoryLinks(repositoryUrl: string | undefined): RepositoryLinks | undefined {
  const base = repositoryBase(repositoryUrl);
  if (!base) return undefined;
  return { runs: `${base}/actions/runs/`, commits: `${base}/commit/`, issues: `${base}/issues/` };
}
