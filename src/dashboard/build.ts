// Stored records ─► the dashboard's input: series and their change points (src/history),
// the series that stopped reporting, acceptances, sweeps, capacity curves.

import { DEFAULTS } from '../config/defaults.js';
import { analyzeHistory } from '../history/analyze.js';
import { findMissingSeries } from '../history/missing.js';
import { buildSeries, type BuildSeriesOptions, type StoredRecordRef } from '../history/series.js';
import { capacityCharts } from './capacity-curves.js';
import { changeMarks } from './change-marks.js';
import type { DashboardInput } from './page-data.js';
import { sweepCurves } from './sweeps.js';
import { sweepDistributions } from './sweep-distributions.js';

export interface DashboardSource {
  records: readonly StoredRecordRef[];
  /** For the reader: "branch perf-gate-data of https://github.com/o/r". */
  source: string;
  title?: string;
  repositoryUrl?: string;
  /** Only records of this branch (the default branch); every branch when undefined. */
  defaultBranch?: string;
  now?: Date;
  /** Issue numbers of the regressions that have one, by regression id. */
  issues?: ReadonlyMap<string, number>;
  /** Commit subjects, by full commit sha, where known. */
  subjects?: ReadonlyMap<string, string>;
  /** The configured thresholds, as the gate's history judges them; built-in ones otherwise. */
  thresholdsOf?: BuildSeriesOptions['thresholdsOf'];
  /** `missing-after`: nights a series may miss before it is listed as stopped (0: never). */
  missingAfter?: number;
}

export function dashboardInput(options: DashboardSource): DashboardInput {
  const built = buildSeries(options.records, {
    ...(options.defaultBranch !== undefined ? { defaultBranch: options.defaultBranch } : {}),
    abSeries: true,
    ...(options.thresholdsOf ? { thresholdsOf: options.thresholdsOf } : {}),
  });
  // A/B series hold changes, not levels: no change-point search over them.
  const levels = { ...built, series: built.series.filter((series) => !series.ab) };
  const { changes, regressions } = changeMarks(analyzeHistory(levels));
  const now = options.now ?? new Date();
  const after = options.missingAfter ?? DEFAULTS.missingAfter;
  return {
    title: options.title ?? 'neuron-perf-gate dashboard',
    source: options.source,
    generatedAt: now.toISOString(),
    series: built.series,
    acceptances: built.acceptances,
    changes,
    regressions: regressions.map((r) => {
      const issue = options.issues?.get(r.id);
      return issue !== undefined ? { ...r, issue } : r;
    }),
    missing: findMissingSeries(levels.series, { after, now }),
    ...(options.subjects ? { subjects: options.subjects } : {}),
    sweeps: sweepCurves(options.records.filter(({ record }) => record.ab === undefined)),
    distributions: sweepDistributions(options.records, options.defaultBranch),
    capacities: capacityCharts(options.records, options.defaultBranch),
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
