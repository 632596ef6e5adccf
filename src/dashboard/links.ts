// The only links the page makes: a workflow run, a commit and an issue, each below a
// repository URL checked here and named by a number or a hex sha. Nothing a record holds
// becomes a link; a URL with credentials, a query or odd characters gives no links at all.

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

/** `https://host/owner/repo/actions/runs/`, or null: see repositoryLinks. */
export function runBase(repositoryUrl: string | undefined): string | null {
  return repositoryLinks(repositoryUrl)?.runs ?? null;
}

/**
 * The numeric run id of a record's run id (`<run id>` or `<run id>-<attempt>`), for its
 * link; 0 (no link) for anything else, such as a run id with text after it.
 */
export function numericRunId(runId: string): number {
  const match = /^(\d{1,16})(?:-\d{1,6})?$/.exec(runId);
  return match ? Number(match[1]) : 0;
}
