// Stored records as series: one per gate key × benchmark × metric × environment, oldest
// first, every point holding every clean run of its record (the replicates), so that the
// change-point search and the dashboard see the run-to-run spread, not one number a night.
//
// "Environment" here is what makes two numbers incomparable whatever the code does: the
// instance type, its NeuronCores and the benchmark config. The software under test (Neuron
// SDK, compiler, runtime, vLLM) varies along a series and is kept on each point, so an
// SDK upgrade shows up as a step with an environment difference instead of a new series.
//
// Types here are used by src/dashboard/ too: add fields, do not rename or remove them.

import { type BaselineRecord } from '../baseline/record.js';
import { pathOfRecord } from '../baseline/record-paths.js';
import { thresholdOf } from '../config/default-thresholds.js';
import type { Direction, Environment } from '../model.js';
import { meanOf } from '../stats/mean.js';

/** A record and where it is stored (its path on the data branch). */
export interface StoredRecordRef {
  path: string;
  record: BaselineRecord;
}

/** One stored record in a series: one night (or push) with every clean run it measured. */
export interface SeriesPoint {
  /** Path of the record on the data branch: `<gate>/<benchmark>/<stamp>-<sha7>-<run>.json`. */
  path: string;
  /** The code commit measured. */
  commit: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  runId: string;
  /** schedule, push, workflow_dispatch, local, ... */
  event: string;
  branch: string;
  /** The gate's verdict that night (pass, regression, no-baseline). */
  verdict: BaselineRecord['verdict'];
  /** Where it ran, with the software versions (SDK, compiler, runtime, vLLM). */
  environment: Environment;
  /** Every clean run's value, in run order: the replicates. Never empty. */
  values: number[];
  /** Mean of `values`. */
  mean: number;
  /** Set when the record itself carries an acceptance (accept-current, accept-after). */
  acceptance?: BaselineRecord['acceptance'];
}

/** What must match for two points to share a series. */
export interface SeriesEnvironment {
  instanceType?: string;
  neuronCores?: number;
  /** LNC where the runner says one (trn2): the same cores at another LNC are another machine. */
  logicalNcConfig?: number;
  configHash?: string;
}

/** One metric of one benchmark of one gate on one environment, oldest point first. */
export interface Series {
  /** Stable id: gate, benchmark, metric and environment key joined by ` · `. */
  id: string;
  gateKey: string;
  benchmark: string;
  metric: string;
  unit: string;
  direction: Direction;
  /** `inf2.xlarge/2 cores/config 1a2b3c4`; empty parts left out; `any` when none is known. */
  environmentKey: string;
  environment: SeriesEnvironment;
  /** Oldest first (by createdAt, then path). */
  points: SeriesPoint[];
  /**
   * The metric's relative threshold (0.05 = 5%): the config's, else the built-in one;
   * null when it is not gated; absent when unknown (every change then counts).
   */
  threshold?: number | null;
  /** An A/B comparison's changes (buildSeries' abSeries): not a level, no change points. */
  ab?: true;
}

/** An acceptance found among the records: `baseline accept`, accept-current, accept-after. */
export interface AcceptanceMark {
  gateKey: string;
  benchmark: string;
  /** The acceptance record's path. */
  path: string;
  /** When it was accepted (ISO 8601 UTC). */
  at: string;
  reason: NonNullable<BaselineRecord['acceptance']>['reason'];
  by?: string;
  /** Paths of the records accepted (the one copied, a regression streak). */
  records: string[];
  /** The environment key of the accepted measurement. */
  environmentKey: string;
}

export interface SeriesSet {
  series: Series[];
  acceptances: AcceptanceMark[];
  /** Records left out, and why (another branch, an errored run, no runs). */
  skipped: number;
}

export interface BuildSeriesOptions {
  /** Only records of this branch count (the default branch); undefined: every branch. */
  defaultBranch?: string;
  /** Also the A/B records' changes, as series of their own (the dashboard's). */
  abSeries?: boolean;
  /**
   * The configured thresholds of a benchmark (by name, in its gate); the built-in ones where
   * absent, as for the gates whose config this run does not have.
   */
  thresholdsOf?: (
    benchmark: string,
    gateKey: string,
  ) => Readonly<Record<string, number>> | undefined;
}

/** Events whose records never form history (a pull request never writes; kept for old data). */
const NOT_HISTORY = new Set(['pull_request', 'pull_request_target', 'merge_group']);

/**
 * Whether a record is a night of the history: not an errored run, not a pull request's,
 * and of the default branch when one is given.
 */
export function inHistory(record: BaselineRecord, defaultBranch?: string): boolean {
  return (
    record.verdict !== 'error' &&
    !NOT_HISTORY.has(record.event) &&
    (defaultBranch === undefined || record.branch === defaultBranch)
  );
}

/**
 * Series of every gate, benchmark, metric and environment in `records` (any order).
 * Errored runs and other branches are left out; a `baseline accept` record is a copy of a
 * measurement already in the series, so it becomes an acceptance mark, not a point.
 */
