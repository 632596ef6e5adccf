// What a fleet's network and database do to a write: a connection ended mid-transaction,
// a server restarted, one that cannot be reached or never answers, a wrong password. A
// write is retried whole or fails naming the store; nothing is lost, nothing half-written,
// and the password never appears.
import { randomBytes } from 'node:crypto';
import pgDriver from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresRecordStore } from '../../../src/baseline/postgres/postgres-record-store.js';
import { startHangingServer } from '../../support/hanging-server.js';
import { until } from '../../support/poll.js';
import { freePort } from '../../support/ports.js';
import { at, sampleRecord } from '../git/support.js';
import { usePostgres } from './support.js';

const pg = usePostgres();

/** How far past its deadline a failing call may end on a loaded 2-core host. */
const SLACK_MS = 15_000;

/**
 * A second session holding, uncommitted, a row at `path`: a write of that path waits for
 * it, mid-transaction, until it is rolled back.
 */
async function holdPath(url: string, path: string): Promise<{ release(): Promise<void> }> {
  const client = new pgDriver.Client({ connectionString: url });
  client.on('error', () => undefined); // the server stopping in a test's clean-up
  await client.connect();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO perf_gate_records (path, gate_key, benchmark, created_at, commit_sha, run_id, sha256, body, summary)
     VALUES ($1, 'x', 'x', now(), 'x', 'x', 'blocker', '{}', '{}')`,
    [path],
  );
  return {
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

/** The store's backend while it waits on a lock; undefined while it does not. */
async function waitingBackend(database: string): Promise<number | undefined> {
  const rows = await pg
    .cluster()
    .query<{ pid: number }>(
      database,
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'neuron-perf-gate' AND wait_event_type = 'Lock'",
    );
  return rows.rows[0]?.pid;
}

async function countRows(database: string): Promise<number> {
  const rows = await pg
    .cluster()
    .query<{ n: number }>(database, 'SELECT count(*)::int AS n FROM perf_gate_records');
  return rows.rows[0]!.n;
}

describe('PostgresRecordStore when the connection fails', () => {
  it('retries a transaction whose connection was ended mid-way: nothing lost, nothing twice', async () => {
    const url = await pg.cluster().createDatabase();
    const database = pg.databaseOf(url);
    const store = pg.store(url);
    await store.readRecords('default'); // migrated
    const records = [0, 1, 2, 3, 4, 5].map((i) => sampleRecord('chat', i, at(i)));
    // Rows go in path order: the fourth waits, the first three are in the transaction.
    const blocker = await holdPath(url, 'default/chat/20260101T000003Z-0000000-1003.json');
    const writing = store.appendRecords(records);
    let pid: number | undefined;
    expect(await until(async () => (pid = await waitingBackend(database)) !== undefined)).toBe(
      true,
    );
    expect(await countRows(database)).toBe(0); // uncommitted: nothing of the write shows
    await pg.cluster().query('postgres', 'SELECT pg_terminate_backend($1)', [pid]);
    await blocker.release();

    const written = await writing;
    expect(written.attempts).toBeGreaterThanOrEqual(2);
    expect(written.added).toHaveLength(records.length);
    const read = await store.readRecords('default', 'chat');
    expect(read.records).toEqual([...records].reverse());
    expect(await countRows(database)).toBe(records.length);
  });

  it('writes nothing when the transaction cannot finish before the deadline', async () => {
    const url = await pg.cluster().createDatabase();
    const database = pg.databaseOf(url);
    await pg.store(url).readRecords('default');
    const blocker = await holdPath(url, 'default/chat/20260101T000003Z-0000000-1003.json');
    try {
      const store = pg.store(url, { deadlineMs: 1_500 });
      const records = [0, 1, 2, 3, 4].map((i) => sampleRecord('chat', i, at(i)));
      await expect(store.appendRecords(records)).rejects.toThrow(
        /could not store 5 record\(s\) in the PostgreSQL database .*nothing of this call was half-written/,
      );
    } finally {
      await blocker.release();
    }
    expect(await countRows(database)).toBe(0);
  });

  it('rides out a server restart: the write fails while it is down and succeeds once it is back', async () => {
    const url = await pg.cluster().createDatabase();
    const store = pg.store(url);
    await store.readRecords('default'); // a pooled connection the restart will end
    pg.cluster().stop();
    const writing = store.appendRecords([sampleRecord('chat', 1, at(1))]);
    // pg_ctl start takes far longer than the first connection attempt's refusal.
    pg.cluster().start();
    const written = await writing;
    expect(written.attempts).toBeGreaterThanOrEqual(2);
    expect((await store.readRecords('default')).records).toHaveLength(1);
  });

  it('gives up on a server nobody listens for at the deadline, naming host and database, not the password', async () => {
    const port = await freePort();
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const store = new PostgresRecordStore({
      connectionString: `postgres://gate:${password}@127.0.0.1:${port}/nightly`,
      deadlineMs: 1_500,
    });
    try {
      const started = performance.now();
      const failure = await store
        .appendRecords([sampleRecord('chat', 1, at(1))])
        .catch((e: Error) => e);
      expect(performance.now() - started).toBeLessThan(1_500 + SLACK_MS);
      expect(failure).toBeInstanceOf(Error);
      const message = (failure as Error).message;
      expect(message).toMatch(
        new RegExp(
          `PostgreSQL database 'nightly' on 127\\.0\\.0\\.1:${port} as gate: .*ECONNREFUSED.*Check that it runs`,
        ),
      );
      expect(message).toMatch(/after [2-9]\d* attempt\(s\)|after \d{2,} attempt\(s\)/);
      expect(message).not.toContain(password);
    } finally {
      await store.close();
    }
  });

  it('gives up on a server that accepts and never answers at the deadline', async () => {
    const hanging = await startHangingServer();
    const { port } = new URL(hanging.url);
    const store = new PostgresRecordStore({
      connectionString: `postgres://gate:secret-pw@127.0.0.1:${port}/nightly`,
      deadlineMs: 1_500,
    });
    try {
      const started = performance.now();
      const failure = await store.readRecords('default').catch((e: Error) => e);
      expect(performance.now() - started).toBeLessThan(1_500 + SLACK_MS);
      expect((failure as Error).message).toMatch(
        new RegExp(
          `could not read records from the PostgreSQL database 'nightly' on 127\\.0\\.0\\.1:${port}`,
        ),
      );
      expect((failure as Error).message).not.toContain('secret-pw');
    } finally {
      await store.close();
      await hanging.close();
    }
  });

  it('fails at once on a wrong password, naming the user and database but not the password', async () => {
    const url = await pg.cluster().createDatabase();
    const wrong = new URL(url);
    wrong.password = 'not-the-password';
    const store = pg.store(wrong.toString());
    const failure = await store.readRecords('default').catch((e: Error) => e);
    const message = (failure as Error).message;
    expect(message).toMatch(/password authentication failed for user "postgres"/);
    expect(message).toContain(`database '${pg.databaseOf(url)}'`);
    expect(message).toMatch(/check the connection string secret/);
    expect(message).not.toContain('not-the-password');
    expect(message).not.toContain(pg.cluster().password);
  });

  it('refuses a connection string that is not a URL without repeating it', () => {
    expect(
      () => new PostgresRecordStore({ connectionString: 'host=db password=hunter22 dbname=x' }),
    ).toThrow(/not a postgres:\/\/ URL/);
    expect(
      () => new PostgresRecordStore({ connectionString: 'host=db password=hunter22' }),
    ).not.toThrow(/hunter22/);
  });

  it.each([
    ['postgres://gate:hunter22@/perf', /is not a postgres:\/\/ URL/],
    ['postgres://', /names no host/],
    ['postgres://gate:hunter%ZZ22@db.internal/perf', /not valid percent-encoding \(write % as %25/],
  ])('refuses %s before connecting, saying what is wrong and not the password', (url, why) => {
    const open = () => new PostgresRecordStore({ connectionString: url });
    expect(open).toThrow(why);
    expect(open).toThrow(/write it as postgres:\/\/user:password@host:5432\/database/);
    expect(open).not.toThrow(/hunter/);
  });
});
