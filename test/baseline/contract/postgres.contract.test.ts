// The record store contract against the PostgreSQL store and a real server: one throwaway
// cluster for the file, a new database for each case. A connection dropped mid-write is
// tested in test/baseline/postgres/ (pg_terminate_backend while the write holds a lock).

import { createHash } from 'node:crypto';
import { afterAll } from 'vitest';
import { PostgresRecordStore } from '../../../src/baseline/postgres/postgres-record-store.js';
import { benchmarkFolder } from '../../../src/baseline/record-paths.js';
import { serializeRecord } from '../../../src/baseline/record-text.js';
import { startPostgres, type PostgresCluster } from '../../support/postgres.js';
import { at, sampleRecord } from '../git/support.js';
import { describeRecordBackendContract, FOREIGN_GATE } from './record-backend-contract.js';

let cluster: Promise<PostgresCluster> | undefined;
afterAll(async () => (await cluster)?.remove());

describeRecordBackendContract('PostgreSQL', async () => {
  const server = await (cluster ??= startPostgres());
  const url = await server.createDatabase();
  const database = new URL(url).pathname.slice(1);
  const open = () => new PostgresRecordStore({ connectionString: url, deadlineMs: 20_000 });
  const backend = open();
  return {
    backend,
    reopen: () => Promise.resolve(open()),
    cleanup: () => Promise.resolve(),
    // A row put in by hand: filed under this gate, holding another gate's record.
    plantForeign: async (gateKey) => {
      await backend.readRecords(gateKey); // the schema is there
      const record = sampleRecord('qwen', 77, at(77), { gateKey: FOREIGN_GATE });
      const body = serializeRecord(record);
      const path = `${benchmarkFolder(gateKey, 'qwen')}/20260101T000117Z-planted-1.json`;
      await server.query(
        database,
        `INSERT INTO perf_gate_records
           (path, gate_key, benchmark, created_at, commit_sha, run_id, sha256, body, summary)
         VALUES ($1, $2, 'qwen', $3, $4, $5, $6, $7, $8::jsonb)`,
        [
          path,
          gateKey,
          record.createdAt,
          record.commit,
          record.runId,
          createHash('sha256').update(body).digest('hex'),
          body,
          body,
        ],
      );
      return path;
    },
  };
});
