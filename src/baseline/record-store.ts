// A baseline chosen from stored records (the git data branch, or a folder of records):
// per benchmark, the newest accepted records of the default branch measured on the same
// environment, pooled into one result. The newest few records are read up front, older
// ones only for a benchmark none of whose newest fit.

import { notComparedNotes } from '../environment/fingerprint.js';
import { errorMessage } from '../errors.js';
import type { BaselineInfo, BenchmarkResult, Environment, RecordStamp } from '../model.js';
import { recordToResult, type BaselineRecord } from './record.js';
import { pathOfRecord } from './record-paths.js';
import type { ReadRecordsResult } from './record-backend.js';
import { DRIFT_HISTORY_RECORDS, withNewestLeftOut, withOlderRecords } from './older-records.js';
import { mergeByName } from './result-files.js';
import { cacheCountsOfNewestCompiler } from './newest-compiler.js';
import {
  fingerprintOf,
  newestRecord,
  selectBaseline,
  type BaselineMatch,
  type BaselineSelection,
  type SelectOptions,
} from './select.js';
import type { Baseline, BaselineChoice, BaselineStore } from './types.js';

/** Anything that lists a gate's records, newest first (GitBranchStore does). */
export interface RecordSource {
  readRecords(
    gateKey: string,
    benchmark?: string,
    options?: { limit?: number },
  ): Promise<ReadRecordsResult>;
}

export interface RecordStoreOptions {
  gateKey: string;
  /** Records pooled into one benchmark's baseline. */
  window: number;
  /** accept-after: the regression streak needs this many records at hand (0: never). */
  acceptAfter?: number;
  defaultBranch?: string;
  match: BaselineMatch;
  /** For the reader: "perf-gate-data". */
  label: string;
  /** Link to a code commit, for the report. */
  commitUrl?: (sha: string) => string | undefined;
}

/**
 * Records read per benchmark at first. Pull requests never write, and a regression streak
 * is accepted after a few runs, so the newest 4 × window records nearly always hold the
 * window's accepted ones, and acceptAfter + 1 a whole streak and the record before it;
 * `choose` reads further back when they do not. Reading more up front costs every run time
 * (20 benchmarks × 20 records of a 10,000-record branch: about 1 s; × 50: over 2 s,
 * `npm run bench:baseline`).
 */
export function recordsToRead(window: number, acceptAfter = 0): number {
  return Math.max(20, window * 4, acceptAfter + 1);
}

/** One benchmark's records as read so far. */
interface History {
  /** Newest first. */
  records: BaselineRecord[];
  /** The per-benchmark limit of the read that gave them. */
  limit: number;
  /** Every stored record was read: the read found fewer files than its limit. */
  complete: boolean;
}

/** What the choices of one loaded baseline share. */
interface LoadedState {
  histories: Map<string, History>;
  /** Warnings already reported, so a read further back does not repeat them. */
  reported: Set<string>;
  /** The first read's warnings: a skipped file may belong to any benchmark. */
  skipped: number;
  limit: number;
  label: string;
  /** The first read stopped before the oldest records (ReadRecordsResult.stoppedEarly). */
  stoppedEarly: boolean;
}

/** An open regression as a benchmark's baseline names it (BaselineInfo.openRegression). */
export type OpenRegressionRef = Omit<
  NonNullable<BaselineInfo['openRegression']>,
  'use' | 'records'
>;

/** The baseline branch's level now, for one benchmark: the records since its open regression. */
export interface CurrentLevel {
  paths: ReadonlySet<string>;
  regression: OpenRegressionRef;
}

export class RecordBaselineStore implements BaselineStore {
  /** Per benchmark, paths of records an open regression keeps out of the baseline. */
  private heldOut = new Map<string, ReadonlySet<string>>();
  /** Per benchmark, the open regression whose records are held out, to name it. */
  private heldOutBy = new Map<string, OpenRegressionRef>();
  /** Per benchmark, the records of the branch's level now that form its baseline. */
  private currentLevel = new Map<string, CurrentLevel>();

  constructor(
    private readonly source: RecordSource,
    private readonly options: RecordStoreOptions,
  ) {}

