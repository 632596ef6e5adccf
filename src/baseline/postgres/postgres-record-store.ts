// Baseline records in a PostgreSQL database, for a fleet that outgrows the data branch or
// wants to query its results: one row per record in perf_gate_records, named by the same
// path as on the data branch (record-paths.ts), the schema migrated forward by the gate
// itself on first use (migrations.ts). Every call is one transaction, retried whole, with
// a jittered pause, when the connection drops, until its deadline.

import pg from 'pg';
import type { BaselineRecord } from '../record.js';
import type {
  AppendOptions,
  AppendResult,
  ReadRecordsResult,
  ReadStoredRecordsResult,
  RecordBackend,
  StoredRecord,
} from '../record-backend.js';
import { appendRows } from './append.js';
import { migrate, NewerSchemaError } from './migrations.js';
import { selectRecords, selectSummaries } from './read.js';
import { recordOfRow, rowOfRecord, type StoredRow } from './record-rows.js';
import { DEFAULT_DEADLINE_MS, RetriesExhausted, withRetries } from './retry.js';
import { connectWithin, Session } from './session.js';
import { storeTarget, type StoreTarget } from './store-target.js';

/** How long a connection stays open unused: long enough for a few calls in a row. */
const IDLE_MS = 1_000;

/** One connection attempt: a server that takes longer is tried again. */
const CONNECT_TIMEOUT_MS = 30_000;

export interface PostgresRecordStoreOptions {
  /** postgres://user:password@host:5432/database, from a secret. */
  connectionString: string;
  /**
   * How long one call retries dropped connections and lost races before it fails
   * (default 120 s, as the data branch's push retries).
   */
  deadlineMs?: number;
  /** The connection pool: at most `max` connections (default 2: a gate does little at once). */
  pool?: { max?: number };
}

export class PostgresRecordStore implements RecordBackend {
  private readonly pool: pg.Pool;
  private readonly target: StoreTarget;
  private readonly deadlineMs: number;
  /** Set once the schema is known to be current: later calls skip the check. */
  private migrated = false;
  private closing?: Promise<void>;

