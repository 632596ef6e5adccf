// Which stored records form a benchmark's baseline.
//
// The baseline is the newest `window` accepted records of the benchmark from the default
// branch that were measured on the same environment (instance type, NeuronCores, Neuron
// SDK / compiler / runtime, vLLM versions, benchmark config). Accepted means "not a
// regression", or a regression someone (or `accept-after`) accepted as the new normal.
// An acceptance starts the history of its environment again: records older than the
// newest acceptance are no longer part of the baseline, except the ones it names.
// (With baseline-match loose every environment shares one history.)

import {
  describeDifference,
  fingerprintDifferences,
  sameFingerprint,
} from '../environment/fingerprint.js';
import type { Environment } from '../model.js';
import { type BaselineRecord } from './record.js';
import { pathOfRecord } from './record-paths.js';

/** `strict`: only records from the same environment; `loose`: any, with the differences noted. */
export type BaselineMatch = 'strict' | 'loose';

export interface SelectOptions {
  /** At most this many records form the baseline. */
  window: number;
  /**
   * Records, the window's included, that may teach the day-to-day drift (older-records.ts):
   * `older` holds the accepted ones beyond the window up to this count. Default: the window.
   */
  history?: number;
  /** Only records of this branch count; undefined: any branch (a local store). */
  defaultBranch?: string;
  /** Where the current run is measured, with its benchmark's configHash. */
  environment: Environment;
  match: BaselineMatch;
  /**
   * Every verdict counts, a regression's too: the records given are the baseline branch's
   * level now (since an open regression), which code built on the branch is compared with.
   */
  everyVerdict?: boolean;
}

export interface BaselineSelection {
  /** Newest first; empty when nothing fits. */
  records: BaselineRecord[];
  /**
   * Accepted records of the same history older than `records`, newest first, up to
   * `history` in all: only for the day-to-day drift, never part of the baseline.
   */
  older?: BaselineRecord[];
  /** What differs from the current environment (loose), or why nothing fits (strict). */
  notes: string[];
  /** Set when `records` is empty: why there is no baseline. */
  reason?: string;
}

/** Selects the baseline records among one benchmark's records (newest first). */
export function selectBaseline(
  records: BaselineRecord[],
  options: SelectOptions,
): BaselineSelection {
  const onBranch = records.filter(
    (record) =>
      record.verdict !== 'error' &&
      (options.defaultBranch === undefined || record.branch === options.defaultBranch),
  );
  if (onBranch.length === 0) {
    return {
      records: [],
      notes: [],
      reason: `no stored records${options.defaultBranch ? ` from ${options.defaultBranch}` : ''} yet`,
    };
  }
  if (options.match === 'loose') {
    // Loose: one history whatever the environment, so any acceptance starts it again.
    const accepted = options.everyVerdict ? onBranch : acceptedRecords(onBranch);
    if (accepted.length === 0) return noneAccepted(onBranch.length, '');
    const chosen = accepted.slice(0, options.window);
    return {
      records: chosen,
      ...olderOf(accepted, options),
      notes: differencesFrom(chosen[0]!, options.environment),
    };
  }
  // Strict: each environment has a history of its own. An acceptance measured elsewhere
  // (another instance type sharing the gate) says nothing about this one.
  const matching = onBranch.filter((record) =>
    sameFingerprint(fingerprintOf(record), options.environment),
  );
  if (matching.length === 0) {
    const newest = acceptedRecords(onBranch)[0] ?? onBranch[0]!;
    const notes = differencesFrom(newest, options.environment);
    return {
      records: [],
      notes,
      reason: `the stored baseline was measured on a different environment (${notes.join('; ')}); set baseline-match: loose to compare anyway`,
    };
  }
  const accepted = options.everyVerdict ? matching : acceptedRecords(matching);
  if (accepted.length === 0) {
    return noneAccepted(
      matching.length,
      matching.length < onBranch.length ? ' from this environment' : '',
    );
  }
  return { records: accepted.slice(0, options.window), ...olderOf(accepted, options), notes: [] };
}