export function buildSeries(
  records: readonly StoredRecordRef[],
  options: BuildSeriesOptions = {},
): SeriesSet {
  const ordered = [...records].sort(
    (a, b) => a.record.createdAt.localeCompare(b.record.createdAt) || a.path.localeCompare(b.path),
  );
  const byId = new Map<string, Series>();
  const acceptances: AcceptanceMark[] = [];
  let skipped = 0;
  for (const { path, record } of ordered) {
    if (record.ab !== undefined) {
      // An A/B comparison's changes are points of their own (abSeries), not a night's level.
      if (options.abSeries) addAbPoints(byId, path, record);
      else skipped += 1;
      continue;
    }
    if (!inHistory(record, options.defaultBranch)) {
      skipped += 1;
      continue;
    }
    const environment = seriesEnvironment(record);
    const environmentKey = describeEnvironment(environment);
    if (record.acceptance) {
      acceptances.push({
        gateKey: record.gateKey,
        benchmark: record.benchmark,
        path,
        at: record.acceptance.at,
        reason: record.acceptance.reason,
        ...(record.acceptance.by ? { by: record.acceptance.by } : {}),
        records: [...(record.acceptance.records ?? [])],
        environmentKey,
      });
      if (record.acceptance.reason === 'manual') continue;
    }
    let used = false;
    for (const metric of record.result.metrics) {
      const values = metric.values.filter((v) => Number.isFinite(v));
      if (values.length === 0) continue;
      used = true;
      const id = seriesId(record.gateKey, record.benchmark, metric.id, environmentKey);
      const series = seriesIn(byId, id, () => ({
        gateKey: record.gateKey,
        benchmark: record.benchmark,
        metric: metric.id,
        unit: metric.unit,
        direction: metric.direction,
        environmentKey,
        environment,
        threshold: thresholdOf(
          options.thresholdsOf?.(record.benchmark, record.gateKey) ?? {},
          metric.id,
          record.result.format,
        ),
      }));
      const mean = meanOf(values);
      series.points.push({
        ...pointOf(path, record, values, mean),
        ...(record.acceptance ? { acceptance: record.acceptance } : {}),
      });
    }
    if (!used) skipped += 1;
  }
  const series = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  return { series, acceptances, skipped };
}

/**
 * An A/B record's paired changes as points, one series per gate, benchmark and metric,
 * in percent: the value is the change, the lowest and highest its interval's ends.
 */
function addAbPoints(byId: Map<string, Series>, path: string, record: BaselineRecord): void {
  for (const metric of record.result.metrics) {
    const paired = record.ab!.changes[metric.id];
    if (!paired) continue;
    const name = `${metric.id} A/B change`;
    const id = seriesId(record.gateKey, record.benchmark, name, 'A/B');
    const series = seriesIn(byId, id, () => ({
      gateKey: record.gateKey,
      benchmark: record.benchmark,
      metric: name,
      unit: '%',
      direction: metric.direction,
      environmentKey: 'A/B',
      environment: {},
      ab: true,
    }));
    const percent = (x: number) => x * 100;
    const values = [percent(paired.low), percent(paired.change), percent(paired.high)];
    series.points.push(pointOf(path, record, values, percent(paired.change)));
  }
}

/** Series `id` of `byId`, made (with no points yet) the first time it is asked for. */
function seriesIn(
  byId: Map<string, Series>,
  id: string,
  make: () => Omit<Series, 'id' | 'points'>,
): Series {
  let series = byId.get(id);
  if (!series) {
    series = { id, ...make(), points: [] };
    byId.set(id, series);
  }
  return series;
}

/** A record as a point of a series: where and when it was measured, its values and mean. */
function pointOf(
  path: string,
  record: BaselineRecord,
  values: number[],
  mean: number,
): SeriesPoint {
  return {
    path,
    commit: record.commit,
    createdAt: record.createdAt,
    runId: record.runId,
    event: record.event,
    branch: record.branch,
    verdict: record.verdict,
    environment: record.environment,
    values,
    mean,
  };
}

/** Records as read from a store that gives no paths: named the way the store names them. */
export function withRecordPaths(records: readonly BaselineRecord[]): StoredRecordRef[] {
  return records.map((record) => ({ path: pathOfRecord(record), record }));
}

export function seriesId(
  gateKey: string,
  benchmark: string,
  metric: string,
  environmentKey: string,
): string {
  return [gateKey, benchmark, metric, environmentKey].join(' · ');
}

/** The environment key of the series a record's metrics belong to. */
export function environmentKeyOf(record: BaselineRecord): string {
  return describeEnvironment(seriesEnvironment(record));
}

function seriesEnvironment(record: BaselineRecord): SeriesEnvironment {
  const { instanceType, neuronCores, logicalNcConfig } = record.environment;
  const configHash = record.configHash ?? record.environment.configHash;
  return {
    ...(instanceType !== undefined ? { instanceType } : {}),
    ...(neuronCores !== undefined ? { neuronCores } : {}),
    ...(logicalNcConfig !== undefined ? { logicalNcConfig } : {}),
    ...(configHash !== undefined ? { configHash } : {}),
  };
}

function describeEnvironment(environment: SeriesEnvironment): string {
  const parts = [
    environment.instanceType,
    environment.neuronCores !== undefined ? `${environment.neuronCores} cores` : undefined,
    environment.logicalNcConfig !== undefined ? `LNC ${environment.logicalNcConfig}` : undefined,
    environment.configHash !== undefined
      ? `config ${environment.configHash.slice(0, 7)}`
      : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join('/') : 'any';
}

/** Series matching the filters (exact names). */
export function filterSeries(
  series: readonly Series[],
  filter: { gateKey?: string; benchmark?: string; metric?: string },
): Series[] {
  return series.filter(
    (s) =>
      (filter.gateKey === undefined || s.gateKey === filter.gateKey) &&
      (filter.benchmark === undefined || s.benchmark === filter.benchmark) &&
      (filter.metric === undefined || s.metric === filter.metric),
  );
}