  constructor(options: PostgresRecordStoreOptions) {
    this.target = storeTarget(options.connectionString);
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    if (!(this.deadlineMs > 0)) {
      throw new RangeError(
        `PostgresRecordStore: deadlineMs must be above 0, got ${this.deadlineMs}`,
      );
    }
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.pool?.max ?? 2,
      application_name: 'neuron-perf-gate',
      // An attempt gives up sooner (connectWithin); this ends the abandoned connect too,
      // so close() does not wait on a server that accepts and never answers.
      connectionTimeoutMillis: Math.min(this.deadlineMs, CONNECT_TIMEOUT_MS),
      keepAlive: true,
      // A gate's calls are minutes apart (the baseline before the benchmarks, the write
      // after): an idle connection would only hold one of the server's slots that hundreds
      // of other jobs are waiting for.
      idleTimeoutMillis: IDLE_MS,
      allowExitOnIdle: true,
    });
    // A pooled connection the server ends while idle (a restart, a failover) is dropped
    // from the pool and reconnected when next needed: not a crash of the gate.
    this.pool.on('error', () => undefined);
  }

  get description(): string {
    return this.target.description;
  }

  async readRecords(
    gateKey: string,
    benchmark?: string,
    options: { limit?: number } = {},
  ): Promise<ReadRecordsResult> {
    const { limit } = options;
    if (limit !== undefined && !(limit >= 0)) {
      throw new RangeError(`readRecords: limit must be ≥ 0, got ${limit}`);
    }
    const rows = await this.run('read records from', (session) =>
      selectRecords(session, gateKey, benchmark, limit),
    );
    const warnings: string[] = [];
    const stored = parseRows(rows.value, warnings);
    // The data branch's order exactly (its tie-break is localeCompare, not byte order).
    stored.sort(
      (a, b) =>
        b.record.createdAt.localeCompare(a.record.createdAt) || b.path.localeCompare(a.path),
    );
    return { records: stored.map((s) => s.record), warnings };
  }

  async readStoredRecords(gateKey?: string): Promise<ReadStoredRecordsResult> {
    const rows = await this.run('read the history from', (session) =>
      selectSummaries(session, gateKey),
    );
    const warnings: string[] = [];
    const stored = parseRows(rows.value, warnings);
    stored.sort(
      (a, b) =>
        a.record.createdAt.localeCompare(b.record.createdAt) || a.path.localeCompare(b.path),
    );
    return { records: stored, warnings };
  }

  async appendRecords(
    records: BaselineRecord[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const { keep } = options;
    if (keep !== undefined && (!Number.isInteger(keep) || keep < 1)) {
      throw new RangeError(`appendRecords: keep must be a whole number ≥ 1, got ${keep}`);
    }
    // Without `keep` nothing is pruned (the data branch prunes to 500 then: a branch slows
    // with its size, a table read by index does not). What is stored must read back:
    // checked before anything is written.
    const rows = records.map(rowOfRecord);
    const written = await this.run(
      `store ${records.length} record(s) in`,
      (session) => appendRows(session, rows, keep),
      { writes: true },
    );
    return { ...written.value, attempts: written.attempts };
  }

  /** Ends the pool's connections; a second call does nothing. */
  async close(): Promise<void> {
    this.closing ??= this.pool.end();
    await this.closing;
  }

  /**
   * `work`, retried whole while the failure is a dropped connection or a lost race and the
   * deadline allows; a failure that stays names the store and what to check.
   */
  private async run<T>(
    what: string,
    work: (session: Session) => Promise<T>,
    { writes = false } = {},
  ): Promise<{ value: T; attempts: number }> {
    try {
      return await withRetries((_attempt, endsAt) => this.attempt(endsAt, work), {
        deadlineMs: this.deadlineMs,
      });
    } catch (error) {
      throw this.failure(what, error, writes);
    }
  }

  /** One try: a connection of its own, the schema brought up to date, then `work`. */
  private async attempt<T>(endsAt: number, work: (session: Session) => Promise<T>): Promise<T> {
    const client = await connectWithin(this.pool, Math.max(1, endsAt - performance.now()));
    try {
      const session = new Session(client, endsAt);
      if (!this.migrated) {
        await migrate(session);
        this.migrated = true;
      }
      // Reads too: one transaction per call is what a transaction pooler expects.
      await session.begin();
      const value = await work(session);
      await session.query('COMMIT');
      client.release();
      return value;
    } catch (error) {
      // Never back into the pool: it may be mid-transaction or broken.
      client.release(true);
      throw error;
    }
  }

  /** The error a caller sees: the store, what failed, what to check; never the password. */
  private failure(what: string, error: unknown, writes: boolean): Error {
    if (!(error instanceof RetriesExhausted)) return error as Error;
    const { last } = error;
    const took = `after ${error.attempts} attempt(s) in ${Math.round(error.elapsedMs / 1000)} s`;
    const advice =
      last instanceof NewerSchemaError
        ? ''
        : error.retriable
          ? `; the server could not be reached or kept dropping the connection ${took}. Check that it runs and that this runner can reach it (host, port, firewall, security group)`
          : '; check the connection string secret (user, password, database) and that the role may use the tables (SELECT, INSERT, DELETE; CREATE on the schema the first time)';
    const nothingHalf = writes
      ? ' Each try is one transaction: nothing of this call was half-written.'
      : '';
    return new Error(
      `could not ${what} the ${this.target.description}: ${this.target.redact(last.message)}${advice}.${nothingHalf}`,
      { cause: last },
    );
  }
}

function parseRows(rows: readonly StoredRow[], warnings: string[]): StoredRecord[] {
  const stored: StoredRecord[] = [];
  for (const row of rows) {
    const record = recordOfRow(row, warnings);
    if (record) stored.push({ path: row.path, record });
  }
  return stored;
}