/**
 * The newest record of the benchmark's history that a baseline could have come from (of
 * the branch and, strict, the environment; not an error), whatever its verdict: the
 * previous commit, even when a regression left it out of the baseline.
 */
export function newestRecord(
  records: BaselineRecord[],
  options: SelectOptions,
): BaselineRecord | undefined {
  return records.find(
    (record) =>
      record.verdict !== 'error' &&
      (options.defaultBranch === undefined || record.branch === options.defaultBranch) &&
      (options.match === 'loose' || sameFingerprint(fingerprintOf(record), options.environment)),
  );
}

/** The accepted records beyond the window that may teach the drift, when there are any. */
function olderOf(accepted: BaselineRecord[], options: SelectOptions): { older?: BaselineRecord[] } {
  const older = accepted.slice(options.window, Math.max(options.window, options.history ?? 0));
  return older.length > 0 ? { older } : {};
}

function noneAccepted(count: number, where: string): BaselineSelection {
  return {
    records: [],
    notes: [],
    reason: `none of the ${count} stored records${where} is accepted (each was a regression)`,
  };
}

/**
 * The accepted records, newest first, from the newest acceptance on: verdicts other than
 * regression, acceptance records themselves, and the records an acceptance names.
 */
export function acceptedRecords(records: BaselineRecord[]): BaselineRecord[] {
  const named = acceptedPaths(records);
  const newestAcceptance = records.findIndex((record) => record.acceptance !== undefined);
  return records.filter((record, index) => {
    const path = pathOfRecord(record);
    if (newestAcceptance >= 0 && index > newestAcceptance) {
      // Older than the newest acceptance: only what that acceptance took along. A manual
      // acceptance is a copy of the record it names, which would otherwise count twice.
      const acceptance = records[newestAcceptance]!.acceptance!;
      return acceptance.reason !== 'manual' && (acceptance.records ?? []).includes(path);
    }
    return record.verdict !== 'regression' || record.acceptance !== undefined || named.has(path);
  });
}

/** Paths of records that a later acceptance record accepted along with itself. */
export function acceptedPaths(records: BaselineRecord[]): Set<string> {
  return new Set(records.flatMap((record) => record.acceptance?.records ?? []));
}

/** A record's environment with its config hash, the way the current run's is compared. */
export function fingerprintOf(record: BaselineRecord): Environment {
  return record.configHash !== undefined
    ? { ...record.environment, configHash: record.configHash }
    : record.environment;
}

function differencesFrom(record: BaselineRecord, current: Environment): string[] {
  return fingerprintDifferences(fingerprintOf(record), current).map(describeDifference);
}

export interface StreakOptions {
  /** Regressions in a row (this run included) that become the new normal. */
  acceptAfter: number;
  defaultBranch?: string;
  environment: Environment;
}

/**
 * For a regressed run on the default branch: the earlier records of the same regression
 * streak when, with this run, it has lasted `acceptAfter` runs; undefined otherwise. Only
 * push and scheduled runs on the same environment count: a pull request never writes and
 * a manual run accepts explicitly.
 */
export function persistentRegression(
  records: BaselineRecord[],
  options: StreakOptions,
): BaselineRecord[] | undefined {
  if (options.acceptAfter < 1) return undefined;
  const streak: BaselineRecord[] = [];
  for (const record of records) {
    if (options.defaultBranch !== undefined && record.branch !== options.defaultBranch) continue;
    if (record.event !== 'push' && record.event !== 'schedule') continue;
    if (record.verdict === 'error') continue;
    if (!sameFingerprint(fingerprintOf(record), options.environment)) continue;
    if (record.verdict !== 'regression' || record.acceptance !== undefined) break;
    streak.push(record);
    if (streak.length >= options.acceptAfter - 1) break;
  }
  return streak.length >= options.acceptAfter - 1 ? streak : undefined;
}
