// The store's schema, as ordered forward migrations the gate runs itself on first use:
// never by hand, never backwards. Each one is applied once, in one transaction under an
// advisory lock, so hundreds of jobs starting at once on a new database migrate it once.

import type { Session } from './session.js';

export interface Migration {
  version: number;
  sql: string;
}

/** Append only: a released migration is never edited, a change is a new version. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    // body: the record as its file would hold it, byte for byte (sha256 of it), so a
    // history moves between stores unchanged; summary: the record without per-request
    // samples, for the history and for queries of one's own. Byte order ("C") for names,
    // whatever the database's collation: the same order on every server.
    sql: `
      CREATE TABLE perf_gate_records (
        path text COLLATE "C" PRIMARY KEY,
        gate_key text COLLATE "C" NOT NULL,
        benchmark text COLLATE "C" NOT NULL,
        created_at timestamptz NOT NULL,
        commit_sha text NOT NULL,
        run_id text NOT NULL,
        sha256 text NOT NULL UNIQUE,
        body text NOT NULL,
        summary jsonb NOT NULL,
        stored_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX perf_gate_records_series
        ON perf_gate_records (gate_key, benchmark, created_at DESC, path DESC);
    `,
  },
];

export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** pg_advisory_xact_lock's key: any fixed number other tools are unlikely to take. */
const MIGRATION_LOCK = 0x70_65_72_66_67_61_74_65n; // "perfgate"

/**
 * Brings the database to SCHEMA_VERSION. Checked without a lock (and without needing the
 * CREATE privilege) when it is there already; otherwise migrated under the lock, checked
 * again once the lock is held, since another job may have migrated meanwhile.
 */
export async function migrate(session: Session): Promise<void> {
  if (refuseNewer(await schemaVersion(session)) === SCHEMA_VERSION) return;
  await session.begin();
  await session.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
  await session.query(`
    CREATE TABLE IF NOT EXISTS perf_gate_migrations (
      version integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  const current = refuseNewer(await schemaVersion(session));
  for (const migration of MIGRATIONS.filter((m) => m.version > current)) {
    await session.query(migration.sql);
    await session.query('INSERT INTO perf_gate_migrations (version) VALUES ($1)', [
      migration.version,
    ]);
  }
  await session.query('COMMIT');
}

/** The newest migration applied; 0 for a database the gate has not used yet. */
async function schemaVersion(session: Session): Promise<number> {
  const table = await session.query<{ present: boolean }>(
    "SELECT to_regclass('perf_gate_migrations') IS NOT NULL AS present",
  );
  if (!table.rows[0]?.present) return 0;
  const applied = await session.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM perf_gate_migrations',
  );
  return applied.rows[0]?.version ?? 0;
}

export class NewerSchemaError extends Error {
  override readonly name = 'NewerSchemaError';
}

function refuseNewer(version: number): number {
  if (version > SCHEMA_VERSION) {
    throw new NewerSchemaError(
      `its schema is at version ${version}, newer than this neuron-perf-gate knows (${SCHEMA_VERSION}): a newer version of the action migrated it. Upgrade the action in this workflow (every job that writes to the database should run the newer version); the gate neither reads nor writes a schema it does not know`,
    );
  }
  return version;
}