  /**
   * Keeps these records (per benchmark, by path) out of every baseline chosen from now
   * on: the records of a regression the history found and nobody has accepted, so that
   * the rolling window never absorbs it (src/history/regressions.ts). `by` names the
   * regression in each benchmark's baseline info.
   */
  holdOut(
    paths: ReadonlyMap<string, ReadonlySet<string>>,
    by: ReadonlyMap<string, OpenRegressionRef> = new Map(),
  ): void {
    this.heldOut = new Map(paths);
    this.heldOutBy = new Map(by);
  }

  /**
   * Forms each of these benchmarks' baseline from the branch's records since its open
   * regression, whatever their verdict: a pull request (or any code built on the branch
   * as it is) carries that regression, and against the level before it would be charged
   * with it. A benchmark none of whose given records fits is chosen as usual.
   */
  compareWithCurrentLevel(levels: ReadonlyMap<string, CurrentLevel>): void {
    this.currentLevel = new Map(levels);
  }

  async load(): Promise<Baseline | undefined> {
    const limit = recordsToRead(this.options.window, this.options.acceptAfter);
    const { records, warnings, commit, stoppedEarly } = await this.source.readRecords(
      this.options.gateKey,
      undefined,
      { limit },
    );
    const byBenchmark = new Map<string, BaselineRecord[]>();
    // An A/B comparison's record measured two sides beside each other: never a baseline.
    for (const record of records.filter((r) => r.ab === undefined)) {
      const list = byBenchmark.get(record.benchmark) ?? [];
      list.push(record);
      byBenchmark.set(record.benchmark, list);
    }
    const label = commit ? `${this.options.label} @ ${commit.slice(0, 7)}` : this.options.label;
    const state: LoadedState = {
      histories: new Map(),
      reported: new Set(warnings),
      skipped: warnings.length,
      limit,
      label,
      stoppedEarly: stoppedEarly === true,
    };
    for (const [name, list] of byBenchmark) state.histories.set(name, historyOf(list, state));
    return {
      source: label,
      benchmarks: [],
      warnings,
      choose: (name, environment) => this.choose(name, environment, state),
      history: (name) => state.histories.get(name)?.records ?? [],
      names: () => [...byBenchmark.keys()],
    };
  }

  private async choose(
    name: string,
    environment: Environment,
    state: LoadedState,
  ): Promise<BaselineChoice> {
    // Not met by a read that stopped early: its records, if any, are older; read it alone.
    let history = state.histories.get(name) ?? {
      ...historyOf([], state),
      complete: !state.stoppedEarly,
    };
    const level = this.atCurrentLevel(name, history.records, environment, state.label);
    if (level) return level;
    let selection = this.select(this.kept(name, history.records), environment);
    const warnings: string[] = [];
    // None fits among the newest (a long run of regressions, records of another
    // environment): read twice as far back each time, until one fits or none is left. Only
    // for none: a few that fit already make a baseline, and every read back costs this run
    // time (all 500 records of a benchmark: about 4 s, `npm run bench:baseline`).
    while (selection.records.length === 0 && !history.complete) {
      const limit = history.limit * 2;
      let read;
      try {
        read = await this.source.readRecords(this.options.gateKey, name, { limit });
      } catch (error) {
        warnings.push(
          `the baseline of ${name} is chosen from its newest ${history.limit} stored records only: reading older ones failed (${errorMessage(error)})`,
        );
        break;
      }
      for (const warning of read.warnings) {
        if (state.reported.has(warning)) continue;
        state.reported.add(warning);
        warnings.push(warning);
      }
      history = {
        records: read.records.filter((r) => r.ab === undefined),
        limit,
        complete: read.records.length + read.warnings.length < limit,
      };
      state.histories.set(name, history);
      selection = this.select(this.kept(name, history.records), environment);
    }
    const newest = newestRecord(history.records, this.selectOptions(environment));
    const choice = this.choiceOf(selection, environment, state.label, newest);
    const by = this.heldOutBy.get(name);
    const held = this.heldOut.get(name);
    if (by && held && held.size > 0 && choice.result) {
      choice.info.openRegression = { ...by, use: 'held-out', records: held.size };
    }
    return { ...choice, ...warningsOf(warnings) };
  }

