// What the database role needs, as docs/stores.md says: CREATE on the schema for the first
// use (the migration), then only SELECT, INSERT and DELETE on the records; a pull
// request's role, SELECT only.
import { describe, expect, it } from 'vitest';
import { at, sampleRecord } from '../git/support.js';
import { usePostgres } from './support.js';

const pg = usePostgres();

/**
 * A login role on the database at `url` (whose schema no one but the owner may create in)
 * with the `grants` given; returns its connection string.
 */
async function roleWith(url: string, role: string, grants: string[]): Promise<string> {
  const database = pg.databaseOf(url);
  const password = `${role}-pw`;
  await pg.cluster().query(database, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
  await pg.cluster().query(database, 'REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  for (const grant of grants) await pg.cluster().query(database, `${grant} TO ${role}`);
  return Object.assign(new URL(url), { username: role, password }).toString();
}

describe('PostgresRecordStore privileges', () => {
  it('works for a role with SELECT, INSERT and DELETE once the schema is migrated', async () => {
    const url = await pg.cluster().createDatabase();
    await pg.store(url).readRecords('default'); // migrated by the owner
    const writer = await roleWith(url, 'gate_writer', [
      'GRANT SELECT ON perf_gate_migrations',
      'GRANT SELECT, INSERT, DELETE ON perf_gate_records',
    ]);
    const store = pg.store(writer);
    const records = [0, 1, 2].map((i) => sampleRecord('chat', i, at(i)));
    await store.appendRecords(records);
    const written = await store.appendRecords([sampleRecord('chat', 3, at(3))], { keep: 2 });
    expect(written.pruned).toHaveLength(2);
    expect((await store.readRecords('default')).records).toHaveLength(2);
  });

  it("reads for a pull request's role with SELECT only, and refuses its write whole", async () => {
    const url = await pg.cluster().createDatabase();
    const records = [0, 1, 2].map((i) => sampleRecord('chat', i, at(i)));
    await pg.store(url).appendRecords(records); // migrated and written by the owner
    const reader = await roleWith(url, 'gate_pr', [
      'GRANT SELECT ON perf_gate_migrations, perf_gate_records',
    ]);
    const store = pg.store(reader);
    expect((await store.readRecords('default')).records).toEqual([...records].reverse());
    expect((await store.readStoredRecords('default', 'chat')).records).toHaveLength(3);
    await expect(store.appendRecords([sampleRecord('chat', 3, at(3))])).rejects.toThrow(
      new RegExp(
        `database '${pg.databaseOf(url)}' .* as gate_pr: permission denied for table perf_gate_records`,
      ),
    );
    expect((await pg.store(url).readRecords('default')).records).toHaveLength(3);
  });

  it('names what is missing when a new database cannot be migrated by the role', async () => {
    const url = await pg.cluster().createDatabase();
    const reader = await roleWith(url, 'gate_reader', []);
    await expect(pg.store(reader).readRecords('default')).rejects.toThrow(
      new RegExp(
        `database '${pg.databaseOf(url)}' .* as gate_reader: permission denied for schema public; .*CREATE on the schema the first time`,
      ),
    );
  });
});
