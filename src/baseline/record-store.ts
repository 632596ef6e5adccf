// A baseline chosen from stored records (the git data branch, or a folder of records):
// per benchmark, the newest accepted records of the default branch measured on the same
// environment, pooled into one result.

import type { BaselineInfo, Environment } from '../model.js';
import { recordToResult, type BaselineRecord } from './record.js';
import { mergeByName } from './result-files.js';
import { selectBaseline, type BaselineMatch } from './select.js';
import type { Baseline, BaselineChoice, BaselineStore } from './types.js';

/** Anything that lists a gate's records, newest first (GitBranchStore does). */
export interface RecordSource {
  readRecords(
    gateKey: string,
    benchmark?: string,
    options?: { limit?: number },
  ): Promise<{ records: BaselineRecord[]; warnings: string[]; commit?: string }>;
}

export interface RecordStoreOptions {
  gateKey: string;
  /** Records pooled into one benchmark's baseline. */
  window: number;
  defaultBranch?: string;
  match: BaselineMatch;
  /** For the reader: "perf-gate-data". */
  label: string;
  /** Link to a code commit, for the report. */
  commitUrl?: (sha: string) => string | undefined;
}

/**
 * Records read per benchmark. Pull requests never write, and a regression streak is
 * accepted after a few runs, so the newest 4 × window records nearly always hold the
 * window's accepted ones; reading more costs every run time (20 benchmarks × 20 records
 * of a 10,000-record branch: about 1 s; × 50: over 2 s, `npm run bench:baseline`).
 */
export function recordsToRead(window: number): number {
  return Math.max(20, window * 4);
}

export class RecordBaselineStore implements BaselineStore {
  constructor(
    private readonly source: RecordSource,
    private readonly options: RecordStoreOptions,
  ) {}

  async load(): Promise<Baseline | undefined> {
    const { records, warnings, commit } = await this.source.readRecords(
      this.options.gateKey,
      undefined,
      { limit: recordsToRead(this.options.window) },
    );
    const byBenchmark = new Map<string, BaselineRecord[]>();
    for (const record of records) {
      const list = byBenchmark.get(record.benchmark) ?? [];
      list.push(record);
      byBenchmark.set(record.benchmark, list);
    }
    const label = commit ? `${this.options.label} @ ${commit.slice(0, 7)}` : this.options.label;
    return {
      source: label,
      benchmarks: [],
      warnings,
      choose: (name, environment) => this.choose(byBenchmark.get(name) ?? [], environment, label),
      history: (name) => byBenchmark.get(name) ?? [],
    };
  }

  private choose(
    records: BaselineRecord[],
    environment: Environment,
    label: string,
  ): BaselineChoice {
    const selection = selectBaseline(records, {
      window: this.options.window,
      ...(this.options.defaultBranch ? { defaultBranch: this.options.defaultBranch } : {}),
      environment,
      match: this.options.match,
    });
    const newest = selection.records[0];
    const info: BaselineInfo = {
      source: label,
      records: selection.records.length,
      ...(selection.notes.length > 0 ? { environmentNotes: selection.notes } : {}),
    };
    if (!newest) return { info };
    info.commit = newest.commit;
    const url = this.options.commitUrl?.(newest.commit);
    if (url) info.commitUrl = url;
    const [result] = mergeByName(selection.records.map(recordToResult));
    return result ? { result, info } : { info };
  }
}
