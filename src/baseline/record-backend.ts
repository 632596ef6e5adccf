// What every record store gives the gate, the commands and the dashboard, whatever holds
// the records: the git data branch (GitBranchStore), an S3 bucket, a PostgreSQL database.
// A record is named by its path, `<gate-key>/<benchmark-slug>/<file>.json`
// (record-paths.ts), in every store: the same record keeps its name when a history is
// moved from one store to another.

import type { BaselineRecord } from './record.js';

export interface ReadRecordsResult {
  /** Newest first. */
  records: BaselineRecord[];
  /** One line per skipped record, naming it and what is wrong. */
  warnings: string[];
  /** The version read (a data branch commit), where the store has one. */
  commit?: string;
  /**
   * A gate-wide read with a limit that stopped before the gate's oldest records (S3: once
   * every benchmark it met had its `limit`): a benchmark not among `records` may still
   * have older ones, and is read alone when it is wanted.
   */
  stoppedEarly?: boolean;
}

export interface StoredRecord {
  path: string;
  record: BaselineRecord;
}

export interface ReadStoredRecordsResult {
  /** Oldest first. */
  records: StoredRecord[];
  /** One line per skipped record, naming it and what is wrong. */
  warnings: string[];
  /** The version read (a data branch commit), where the store has one. */
  commit?: string;
}

export interface AppendOptions {
  /** After adding, keep the newest this many records of each touched benchmark. */
  keep?: number;
}

export interface AppendResult {
  /** Paths of the records added (a record already stored byte for byte is not added again). */
  added: string[];
  /** Paths of the records pruned by this write. */
  pruned: string[];
  /** Tries the write took (lost races and transient failures retried). */
  attempts: number;
  /** The version written (a data branch commit), where the store has one. */
  commit?: string;
}

export interface RecordBackend {
  /** For messages: "branch perf-gate-data of …", "s3://bucket/prefix", "PostgreSQL …". */
  readonly description: string;
  /**
   * The records of one gate (all benchmarks, or one), newest first; with a limit, only the
   * newest `limit` records of each benchmark. A record that does not parse, or that holds
   * another gate or benchmark than its path says, is skipped with a warning.
   */
  readRecords(
    gateKey: string,
    benchmark?: string,
    options?: { limit?: number },
  ): Promise<ReadRecordsResult>;
  /**
   * Every stored record of one gate (of one benchmark of it, when given), or of every
   * gate, with its path, oldest first and without per-request samples: for the history,
   * one series' history, and the dashboard.
   */
  readStoredRecords(gateKey?: string, benchmark?: string): Promise<ReadStoredRecordsResult>;
  /**
   * Stores the records, all or none; a record already stored byte for byte is not stored
   * again, and a record never overwrites another. Retries lost races itself.
   */
  appendRecords(records: BaselineRecord[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * After a stored run: work that keeps later reads fast (S3: compacts the gate's finished
   * months under a lease). Returns a line for the log. The records are stored whether or
   * not it succeeds.
   */
  tidy?(gateKey: string): Promise<string>;
  /** Releases connections; the store is not used after. */
  close?(): Promise<void>;
}
