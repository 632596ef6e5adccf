// Stored records ─► the dashboard's input: series (src/history), acceptances, sweeps.

import { buildSeries, type StoredRecordRef } from '../history/series.js';
import type { DashboardInput } from './page-data.js';
import { sweepCurves } from './sweeps.js';

export interface DashboardSource {
  records: readonly StoredRecordRef[];
  /** For the reader: "branch perf-gate-data of https://github.com/o/r". */
  source: string;
  title?: string;
  repositoryUrl?: string;
  /** Only records of this branch (the default branch); every branch when undefined. */
  defaultBranch?: string;
  now?: Date;
}

export function dashboardInput(options: DashboardSource): DashboardInput {
  const built = buildSeries(options.records, {
    ...(options.defaultBranch !== undefined ? { defaultBranch: options.defaultBranch } : {}),
  });
  return {
    title: options.title ?? 'neuron-perf-gate dashboard',
    source: options.source,
    generatedAt: (options.now ?? new Date()).toISOString(),
    series: built.series,
    acceptances: built.acceptances,
    sweeps: sweepCurves(options.records),
    ...(options.repositoryUrl ? { repositoryUrl: options.repositoryUrl } : {}),
  };
}

/**
 * The web address of a repository from its git remote: `https://host/o/r` from
 * `https://[user@]host/o/r(.git)` or `git@host:o/r(.git)`; never the credentials a remote
 * URL may hold. Undefined for a local path or anything else.
 */
export function repositoryUrlOf(remote: string | undefined): string | undefined {
  if (!remote) return undefined;
  const scp = /^[\w.-]+@([\w.-]+):([\w.-]+\/[\w.-]+?)(?:\.git)?\/?$/.exec(remote);
  if (scp) return `https://${scp[1]}/${scp[2]}`;
  let url: URL;
  try {
    url = new URL(remote);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'ssh:') return undefined;
  const path = url.pathname.replace(/\.git\/?$/, '').replace(/\/+$/, '');
  if (!/^\/[\w.-]+\/[\w.-]+$/.test(path)) return undefined;
  return `https://${url.hostname}${path}`;
}
