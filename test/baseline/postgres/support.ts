// One real PostgreSQL cluster per test file (test/support/postgres.ts), a fresh database
// per test, and every store a test opens closed after it.
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  PostgresRecordStore,
  type PostgresRecordStoreOptions,
} from '../../../src/baseline/postgres/postgres-record-store.js';
import { startPostgres, type PostgresCluster } from '../../support/postgres.js';

export interface PostgresFixture {
  cluster(): PostgresCluster;
  /** A store on `url` (or a new database), closed after the test. */
  store(url: string, options?: Partial<PostgresRecordStoreOptions>): PostgresRecordStore;
  /** The database name of a connection string from cluster().createDatabase(). */
  databaseOf(url: string): string;
}

export function usePostgres(): PostgresFixture {
  let cluster: PostgresCluster | undefined;
  const open: PostgresRecordStore[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });
  afterAll(() => cluster?.remove());
  return {
    cluster: () => {
      if (!cluster) throw new Error('the PostgreSQL cluster did not start');
      return cluster;
    },
    store(url, options = {}) {
      const store = new PostgresRecordStore({ connectionString: url, ...options });
      open.push(store);
      return store;
    },
    databaseOf: (url) => new URL(url).pathname.slice(1),
  };
}
