// What the database role needs, as docs/stores.md says: CREATE on the schema for the first
// use (the migration), then only SELECT, INSERT and DELETE on the records.
import { describe, expect, it } from 'vitest';
import { at, sampleRecord } from '../git/support.js';
import { usePostgres } from './support.js';

const pg = usePostgres();

describe('PostgresRecordStore privileges', () => {
  it('works for a role with SELECT, INSERT and DELETE once the schema is migrated', async () => {
    const url = await pg.cluster().createDatabase();
    const database = pg.databaseOf(url);
    await pg.store(url).readRecords('default'); // migrated by the owner
    await pg.cluster().query(database, "CREATE ROLE gate_writer LOGIN PASSWORD 'writer-pw'");
    await pg.cluster().query(database, 'REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await pg.cluster().query(database, 'GRANT SELECT ON perf_gate_migrations TO gate_writer');
    await pg
      .cluster()
      .query(database, 'GRANT SELECT, INSERT, DELETE ON perf_gate_records TO gate_writer');
    const writer = new URL(url);
    writer.username = 'gate_writer';
    writer.password = 'writer-pw';
    const store = pg.store(writer.toString());
    const records = [0, 1, 2].map((i) => sampleRecord('chat', i, at(i)));
    await store.appendRecords(records);
    const written = await store.appendRecords([sampleRecord('chat', 3, at(3))], { keep: 2 });
    expect(written.pruned).toHaveLength(2);
    expect((await store.readRecords('default')).records).toHaveLength(2);
  });

  it("reads for a pull request's role with SELECT only, and refuses its write whole", async () => {
    const url = await pg.cluster().createDatabase();
    const database = pg.databaseOf(url);
    const records = [0, 1, 2].map((i) => sampleRecord('chat', i, at(i)));
    await pg.store(url).appendRecords(records); // migrated and written by the owner
    await pg.cluster().query(database, "CREATE ROLE gate_pr LOGIN PASSWORD 'pr-pw'");
    await pg.cluster().query(database, 'REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await pg
      .cluster()
      .query(database, 'GRANT SELECT ON perf_gate_migrations, perf_gate_records TO gate_pr');
    const reader = new URL(url);
    reader.username = 'gate_pr';
    reader.password = 'pr-pw';
    const store = pg.store(reader.toString());
    expect((await store.readRecords('default')).records).toEqual([...records].reverse());
    expect((await store.readStoredRecords('default', 'chat')).records).toHaveLength(3);
    await expect(store.appendRecords([sampleRecord('chat', 3, at(3))])).rejects.toThrow(
      new RegExp(
        `database '${database}' .* as gate_pr: permission denied for table perf_gate_records`,
      ),
    );
    expect((await pg.store(url).readRecords('default')).records).toHaveLength(3);
  });

  it('names what is missing when a new database cannot be migrated by the role', async () => {
    const url = await pg.cluster().createDatabase();
    const database = pg.databaseOf(url);
    await pg.cluster().query(database, "CREATE ROLE gate_reader LOGIN PASSWORD 'reader-pw'");
    await pg.cluster().query(database, 'REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    const reader = new URL(url);
    reader.username = 'gate_reader';
    reader.password = 'reader-pw';
    await expect(pg.store(reader.toString()).readRecords('default')).rejects.toThrow(
      new RegExp(
        `database '${database}' .* as gate_reader: permission denied for schema public; .*CREATE on the schema the first time`,
      ),
    );
  });
});
