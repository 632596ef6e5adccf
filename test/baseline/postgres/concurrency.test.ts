// Many jobs on one database at once: their first use migrates it once, their writes lose
// nothing and duplicate nothing, and a schema newer than this gate is refused.
import { describe, expect, it } from 'vitest';
import type { BaselineRecord } from '../../../src/baseline/record.js';
import { SCHEMA_VERSION } from '../../../src/baseline/postgres/migrations.js';
import { at, sampleRecord } from '../git/support.js';
import { usePostgres } from './support.js';

const pg = usePostgres();

const WRITERS = 32;

/** Writer `i`'s night: five records of its own, one every writer holds, and one that clashes by name. */
function nightOf(i: number): BaselineRecord[] {
  const own = [0, 1, 2, 3, 4].map((j) =>
    sampleRecord(`bench-${j}`, 100 * i + j, at(i), { runId: `run-${i}` }),
  );
  const shared = sampleRecord('shared', 7, at(0), { runId: 'shared' });
  // Same gate, benchmark, time, commit and run id in every writer, other bytes: eight
  // different records that all want one name.
  const clash = sampleRecord('clash', 5000 + (i % 8), at(0), {
    runId: 'clash',
    commit: 'c'.repeat(40),
  });
  return [...own, shared, clash];
}

describe('PostgresRecordStore with many writers', () => {
  it(`${WRITERS} stores writing at once to a new database lose nothing and duplicate nothing`, async () => {
    const url = await pg.cluster().createDatabase();
    const stores = Array.from({ length: WRITERS }, () => pg.store(url, { pool: { max: 1 } }));
    const results = await Promise.all(stores.map((store, i) => store.appendRecords(nightOf(i))));

    const expected = new Map<string, BaselineRecord>();
    for (let i = 0; i < WRITERS; i += 1) {
      for (const record of nightOf(i)) expected.set(JSON.stringify(record), record);
    }
    expect(expected.size).toBe(WRITERS * 5 + 1 + 8);
    const added = results.flatMap((result) => result.added);
    expect(added).toHaveLength(expected.size);
    expect(new Set(added).size).toBe(added.length);

    const read = await pg.store(url).readStoredRecords();
    expect(read.warnings).toEqual([]);
    expect(read.records.map((r) => r.path).sort()).toEqual([...added].sort());
    const full = await pg.store(url).readRecords('default');
    const stored = full.records.map((record) => JSON.stringify(record)).sort();
    expect(stored).toEqual([...expected.keys()].sort());
    const clashes = read.records.filter((r) => r.record.benchmark === 'clash').map((r) => r.path);
    expect(clashes.map((path) => /(-\d+)?\.json$/.exec(path)![0]).sort()).toEqual(
      ['.json', '-2.json', '-3.json', '-4.json', '-5.json', '-6.json', '-7.json', '-8.json'].sort(),
    );
  });

  it('waits its turn when the database takes fewer connections than there are writers', async () => {
    const url = await pg.cluster().createDatabase();
    const database = pg.databaseOf(url);
    await pg.store(url).readRecords('default'); // migrated
    // "too many connections for database" (53300) for all but two writers at a time; a
    // superuser is exempt from the limit, so the writers log in as a role of their own.
    for (const statement of [
      `ALTER DATABASE ${database} CONNECTION LIMIT 2`,
      "CREATE ROLE limited_writer LOGIN PASSWORD 'limited-pw'",
    ]) {
      await pg.cluster().query('postgres', statement);
    }
    await pg
      .cluster()
      .query(
        database,
        'GRANT SELECT, INSERT, DELETE ON perf_gate_records, perf_gate_migrations TO limited_writer',
      );
    const writer = new URL(url);
    writer.username = 'limited_writer';
    writer.password = 'limited-pw';
    const stores = Array.from({ length: 8 }, () =>
      pg.store(writer.toString(), { pool: { max: 1 } }),
    );
    // Each closes its store once written, as a job ends.
    const results = await Promise.all(
      stores.map((store, i) => store.appendRecords(nightOf(i)).finally(() => store.close())),
    );
    expect(results.some((result) => result.attempts > 1)).toBe(true);
    await pg.cluster().query('postgres', `ALTER DATABASE ${database} CONNECTION LIMIT -1`);
    const read = await pg.store(url).readStoredRecords();
    expect(read.records).toHaveLength(8 * 5 + 1 + 8);
  });

  it('migrates once when many stores use a new database at the same moment', async () => {
    const url = await pg.cluster().createDatabase();
    const stores = Array.from({ length: 16 }, () => pg.store(url, { pool: { max: 1 } }));
    const reads = await Promise.all(stores.map((store) => store.readRecords('default')));
    expect(reads.every((read) => read.records.length === 0)).toBe(true);
    const applied = await pg
      .cluster()
      .query(
        pg.databaseOf(url),
        'SELECT version, count(*)::int AS n FROM perf_gate_migrations GROUP BY version',
      );
    expect(applied.rows).toEqual([{ version: SCHEMA_VERSION, n: 1 }]);
  });

  it('refuses a database whose schema is newer than this gate knows, and writes nothing', async () => {
    const url = await pg.cluster().createDatabase();
    await pg.store(url).readRecords('default');
    const database = pg.databaseOf(url);
    await pg
      .cluster()
      .query(database, 'INSERT INTO perf_gate_migrations (version) VALUES ($1)', [
        SCHEMA_VERSION + 1,
      ]);
    const store = pg.store(url);
    const refusal = new RegExp(
      `database '${database}' on 127\\.0\\.0\\.1:\\d+ as postgres: its schema is at version ${SCHEMA_VERSION + 1}, newer than this neuron-perf-gate knows \\(${SCHEMA_VERSION}\\).*Upgrade the action`,
    );
    await expect(store.readRecords('default')).rejects.toThrow(refusal);
    await expect(store.appendRecords([sampleRecord('chat', 1, at(1))])).rejects.toThrow(refusal);
    const rows = await pg
      .cluster()
      .query(database, 'SELECT count(*)::int AS n FROM perf_gate_records');
    expect(rows.rows[0]).toEqual({ n: 0 });
  });
});