  /**
   * The baseline of the branch's level now (compareWithCurrentLevel), from the records
   * read up front: a regression is open only while it is among the newest nights, so its
   * records are there. Undefined when the benchmark has no such level or none fits.
   */
  private atCurrentLevel(
    name: string,
    records: BaselineRecord[],
    environment: Environment,
    label: string,
  ): BaselineChoice | undefined {
    const level = this.currentLevel.get(name);
    if (!level) return undefined;
    const since = records.filter((record) => level.paths.has(pathOfRecord(record)));
    const selection = selectBaseline(since, {
      ...this.selectOptions(environment),
      everyVerdict: true,
    });
    if (selection.records.length === 0) return undefined;
    const choice = this.choiceOf(selection, environment, label, undefined);
    choice.info.openRegression = { ...level.regression, use: 'since', records: since.length };
    return choice;
  }

  private kept(name: string, records: BaselineRecord[]): BaselineRecord[] {
    const held = this.heldOut.get(name);
    return held && held.size > 0 ? records.filter((r) => !held.has(pathOfRecord(r))) : records;
  }

  private select(records: BaselineRecord[], environment: Environment): BaselineSelection {
    return selectBaseline(records, this.selectOptions(environment));
  }

  private selectOptions(environment: Environment): SelectOptions {
    return {
      window: this.options.window,
      history: DRIFT_HISTORY_RECORDS,
      ...(this.options.defaultBranch ? { defaultBranch: this.options.defaultBranch } : {}),
      environment,
      match: this.options.match,
    };
  }

  private choiceOf(
    selection: BaselineSelection,
    environment: Environment,
    label: string,
    newestStored: BaselineRecord | undefined,
  ): BaselineChoice {
    const newest = selection.records[0];
    // What differs, then what one side does not know and so was not compared.
    const notes = [
      ...selection.notes,
      ...(newest ? notComparedNotes(fingerprintOf(newest), environment) : []),
    ];
    const info: BaselineInfo = {
      source: label,
      records: selection.records.length,
      ...(notes.length > 0 ? { environmentNotes: notes } : {}),
    };
    if (!newest) return { info };
    const oldest = selection.records.at(-1)!;
    info.span = { oldest: stampOf(oldest), newest: stampOf(newest) };
    info.commit = newest.commit;
    const url = this.options.commitUrl?.(newest.commit);
    if (url) info.commitUrl = url;
    const [pooled] = mergeByName(selection.records.map(recordToResult));
    if (!pooled) return { info };
    const result = withNewestAnswers(
      cacheCountsOfNewestCompiler(pooled, selection.records),
      selection.records,
    );
    // The older records teach the day-to-day drift only (older-records.ts).
    const withOlder = withOlderRecords(
      result,
      (selection.older ?? []).map((record) => record.result),
    );
    const leftOut = newestStored && newestStored !== newest ? newestStored : undefined;
    return { result: withNewestLeftOut(withOlder, leftOut?.result), info };
  }
}

/**
 * The agreement check's reference: the answers of the baseline's newest record that kept
 * some, with the run that gave them (the record's own, unless it kept an older run's).
 */
function withNewestAnswers(result: BenchmarkResult, records: BaselineRecord[]): BenchmarkResult {
  const { answers: _pooled, ...rest } = result;
  void _pooled;
  const record = records.find((r) => r.result.answers !== undefined);
  if (!record) return rest;
  const answers = record.result.answers!;
  const from = answers.from ?? { commit: record.commit, createdAt: record.createdAt };
  return { ...rest, answers: { ...answers, from } };
}

/**
 * A benchmark's records from the first, gate-wide read. Files skipped there may be this
 * benchmark's, so only a count short of the limit by more than those says "all read".
 */
function historyOf(records: BaselineRecord[], state: LoadedState): History {
  return {
    records,
    limit: state.limit,
    complete: records.length + state.skipped < state.limit,
  };
}

function stampOf(record: BaselineRecord): RecordStamp {
  return { commit: record.commit, createdAt: record.createdAt };
}

function warningsOf(warnings: string[]): { warnings?: string[] } {
  return warnings.length > 0 ? { warnings } : {};
}
